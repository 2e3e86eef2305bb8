#!/bin/sh
# Whole-process benchmarks of issue 14, measured against a plain Go loop
# over the same generated estate, in one run so that the ratios hold on a
# busy machine. Prints, for each case, the median wall time of REPEAT runs
# (the runs of all cases are interleaved), its spread, the ratio to the
# plain loop, the median CPU time (user + system) and its ratio, which a
# busy machine disturbs less than wall time, and the peak RSS (GNU time).
#   bench/run.sh                      # 100,000 artifacts, 3 rounds
#   ARTIFACTS=1000000 REPEAT=1 bench/run.sh json
#   bench/run.sh plain json table     # only these cases
# Cases: plain json table markdown html sarif five cel, and opa (the same
# five rules in Rego, bench/opa/five.rego, through `opa eval`; OPA v1.22.3
# is built from the Go module proxy into the bench directory the first
# time, or set OPA to a binary). Then (unless
# NOCHECK=1) the JSON, SARIF and table reports of the 100k estate are
# checked byte for byte against the golden digests, and (GOBENCH=1) the
# in-process Go benchmarks run.
set -eu
cd "$(dirname "$0")/.."
ARTIFACTS=${ARTIFACTS:-100000}
REPEAT=${REPEAT:-3}
CASES=${*:-plain json table markdown html sarif five cel}
DIR=${BENCHDIR:-${TMPDIR:-/tmp}/bfaudit-bench}
mkdir -p "$DIR"
if ! [ -x /usr/bin/time ]; then
	echo "bench/run.sh needs /usr/bin/time (GNU time) for peak RSS" >&2
	exit 1
fi

# Each binary is built, then copied to the name the cases run: a binary
# the linker has just written counts about 30 MiB more of its own pages
# in RSS than a copy of it (98 against 68 MiB for bfaudit on this
# project's machine, as the kernel caches the two files), so peak RSS
# would otherwise depend on whether this run rebuilt it.
for p in cmd/bfaudit bench/gen bench/plainloop; do
	go build -o "$DIR/${p##*/}.built" "./$p"
	cp "$DIR/${p##*/}.built" "$DIR/${p##*/}"
done
# has CASE: whether the run includes that case.
has() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }
case " $CASES " in
*" opa "*)
	OPA=${OPA:-$DIR/opa}
	if ! [ -x "$OPA" ]; then
		echo "building OPA v1.22.3 into $DIR (once; a few minutes)" >&2
		GOBIN=$(cd "$DIR" && pwd) go install github.com/open-policy-agent/opa@v1.22.3
	fi
	;;
esac
estate="$DIR/estate-$ARTIFACTS.json"
if ! [ -s "$estate" ]; then
	"$DIR/gen" -artifacts "$ARTIFACTS" -out "$estate"
fi

# The five rules of the comparison, as built-ins (every other rule
# disabled) and as CEL user rules (every built-in disabled).
five="BF001 BF003 BF005 BF011 BF012"
all=$("$DIR/bfaudit" rules list | awk 'NR > 1 { print $1 }')
others=$(for id in $all; do case " $five " in *" $id "*) ;; *) printf '%s, ' "$id" ;; esac; done)
printf 'rules:\n  disabled: [%s]\n' "${others%, }" > "$DIR/five.yaml"
everything=$(for id in $all; do printf '%s, ' "$id"; done)
live='artifact.state != "deleted" && artifact.state != "expired"'
done='backfill.status in ["replayed", "verified", "archived", "retired"]'
# grace DURATION: the replay finished that long ago, timed from the first
# of the timeline's times (completed, verified, archived, retired), or
# long ago when none is known, as the built-ins and the plain loop time it.
grace() {
	t=backfill.timeline
	d="duration(\"$1\")"
	echo "$done && (has($t.completed_at) ? now >= $t.completed_at + $d : has($t.verified_at) ? now >= $t.verified_at + $d : has($t.archived_at) ? now >= $t.archived_at + $d : has($t.retired_at) ? now >= $t.retired_at + $d : true)"
}
cat > "$DIR/cel.yaml" <<YAML
rules:
  disabled: [${everything%, }]
  custom:
    - {id: C001, title: job still scheduled, severity: medium, remediation: r, applies_to: artifact,
       expr: 'artifact.kind == "scheduler_job" && has(backfill.id) && $live && artifact.state != "paused" && artifact.state != "disabled" && !("runbook" in artifact.attributes) && ((has(backfill.expiry) && now >= backfill.expiry) || (has(artifact.expires_at) && now >= artifact.expires_at) || ($(grace 168h)))'}
    - {id: C003, title: grant still in force, severity: high, remediation: r, applies_to: artifact,
       expr: 'artifact.kind == "grant" && has(backfill.id) && $live && ((has(artifact.expires_at) && now >= artifact.expires_at) || ($(grace 48h)))'}
    - {id: C005, title: temporary table left, severity: medium, remediation: r, applies_to: artifact,
       expr: '(artifact.kind == "table" || artifact.kind == "checkpoint") && has(backfill.id) && $live && ((has(artifact.expires_at) && now >= artifact.expires_at) || (!has(artifact.expires_at) && $(grace 168h)))'}
    - {id: C011, title: orphan artifact, severity: medium, remediation: r, applies_to: artifact,
       expr: 'has(artifact.backfill_id) && !has(backfill.id) && !has(record.backfill_id) && $live'}
    - {id: C012, title: unowned artifact, severity: low, remediation: r, applies_to: artifact,
       expr: 'has(backfill.id) && $live && artifact.kind != "job_run" && artifact.owner == "" && backfill.owner == "" && record.approving_owner == ""'}
