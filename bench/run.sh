#!/bin/sh
# Benchmarks of the correlate + evaluate stages over a generated estate of
# 100,000 artifacts and 5,000 backfills, with the full rule catalogue and
# five CEL user rules. Prints ns/op, ns/artifact, B/op and allocs/op.
#   bench/run.sh                 # both benchmarks, 3 runs each
#   COUNT=1 bench/run.sh Audit   # one benchmark, once
set -eu
cd "$(dirname "$0")/.."
exec go test -run '^$' -bench "${1:-.}" -benchmem -count "${COUNT:-3}" ./bench/
