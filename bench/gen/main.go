// Command gen writes a generated estate (bench.Estate) as a saved estate
// file, so anyone can reproduce the benchmarks with the real binary:
//
//	go run ./bench/gen -artifacts 100000 -out /tmp/estate.json
//	bfaudit audit --from /tmp/estate.json --now 2026-11-30 -f json -o json=/dev/null
//
// Backfills default to one per twenty artifacts, the ratio of the bench
// estate (100,000 artifacts, 5,000 backfills).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/bench"
	"github.com/bfaudit/bfaudit/collectors"
)

func main() {
	artifacts := flag.Int("artifacts", 100_000, "artifacts to generate")
	backfills := flag.Int("backfills", 0, "backfills to generate (default: artifacts/20, at least 1)")
	out := flag.String("out", "estate.json", "file to write")
	flag.Parse()
	if *artifacts < 0 || *backfills < 0 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	n := *backfills
	if n == 0 {
		n = max(1, *artifacts/20)
	}
	est := bench.Estate(*artifacts, n)
	// In the order `bfaudit collect` saves an estate, so that a run reads
	// what it would read in production (an unsorted file costs a sort).
	collectors.Sort(est)
	if err := audit.SaveEstate(*out, est); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
