#!/bin/sh
# bfaudit fix: cleanup of BF-1234, as audited 2026-11-30T00:00:00Z.
# Read it before you run it. Access goes first: the revocations and key
# disables of every backfill are at the top and run as soon as the replay
# has finished. Then the steps follow the cleanup order: verify,
# normalize, archive the decision record, and only then retire tables and
# jobs.
# Each command runs on its own: one that fails, or that needs a variable
# that is not set (a token), is skipped with a line on stderr saying why,
# and the script goes on; a later step that relies on it is skipped too.
# At the end the script lists what did not run and exits 1.
# A step that must wait is printed commented out, with the reason; run
# bfaudit fix again once it is unblocked.
# psql connects with the usual PG* variables (PGHOST, PGUSER, PGPASSWORD).

bf_not_run='' bf_undone='' bf_step='' bf_held='' bf_label='' bf_ok=0
bf_at() {
	bf_step=$1 bf_held=''
	shift
	for bf_s in "$@"; do
		case " $bf_undone " in *" $bf_s "*) bf_held="step $bf_s did not complete"; return 0 ;; esac
	done
}
bf_can() {
	bf_label=$1
	shift
	if [ -n "$bf_held" ]; then bf_skip "$bf_held"; return 1; fi
	for bf_v in "$@"; do
		eval "bf_val=\${$bf_v:-}"
		if [ -z "$bf_val" ]; then bf_skip "$bf_v is not set"; return 1; fi
	done
	printf 'bfaudit fix: running %s\n' "$bf_label" >&2
}
bf_ran() {
	if [ "$1" -eq 0 ]; then bf_ok=$((bf_ok + 1)); return 0; fi
	printf 'bfaudit fix: FAILED %s (exit %s)\n' "$bf_label" "$1" >&2
	bf_missed "failed (exit $1)"
}
bf_skip() {
	printf 'bfaudit fix: SKIPPED %s: %s\n' "$bf_label" "$1" >&2
	bf_missed "skipped, $1"
}
bf_missed() {
	bf_not_run="$bf_not_run
  $bf_label: $1"
	case " $bf_undone " in *" $bf_step "*) ;; *) bf_undone="$bf_undone $bf_step" ;; esac
}

# == BF-1234: lifecycle reached plan, next verified: access first

# -- step access revoked: runs now (the replay is finished: access goes first) although step normalized is not done: BF018 side-effect guard bf-1234-suppress-refund-emails of backfill BF-1234 is still enabled, as for the replay: production's side effects stay held back; BF019 dashboard Revenue daily reads shop-analytics.revenue.bf_1234_refunds_tmp of backfill BF-1234: repoint or retire it before the table is dropped; BF007 alert refund-backfill-watch was made for backfill BF-1234 (listed in the assets_to_remove of plan BF-1234 and watches only backfill series) and is still active
bf_at access-revoked
# BF003 critical gcpiam://shop-analytics/bindings/roles/bigquery.dataEditor/serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com: grant roles/bigquery.dataEditor to serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com is still in force: the plan's elevated access expired 2026-09-30
# revoke_grant: remove roles/bigquery.dataEditor from serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com in project shop-analytics
if bf_can 'BF003 revoke_grant: remove roles/bigquery.dataEditor from serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com in project shop-analytics'; then ( set -eu
gcloud projects remove-iam-policy-binding --member=serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com --role=roles/bigquery.dataEditor --condition=None shop-analytics
); bf_ran $?; fi
# BF004 critical gcpiam://shop-analytics/serviceAccounts/backfill-runner@shop-analytics.iam.gserviceaccount.com/keys/8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a: credential backfill-runner@shop-analytics.iam.gserviceaccount.com key 8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a is still valid with no expiry: completed 2026-09-20, grace 2d ended 2026-09-22
# disable_key: disable key 8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a of backfill-runner@shop-analytics.iam.gserviceaccount.com
if bf_can 'BF004 disable_key: disable key 8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a of backfill-runner@shop-analytics.iam.gserviceaccount.com'; then ( set -eu
gcloud iam service-accounts keys disable --iam-account=backfill-runner@shop-analytics.iam.gserviceaccount.com --project=shop-analytics --quiet 8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a
); bf_ran $?; fi
# BF022 critical notebooks:///bf_1234_refund_fix.ipynb: notebook notebooks/bf_1234_refund_fix.ipynb of backfill BF-1234 keeps 1 credential(s) in its cells or outputs, and a key among them is still active
# TODO (by hand): Rotate the key first (it is live until revoked), then clear the outputs with `jupyter nbconvert --clear-output --inplace notebooks/bf_1234_refund_fix.ipynb` and remove the secret from the cell; check the repository history. Service-account key id(s) to delete: 8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a. Found at: cell 2 output 1 stdout lines 4, 5 (gcp-service-account-key).
# where: notebooks:///bf_1234_refund_fix.ipynb

