# The five rules of the plain loop (bench/plainloop) in Rego, for
# bench/run.sh's opa case: what a team would write instead of bfaudit's
# built-ins. It reads the estate as input and decides exactly what the
# plain loop decides (bench/run.sh checks that the two find as many).
#
#   opa eval --data bench/opa/five.rego --input estate.json 'data.bfaudit.findings'
package bfaudit

import rego.v1

now_ns := time.parse_rfc3339_ns("2026-11-30T00:00:00Z")

day_ns := (24 * 60) * 60e9

norm(id) := replace(upper(trim_space(id)), "_", "-")

plans := {norm(b.id): b | some b in input.backfills}

approvers := {norm(r.backfill_id): object.get(r, "approving_owner", "") | some r in input.records}

completed := {"replayed", "verified", "archived", "retired"}

past(t) if {
	t != ""
	time.parse_rfc3339_ns(t) <= now_ns
}

# The first of the timeline's times, in the plain loop's order.
ended(bf) := [t |
	some k in ["completed_at", "verified_at", "archived_at", "retired_at"]
	t := object.get(object.get(bf, "timeline", {}), k, "")
	t != ""
]

grace_over(bf, grace) if {
	object.get(bf, "status", "") in completed
	ts := ended(bf)
	count(ts) > 0
	time.parse_rfc3339_ns(ts[0]) + grace <= now_ns
}

grace_over(bf, _) if {
	object.get(bf, "status", "") in completed
	count(ended(bf)) == 0
}

live(a) if not object.get(a, "state", "") in {"deleted", "expired"}

tied_id(a) := id if {
	id := norm(object.get(a, "backfill_id", ""))
	id != ""
}

tied_id(a) := id if {
	norm(object.get(a, "backfill_id", "")) == ""
	id := norm(object.get(object.get(a, "labels", {}), "backfill_id", ""))
	id != ""
}

attr(a, k) := object.get(object.get(a, "attributes", {}), k, "")

grant_expiry(a) := a.expires_at if a.expires_at

grant_expiry(a) := t if {
	not a.expires_at
	[_, rest] := split(attr(a, "condition"), `request.time < timestamp("`)
	t := split(rest, `")`)[0]
}

job_due(a, bf) if past(object.get(bf, "expiry", ""))

job_due(a, _) if past(object.get(a, "expires_at", ""))

job_due(_, bf) if grace_over(bf, 7 * day_ns)

grant_due(a, _) if past(grant_expiry(a))

grant_due(_, bf) if grace_over(bf, 2 * day_ns)

table_due(a, _) if past(object.get(a, "expires_at", ""))

table_due(a, bf) if {
	object.get(a, "expires_at", "") == ""
	grace_over(bf, 7 * day_ns)
}

grant_severity(bf) := "high" if object.get(bf, "classification", "") in {"", "none"}

grant_severity(bf) := "critical" if not object.get(bf, "classification", "") in {"", "none"}

finding(rule, sev, bf, a, msg) := {"rule_id": rule, "severity": sev, "backfill_id": bf, "artifact_uri": a.uri, "message": msg}

findings contains f if {
	some a in input.artifacts
	live(a)
	id := tied_id(a)
	not plans[id]
	not approvers[id]
	f := finding("BF011", "medium", id, a, sprintf("%s %s is tagged with backfill %s, which no plan or record describes", [a.kind, a.name, id]))
}

findings contains f if {
	some a in input.artifacts
	a.kind == "scheduler_job"
	live(a)
	bf := plans[tied_id(a)]
	not a.state in {"paused", "disabled"}
	attr(a, "runbook") == ""
	job_due(a, bf)
	f := finding("BF001", "medium", bf.id, a, sprintf("job %s is still scheduled: backfill %s expired %s", [a.name, bf.id, substring(object.get(bf, "expiry", "0001-01-01"), 0, 10)]))
}

findings contains f if {
	some a in input.artifacts
	a.kind == "grant"
	live(a)
	bf := plans[tied_id(a)]
	grant_due(a, bf)
	f := finding("BF003", grant_severity(bf), bf.id, a, sprintf("grant %s to %s is still in force", [attr(a, "role"), attr(a, "principal")]))
}

findings contains f if {
	some a in input.artifacts
	a.kind in {"table", "checkpoint"}
	live(a)
	bf := plans[tied_id(a)]
	table_due(a, bf)
	f := finding("BF005", "medium", bf.id, a, sprintf("temporary %s %s is still there", [a.kind, a.name]))
}

findings contains f if {
	some a in input.artifacts
	a.kind != "job_run"
	live(a)
	id := tied_id(a)
	bf := plans[id]
	object.get(a, "owner", "") == ""
	object.get(bf, "owner", "") == ""
	object.get(approvers, id, "") == ""
	f := finding("BF012", "low", bf.id, a, sprintf("%s %s of %s has no owner", [a.kind, a.name, bf.id]))
}
