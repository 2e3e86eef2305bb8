package glue

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// fakeLake is one account's Lake Formation in one region, answering as
// Lake Formation does: its settings, the permissions granted (pages of
// at most lfPageSize, NextToken; on a resource alone when asked, a
// table's columns with the table), revocations.
type fakeLake struct {
	mu               sync.Mutex
	account          string
	admins, readOnly []string
	grants           []map[string]any // entries as ListPermissions answers them
	failing          bool             // ListPermissions fails
	revoked          []string         // principal, resource and permissions of each revocation
}

const lfPageSize = 2

// grant records permissions of principal on resource (a Resource
// structure: {"Table": {...}}); grantable ones are also given with the
// grant option. A resource without CatalogId is the account's.
func (l *fakeLake) grant(principal string, resource map[string]any, perms []string, grantable ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, v := range resource {
		if r := v.(map[string]any); r["CatalogId"] == nil && k != "Catalog" {
			r["CatalogId"] = l.account
		}
	}
	l.grants = append(l.grants, map[string]any{
		"Principal": map[string]any{"DataLakePrincipalIdentifier": principal}, "Resource": resource,
		"Permissions": perms, "PermissionsWithGrantOption": append([]string{}, grantable...), "LastUpdated": updated,
		"LastUpdatedBy": "arn:aws:iam::" + l.account + ":role/lake-admin",
	})
}

func onDB(db string) map[string]any { return map[string]any{"Database": map[string]any{"Name": db}} }
func onTbl(db, table string) map[string]any {
	return map[string]any{"Table": map[string]any{"DatabaseName": db, "Name": table}}
}
func onEveryTable(db string) map[string]any {
	return map[string]any{"Table": map[string]any{"DatabaseName": db, "TableWildcard": map[string]any{}}}
}
func onCols(db, table string, wildcard map[string]any, names ...string) map[string]any {
	t := map[string]any{"DatabaseName": db, "Name": table}
	if wildcard != nil {
		t["ColumnWildcard"] = wildcard
	} else {
		t["ColumnNames"] = names
	}
	return map[string]any{"TableWithColumns": t}
}
func onLoc(arn string) map[string]any {
	return map[string]any{"DataLocation": map[string]any{"ResourceArn": arn}}
}

func (l *fakeLake) handle(c smithy.Call) (map[string]any, *smithy.Error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	principals := func(arns []string) []any {
		out := []any{}
		for _, a := range arns {
			out = append(out, map[string]any{"DataLakePrincipalIdentifier": a})
		}
		return out
	}
	switch c.Operation {
	case "GetDataLakeSettings":
		return map[string]any{"DataLakeSettings": map[string]any{"DataLakeAdmins": principals(l.admins), "ReadOnlyAdmins": principals(l.readOnly),
			"CreateTableDefaultPermissions": []any{map[string]any{"Principal": map[string]any{"DataLakePrincipalIdentifier": "IAM_ALLOWED_PRINCIPALS"}, "Permissions": []string{"ALL"}}}}}, nil
	case "ListPermissions":
		if l.failing {
			return nil, &smithy.Error{Code: "InternalServiceException", Message: "Internal service error", Status: 500}
		}
		var match []map[string]any
		for _, g := range l.grants {
			if r, ok := c.Input["Resource"].(map[string]any); !ok || about(g["Resource"].(map[string]any), r, l.account) {
				match = append(match, g)
			}
		}
		from, _ := strconv.Atoi(fmt.Sprint(c.Input["NextToken"]))
		to := min(from+lfPageSize, len(match))
		out := map[string]any{"PrincipalResourcePermissions": append([]map[string]any{}, match[from:to]...)}
		if to < len(match) {
			out["NextToken"] = strconv.Itoa(to)
		}
		return out, nil
	case "RevokePermissions":
		who := c.Input["Principal"].(map[string]any)["DataLakePrincipalIdentifier"]
		want := canonical(c.Input["Resource"], l.account)
		i := slices.IndexFunc(l.grants, func(g map[string]any) bool {
			return g["Principal"].(map[string]any)["DataLakePrincipalIdentifier"] == who && canonical(g["Resource"], l.account) == want
		})
		if i < 0 {
			return nil, &smithy.Error{Code: "InvalidInputException", Message: "No permissions revoked. Grantee does not have the permissions on the resource."}
		}
		gone := func(have any, take any) []string {
			var out []string
			for _, p := range have.([]string) {
				if !slices.Contains(take.([]any), any(p)) {
					out = append(out, p)
				}
			}
			return out
		}
		g := l.grants[i]
		g["Permissions"] = gone(g["Permissions"], c.Input["Permissions"])
		if wgo, ok := c.Input["PermissionsWithGrantOption"]; ok {
			g["PermissionsWithGrantOption"] = gone(g["PermissionsWithGrantOption"], wgo)
		}
		if len(g["Permissions"].([]string)) == 0 {
			l.grants = slices.Delete(l.grants, i, i+1)
		}
		l.revoked = append(l.revoked, fmt.Sprint(who, " ", want, " ", c.Input["Permissions"]))
		return nil, nil
	}
	return nil, &smithy.Error{Code: "AccessDenied", Message: "not in this fake", Status: 403}
}

// canonical is a resource as JSON, its catalog filled in.
func canonical(resource any, account string) string {
	var r map[string]map[string]any
	b, _ := json.Marshal(resource)
	_ = json.Unmarshal(b, &r)
	for _, v := range r {
		if v["CatalogId"] == nil {
			v["CatalogId"] = account
		}
	}
	b, _ = json.Marshal(r)
	return string(b)
}

// about says whether a granted resource is what a listing asked about: the
// resource itself, or for a table its columns too.
func about(granted, asked map[string]any, account string) bool {
	if canonical(granted, account) == canonical(asked, account) {
		return true
	}
	t, ok := asked["Table"].(map[string]any)
	cols, ok2 := granted["TableWithColumns"].(map[string]any)
	return ok && ok2 && t["Name"] != nil && t["DatabaseName"] == cols["DatabaseName"] && t["Name"] == cols["Name"]
}
