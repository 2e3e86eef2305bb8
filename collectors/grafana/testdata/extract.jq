# Keeps, from Grafana's public/api-merged.json (Swagger 2.0), the header,
# the five paths the grafana collector and its fix system call, and the
# definitions their parameters and answers use. Run:
#   jq -f extract.jq api-merged.json > grafana-api-extract.json
{
  swagger, info: {title: .info.title, version: .info.version},
  basePath, consumes, produces,
  paths: (.paths | with_entries(select(.key as $k | [
    "/dashboards/uid/{uid}", "/folders", "/search",
    "/v1/provisioning/alert-rules", "/v1/provisioning/alert-rules/{UID}"
  ] | index($k)))),
  definitions: (.definitions | with_entries(select(.key as $k | [
    "AlertQuery", "DashboardFullWithMeta", "DashboardMeta", "Duration",
    "FolderSearchHit", "Hit", "HitList", "HitType", "Json", "ManagerKind",
    "Provenance", "ProvisionedAlertRule", "ProvisionedAlertRules", "Record",
    "RelativeTimeRange"
  ] | index($k))))
}
