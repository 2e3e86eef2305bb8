package postgres

import (
	"maps"
	"reflect"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a URI, the commands and the fix actions read
// back to the same parts, and the inference from a finding to the same
// kind and attributes, for every shape and whatever the names hold (every
// hostile name in every part, beside others; a PostgreSQL identifier is
// never empty).
func TestURIRoundTrip(t *testing.T) {
	var names []string
	for _, n := range remedytest.HostileNames {
		if n != "" {
			names = append(names, n)
		}
	}
	for i, a := range names {
		b, c, d := names[(i+1)%len(names)], names[(i+2)%len(names)], names[(i+3)%len(names)]
		p := &Postgres{}
		p.env.Source = d
		for _, tc := range []struct {
			uri   string
			kind  model.Kind
			attrs map[string]string
			want  PGObject
			// inferred: the attributes the URI alone gives
			inferred map[string]string
		}{
			{p.tableURI(a, b, c), model.KindTable, map[string]string{"object": "view"},
				PGObject{Database: a, Object: "view", Schema: b, Name: c}, nil},
			{p.schemaURI(a, b), model.KindTable, map[string]string{"object": "schema"},
				PGObject{Database: a, Object: "schema", Schema: b}, map[string]string{"object": "schema"}},
			{p.roleURI(a), model.KindCredential, nil, PGObject{Object: "role", Name: a}, map[string]string{model.AttrPrincipal: a}},
			{p.grantURI(a, b, "table", c+"."+d), model.KindGrant, map[string]string{model.AttrRole: "INSERT,SELECT"},
				PGObject{Database: a, Object: "table", Grant: true, Grantee: b, Schema: c, Name: d, Privileges: []string{"INSERT", "SELECT"}},
				map[string]string{model.AttrPrincipal: b, "object": "table"}},
			{p.grantURI(a, b, "schema", c), model.KindGrant, map[string]string{model.AttrRole: "USAGE"},
				PGObject{Database: a, Object: "schema", Grant: true, Grantee: b, Schema: c, Privileges: []string{"USAGE"}},
				map[string]string{model.AttrPrincipal: b, "object": "schema"}},
			{p.membershipURI(a, b), model.KindGrant, nil, PGObject{Object: "membership", Grant: true, Grantee: a, Name: b},
				map[string]string{model.AttrPrincipal: a, model.AttrRole: b}},
		} {
			got, ok := ParsePostgres(&model.Artifact{Kind: tc.kind, URI: tc.uri, Attributes: model.TagsOf(tc.attrs)})
			if !ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%q read back as %+v (%v), want %+v", tc.uri, got, ok, tc.want)
			}
			// A report's finding knows a table's kind (its rule judges
			// tables), not a role's or a grant's.
			inferred := &model.Artifact{URI: tc.uri}
			if tc.kind == model.KindTable {
				inferred.Kind = model.KindTable
			}
			inferPostgres(inferred)
			if inferred.Kind != tc.kind || !maps.Equal(inferred.Attributes.Map(), tc.inferred) {
				t.Errorf("%q inferred as %s %v, want %s %v", tc.uri, inferred.Kind, inferred.Attributes, tc.kind, tc.inferred)
			}
		}
	}
}
