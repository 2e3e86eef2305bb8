# Keeps, from Grafana's OpenAPI 3 description of dashboard.grafana.app
# v2beta1 (pkg/tests/apis/openapi_snapshots/dashboard.grafana.app-v2beta1.json),
# the header and the one operation the grafana collector calls: reading a
# dashboard stored in the v2 schema. Run:
#   jq -f extract-apis.jq dashboard.grafana.app-v2beta1.json > grafana-apis-dashboard-v2beta1-extract.json
{
  openapi, info,
  paths: (.paths | with_entries(
    select(.key == "/apis/dashboard.grafana.app/v2beta1/namespaces/{namespace}/dashboards/{name}")
    | .value |= {get, parameters}))
}