# == BF-1234: lifecycle reached plan, next verified: the other steps, in lifecycle order

# -- plan and governance (before the next backfill)
# BF028 low pubsub://shop-analytics/subscriptions/bf-1234-retries: keep label on subscription bf-1234-retries waives nothing: keep-reason: missing: say why the artifact is kept
# TODO (by hand): Give the keep label an end date within the longest keep allowed and a reason (bfaudit-keep-until and bfaudit-keep-reason), or remove it and let the cleanup go ahead.
# where: the keep label on pubsub://shop-analytics/subscriptions/bf-1234-retries

# -- step verified
bf_at verified
# BF024 high lineage://shop-analytics.intermediate.int_orders: shop-analytics.intermediate.int_orders is derived from shop-analytics.revenue.refunds, rewritten by BF-1234 (completed 2026-09-20), and was last rebuilt 2026-05-01, before that: it still holds numbers from before the fix (rebuild 1 of 3)
# note: Rebuild in the order the finding gives: a table rebuilt before its parent reads the parent's old numbers.
# rebuild_table: rebuild shop-analytics.intermediate.int_orders (1 of 3 in the rebuild order)
if bf_can 'BF024 rebuild_table: rebuild shop-analytics.intermediate.int_orders (1 of 3 in the rebuild order)'; then ( set -eu
dbt build --select int_orders
); bf_ran $?; fi
# BF025 high lineage://shop-analytics.marts.fct_refunds: shop-analytics.marts.fct_refunds was rebuilt after BF-1234 completed but before its parent: shop-analytics.intermediate.int_orders is not rebuilt since the backfill
# note: Rebuild in the order the finding gives: a table rebuilt before its parent reads the parent's old numbers.
# rebuild_table: rebuild shop-analytics.marts.fct_refunds (2 of 3 in the rebuild order)
if bf_can 'BF025 rebuild_table: rebuild shop-analytics.marts.fct_refunds (2 of 3 in the rebuild order)'; then ( set -eu
dbt build --select fct_refunds
); bf_ran $?; fi
# BF024 high lineage://shop-analytics.marts.fct_revenue: shop-analytics.marts.fct_revenue is derived from shop-analytics.revenue.refunds, rewritten by BF-1234 (completed 2026-09-20), and was last rebuilt 2026-05-01, before that: it still holds numbers from before the fix (rebuild 3 of 3)
# note: Rebuild in the order the finding gives: a table rebuilt before its parent reads the parent's old numbers.
# rebuild_table: rebuild shop-analytics.marts.fct_revenue (3 of 3 in the rebuild order)
if bf_can 'BF024 rebuild_table: rebuild shop-analytics.marts.fct_revenue (3 of 3 in the rebuild order)'; then ( set -eu
dbt build --select fct_revenue
); bf_ran $?; fi