YAML

# timed CASE COMMAND...: runs the command under /usr/bin/time, appending
# "CASE WALL-SECONDS PEAK-RSS-KB CPU-SECONDS" to $DIR/times. bfaudit exits 1 when
# findings reach fail_on, which is a success here.
timed() {
	c=$1
	shift
	/usr/bin/time -f "$c %e %M %U %S" -a -o "$DIR/times" "$@" >/dev/null 2>"$DIR/stderr" || {
		code=$?
		if [ "$code" -ne 1 ] || [ "$c" = plain ]; then
			echo "case $c failed (exit $code):" >&2
			cat "$DIR/stderr" >&2
			exit 1
		fi
	}
}
run() {
	audit="$DIR/bfaudit audit --from $estate --now 2026-11-30"
	case $1 in
	plain) timed plain "$DIR/plainloop" -estate "$estate" -out /dev/null ;;
	json | table | markdown | html | sarif) timed "$1" $audit -f "$1" -o "$1=/dev/null" ;;
	five) timed five $audit --config "$DIR/five.yaml" -f json -o json=/dev/null ;;
	cel) timed cel $audit --config "$DIR/cel.yaml" -f json -o json=/dev/null ;;
	opa) timed opa "$OPA" eval --data bench/opa/five.rego --input "$estate" --format json 'data.bfaudit.findings' ;;
	*) echo "unknown case $1 (expected plain json table markdown html sarif five cel opa)" >&2; exit 2 ;;
	esac
}

: > "$DIR/times"
for round in $(seq "$REPEAT"); do
	for c in $CASES; do
		run "$c"
	done
done

# Medians of wall and CPU time, the spread of wall time and the peak RSS
# of each case; the ratios are to the plain loop's medians.
echo "$ARTIFACTS artifacts, $(wc -c < "$estate" | tr -d ' ') byte estate, $REPEAT round(s), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
printf '%-9s %8s %15s %7s %8s %7s %9s\n' case "wall s" "wall min-max" "x plain" "CPU s" "x plain" "RSS MiB"
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
wall0=$(awk '$1 == "plain" && NF == 5 { print $2 }' "$DIR/times" | median)
cpu0=$(awk '$1 == "plain" && NF == 5 { print $4 + $5 }' "$DIR/times" | median)
for c in $CASES; do
	wall=$(awk -v c="$c" '$1 == c && NF == 5 { print $2 }' "$DIR/times" | median)
	cpu=$(awk -v c="$c" '$1 == c && NF == 5 { print $4 + $5 }' "$DIR/times" | median)
	awk -v c="$c" '$1 == c && NF == 5 { print $2, $3 }' "$DIR/times" | sort -n | awk -v c="$c" -v wall="$wall" -v cpu="$cpu" -v wall0="${wall0:-0}" -v cpu0="${cpu0:-0}" '
		{ w[NR] = $1; if ($2 > rss) rss = $2 }
		END {
			if (!NR) exit
			rw = wall0 > 0 ? sprintf("%.1f", wall / wall0) : "-"
			rc = cpu0 > 0 ? sprintf("%.1f", cpu / cpu0) : "-"
			printf "%-9s %8.2f %7.2f-%-7.2f %7s %8.2f %7s %9.0f\n", c, wall, w[1], w[NR], rw, cpu, rc, rss / 1024
		}'
done

# The CEL rules must find what the five built-ins find, or the cel row
# compares different work.
if has five && has cel; then
	"$DIR/bfaudit" audit --from "$estate" --now 2026-11-30 --config "$DIR/five.yaml" -f json -o json="$DIR/five.json" 2>/dev/null || [ $? -eq 1 ]
	"$DIR/bfaudit" audit --from "$estate" --now 2026-11-30 --config "$DIR/cel.yaml" -f json -o json="$DIR/cel.json" 2>/dev/null || [ $? -eq 1 ]
	want=$(grep -c '"rule_id"' "$DIR/five.json" || true)
	got=$(grep -c '"rule_id"' "$DIR/cel.json" || true)
	if [ "$want" != "$got" ]; then
		echo "the CEL rules found $got findings, the five built-ins $want: the cel case has drifted" >&2
		exit 1
	fi
	echo "the CEL rules and the built-ins agree: $got findings"
fi

# The Rego rules must decide what the plain loop decides, or the opa row
# compares different work.
case " $CASES " in
*" opa "*)
	"$DIR/plainloop" -estate "$estate" -out "$DIR/plain.json"
	"$OPA" eval --data bench/opa/five.rego --input "$estate" --format json 'data.bfaudit.findings' > "$DIR/opa.json"
	want=$(grep -c '"rule_id"' "$DIR/plain.json" || true)
	got=$(grep -o '"rule_id"' "$DIR/opa.json" | wc -l | tr -d ' ')
	if [ "$want" != "$got" ]; then
		echo "opa found $got findings, the plain loop $want: bench/opa/five.rego has drifted" >&2
		exit 1
	fi
	echo "opa and the plain loop agree: $got findings"
	;;
esac

if [ "${NOCHECK:-}" != 1 ] && [ "$ARTIFACTS" = 100000 ]; then
	echo
	echo "golden digests of the 100k reports:"
	go test -count=1 -run 'TestGoldenBench$' ./bench/
fi
if [ "${GOBENCH:-}" = 1 ]; then
	go test -run '^$' -bench . -benchmem -count "${COUNT:-1}" ./bench/
fi
