package airflow

import (
	"encoding/json"
	"net/http"
)

// listResources serves GET /pools, /connections and /variables like
// Airflow: limit/offset pages with total_entries. Both versions accept
// only limit, offset and order_by plus, on v2, a *_pattern filter; Airflow
// 2 refuses any other query parameter, and so does the fake on both, so a
// request the OpenAPI description does not allow fails the test.
func (f *fakeAirflow) listResources(w http.ResponseWriter, r *http.Request, key string) {
	allowed := map[string]bool{"limit": true, "offset": true, "order_by": true}
	if f.version == "2" {
		allowed[map[string]string{"pools": "pool_name_pattern", "connections": "connection_id_pattern",
			"variables": "variable_key_pattern"}[key]] = true
	}
	for k := range r.URL.Query() {
		if !allowed[k] {
			f.t.Errorf("GET %s: query parameter %q is not in the OpenAPI description", r.URL.Path, k)
			f.problem(w, http.StatusBadRequest, "Extra query parameter(s) "+k+" not in spec")
			return
		}
	}
	items := map[string][]json.RawMessage{"pools": f.store.Pools, "connections": f.store.Connections,
		"variables": f.store.Variables}[key]
	f.page(w, r, key, items)
}