# -- step normalized
bf_at normalized verified
# BF018 critical unleash://flags/projects/default/features/bf-1234-suppress-refund-emails: side-effect guard bf-1234-suppress-refund-emails of backfill BF-1234 is still enabled, as for the replay: production's side effects stay held back
# archive_flag: archive flag bf-1234-suppress-refund-emails in project default
# waits: by-hand check BF018 on this feature flag first (its TODO at step normalized); run bfaudit fix again once it is done
# curl -fsS -X DELETE -H "Authorization: ${UNLEASH_TOKEN:?set UNLEASH_TOKEN to an Unleash admin API token}" "${UNLEASH_URL:?set UNLEASH_URL to the Unleash address}"/api/admin/projects/default/features/bf-1234-suppress-refund-emails
# BF007 low grafana://dashboards/dashboards/bf-1234-refund-replay: dashboard BF-1234 refund replay was made for backfill BF-1234 (marked temporary and listed in the assets_to_remove of plan BF-1234) and is still active
# delete_dashboard: delete Grafana dashboard BF-1234 refund replay
if bf_can 'BF007 delete_dashboard: delete Grafana dashboard BF-1234 refund replay' GRAFANA_TOKEN GRAFANA_URL; then ( set -eu
curl -fsS -X DELETE -H "Authorization: Bearer $GRAFANA_TOKEN" "$GRAFANA_URL"/api/dashboards/uid/bf-1234-refund-replay
); bf_ran $?; fi
# BF018 critical unleash://flags/projects/default/features/bf-1234-suppress-refund-emails: side-effect guard bf-1234-suppress-refund-emails of backfill BF-1234 is still enabled, as for the replay: production's side effects stay held back
# TODO (by hand): Make sure flag bf-1234-suppress-refund-emails is back in its normal position (side effects on) in every environment, and check the job sends again. Removing the flag (BF017's command) returns its callers to the default in their code: check that default is the normal position.
# where: unleash://flags/projects/default/features/bf-1234-suppress-refund-emails
# BF019 medium grafana://dashboards/dashboards/revenue-daily: dashboard Revenue daily reads shop-analytics.revenue.bf_1234_refunds_tmp of backfill BF-1234: repoint or retire it before the table is dropped
# TODO (by hand): Repoint the queries of dashboard Revenue daily to the final table, or retire them: panel "Refunds by day" (shop-analytics.revenue.bf_1234_refunds_tmp). The temporary table is dropped only after this.
# where: grafana://dashboards/dashboards/revenue-daily
# BF007 low exports://alerts/refund-backfill-watch: alert refund-backfill-watch was made for backfill BF-1234 (listed in the assets_to_remove of plan BF-1234 and watches only backfill series) and is still active
# TODO (by hand): Delete the alert refund-backfill-watch in monitoring: bfaudit has no command for this system.
# where: exports://alerts/refund-backfill-watch

# -- step archived: WAITS, step normalized is not done: BF018 side-effect guard bf-1234-suppress-refund-emails of backfill BF-1234 is still enabled, as for the replay: production's side effects stay held back; BF019 dashboard Revenue daily reads shop-analytics.revenue.bf_1234_refunds_tmp of backfill BF-1234: repoint or retire it before the table is dropped; BF007 alert refund-backfill-watch was made for backfill BF-1234 (listed in the assets_to_remove of plan BF-1234 and watches only backfill series) and is still active
# BF008 medium: decision record records/bf-1234.md:1 is not archived for BF-1234 (completed 2026-09-20, more than 14 days ago)
# TODO (by hand): Complete the decision record and archive it: set archived_at once every field is right.
# where: records/bf-1234.md:1
# ---
# backfill_id: BF-1234
# purpose: Recompute daily revenue per category with refunds included
# range: {start: 2026-06-01, end: 2026-08-30} # half-open [start, end)
# job_id: daily_revenue
# validation_query: |
#   SELECT backfill_id, MIN(event_time), MAX(event_time), COUNT(*)
#   FROM corrected_events WHERE backfill_id = 'BF-1234' GROUP BY backfill_id
# approving_owner: carol@example.com
# final_data_location: # TODO: where the final data lives now (project.dataset.table, schema.table)
# archived_at: # TODO: the day you archive the record, once every field above is right
# ---
# # BF-1234: Recompute daily revenue per category with refunds included
#
# BF020 medium kafka://events/groups/bf_1234_refund_replay: consumer group bf_1234_refund_replay of backfill BF-1234 is held, and the decision record does not say its final range and replay id
# TODO (by hand): Write what the checkpoint state held into the decision record's front matter, before the state is deleted.
# where: records/bf-1234.md:1
# checkpoint:
#   final_range: refund-events/0=40211873,refund-events/1=40198552
#   replay_id: bf_1234_refund_replay
#   location: kafka://events/groups/bf_1234_refund_replay
# BF009 low record:records/bf-1234.md: decision record for BF-1234 lacks final_data_location
# TODO (by hand): Add the missing fields to the decision record's front matter.
# where: records/bf-1234.md:1
# final_data_location: # TODO: where the final data lives now (project.dataset.table, schema.table)

# -- step retired: WAITS, step normalized is not done: BF018 side-effect guard bf-1234-suppress-refund-emails of backfill BF-1234 is still enabled, as for the replay: production's side effects stay held back; BF019 dashboard Revenue daily reads shop-analytics.revenue.bf_1234_refunds_tmp of backfill BF-1234: repoint or retire it before the table is dropped; BF007 alert refund-backfill-watch was made for backfill BF-1234 (listed in the assets_to_remove of plan BF-1234 and watches only backfill series) and is still active
# BF004 critical gcpiam://shop-analytics/serviceAccounts/backfill-runner@shop-analytics.iam.gserviceaccount.com/keys/8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a: credential backfill-runner@shop-analytics.iam.gserviceaccount.com key 8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a is still valid with no expiry: completed 2026-09-20, grace 2d ended 2026-09-22
# delete_key: delete key 8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a of backfill-runner@shop-analytics.iam.gserviceaccount.com
# gcloud iam service-accounts keys delete --iam-account=backfill-runner@shop-analytics.iam.gserviceaccount.com --project=shop-analytics --quiet 8a1f0c2d9e7b4c3a2f1e0d9c8b7a6f5e4d3c2b1a
# BF006 high pubsub://shop-analytics/subscriptions/bf-1234-retries: subscription bf-1234-retries is still there after the backfill (312 messages waiting and 1 consumer attached)
# note: messages still waiting in the subscription are lost with it: drain or export them first if anyone needs them
# delete_subscription: delete subscription bf-1234-retries of project shop-analytics
# gcloud pubsub subscriptions delete --project=shop-analytics bf-1234-retries
# BF021 high kafka://events/groups/bf_1234_refund_replay: consumer group bf_1234_refund_replay of backfill BF-1234 is still there, parked 1240000 messages behind the log end
# note: the group's committed offsets are lost with it: record them (the artifact's offsets) in the decision record's checkpoint (final_range, replay_id, location) first; at the audit they were refund-events/0=40211873,refund-events/1=40198552
# delete_group: delete consumer group bf_1234_refund_replay of Kafka cluster events
# kafka-consumer-groups --bootstrap-server kafka-1.shop.internal:9092 --delete --group bf_1234_refund_replay
# BF005 medium bigquery://shop-analytics/revenue/bf_1234_refunds_tmp: temporary table bf_1234_refunds_tmp is still there: no expiration set; completed 2026-09-20, grace 7d ended 2026-09-27
# drop_table: delete table shop-analytics:revenue.bf_1234_refunds_tmp
# bq rm -f -t shop-analytics:revenue.bf_1234_refunds_tmp
# or: bq update --expiration 604800 shop-analytics:revenue.bf_1234_refunds_tmp  # keep it 7 more days, then BigQuery deletes it
# BF002 low airflow://scheduler/dags/bf_1234_refund_replay: paused job bf_1234_refund_replay is left in the scheduler instead of a runbook entry
# note: remove the DAG's file from the dags folder first: the scheduler parses it again and the DAG comes back otherwise
# note: if the job is needed for future recovery, convert it into an owned, tested runbook entry instead of deleting it, and set its runbook attribute
# delete_job: delete DAG bf_1234_refund_replay and its run history
# airflow dags delete --yes bf_1234_refund_replay

# -- the end: what did not run
if [ -n "$bf_not_run" ]; then
	printf 'bfaudit fix: %s command(s) ran; these did not:%s\n' "$bf_ok" "$bf_not_run" >&2
	exit 1
fi
printf 'bfaudit fix: %s command(s) ran, none failed or skipped\n' "$bf_ok" >&2
