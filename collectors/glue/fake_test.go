package glue

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

type accountSetting = awsconf.Account

// fakeCatalog is one account's Data Catalog in one region, answering as
// Glue does: pages of at most pageSize, NextToken, EntityNotFound.
type fakeCatalog struct {
	mu       sync.Mutex
	dbs      []map[string]any
	tables   map[string][]map[string]any  // by database
	tags     map[string]map[string]string // by table ARN
	failing  map[string]bool              // databases whose GetTables fails
	deleted  []string
	tagCalls int
}

const pageSize = 2

func newCatalog() *fakeCatalog {
	return &fakeCatalog{tables: map[string][]map[string]any{}, tags: map[string]map[string]string{}, failing: map[string]bool{}}
}

func (f *fakeCatalog) addDatabase(db map[string]any, tables ...map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dbs = append(f.dbs, db)
	name := db["Name"].(string)
	for _, t := range tables {
		t["DatabaseName"] = name
		f.tables[name] = append(f.tables[name], t)
	}
}

// page answers items from NextToken on, at most pageSize of them.
func page(items []map[string]any, c smithy.Call, key string) map[string]any {
	from, _ := strconv.Atoi(fmt.Sprint(c.Input["NextToken"]))
	to := min(from+pageSize, len(items))
	out := map[string]any{key: append([]map[string]any{}, items[from:to]...)}
	if to < len(items) {
		out["NextToken"] = strconv.Itoa(to)
	}
	return out
}

func (f *fakeCatalog) handle(c smithy.Call) (map[string]any, *smithy.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	notFound := &smithy.Error{Code: "EntityNotFoundException", Message: "Entity Not Found"}
	switch c.Operation {
	case "GetDatabases":
		return page(f.dbs, c, "DatabaseList"), nil
	case "GetTables":
		db := c.Input["DatabaseName"].(string)
		if f.failing[db] {
			return nil, &smithy.Error{Code: "InternalServiceException", Message: "Internal service error", Status: 500}
		}
		return page(f.tables[db], c, "TableList"), nil
	case "GetTags":
		f.tagCalls++
		return map[string]any{"Tags": f.tags[c.Input["ResourceArn"].(string)]}, nil
	case "GetTable":
		if t := f.find(c); t != nil {
			return map[string]any{"Table": t}, nil
		}
		return nil, notFound
	case "DeleteTable":
		t := f.find(c)
		if t == nil {
			return nil, notFound
		}
		db := c.Input["DatabaseName"].(string)
		f.tables[db] = slices.DeleteFunc(f.tables[db], func(x map[string]any) bool { return x["Name"] == t["Name"] })
		f.deleted = append(f.deleted, db+"."+t["Name"].(string))
		return nil, nil
	}
	return nil, &smithy.Error{Code: "AccessDeniedException", Message: "not in this fake", Status: 403}
}

func (f *fakeCatalog) find(c smithy.Call) map[string]any {
	for _, t := range f.tables[c.Input["DatabaseName"].(string)] {
		if t["Name"] == c.Input["Name"] {
			return t
		}
	}
	return nil
}

// fakeGlue is AWS with a catalog and a Lake Formation in each account
// and region it has.
type fakeGlue struct {
	*smithy.Places
	mu       sync.Mutex
	catalogs map[string]*fakeCatalog // by account/region
	lakes    map[string]*fakeLake    // by account/region
}

func newFakeGlue(t *testing.T) *fakeGlue {
	f := &fakeGlue{catalogs: map[string]*fakeCatalog{}, lakes: map[string]*fakeLake{}}
	f.Places = smithy.NewPlaces(t, smithy.AWS(t, "glue"), func(account, region string) smithy.Handler {
		return f.catalog(account, region).handle
	})
	f.Also(smithy.AWS(t, "lakeformation"), func(account, region string) smithy.Handler {
		return f.lake(account, region).handle
	})
	return f
}

func (f *fakeGlue) catalog(account, region string) *fakeCatalog {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := account + "/" + region
	if f.catalogs[k] == nil {
		f.catalogs[k] = newCatalog()
	}
	return f.catalogs[k]
}

// lake is the account's Lake Formation in the region: the principal the
// source reads as (the role it assumes, or else the caller's identity) is
// a read-only administrator there, as the docs ask.
func (f *fakeGlue) lake(account, region string) *fakeLake {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := account + "/" + region
	if f.lakes[k] == nil {
		readers := []string{"arn:aws:iam::" + account + ":role/" + auditRole}
		if account == smithy.CallerAccount {
			readers = append(readers, "arn:aws:iam::"+account+":user/auditor") // what the fake's GetCallerIdentity answers
		}
		f.lakes[k] = &fakeLake{account: account, readOnly: readers}
	}
	return f.lakes[k]
}

var (
	created = time.Date(2026, 1, 6, 9, 0, 0, 0, time.UTC)
	updated = time.Date(2026, 1, 9, 17, 30, 0, 0, time.UTC)
)

// table is a table entry as GetTables answers it.
func table(name, location string, params map[string]string) map[string]any {
	t := map[string]any{"Name": name, "CreateTime": created, "UpdateTime": updated, "TableType": "EXTERNAL_TABLE",
		"VersionId": "3", "Parameters": params, "Owner": "hadoop", "CreatedBy": "arn:aws:sts::111111111111:assumed-role/replay/bf"}
	if location != "" {
		t["StorageDescriptor"] = map[string]any{"Location": location,
			"Columns": []any{map[string]any{"Name": "refund_id", "Type": "string"}}}
	}
	return t
}

// estate is BF-1234's catalog after its replay, and what is not its:
// in the caller's account, a scratch table tied by name with its tags, a
// table tied by its location, one by its table properties, a scratch
// database whose tables are tied through it, production tables, a bf16
// table that is no backfill's, a table tagged for a backfill but named
// for none (not read: tags are read only for tables kept), a resource
// link to another account's database, and a database whose tables fail;
// in roleAccount, reached through its role, one more scratch table.
func estate(t *testing.T) *fakeGlue {
	f := newFakeGlue(t)
	c := f.catalog(baseAccount, mainRegion)
	c.addDatabase(map[string]any{"Name": "analytics", "LocationUri": "s3://acme-lake/analytics/"},
		table("refunds_bf_1234_tmp", "s3://acme-athena/tmp/bf-1234/refunds/", map[string]string{
			"EXTERNAL": "TRUE", "classification": "parquet", "numRows": "1200", "totalSize": "4096",
			"projection.enabled": "true", "projection.dt.type": "date"}),
		table("orders", "s3://acme-lake/orders/", map[string]string{"classification": "parquet"}),
		table("replay_output", "s3://acme-lake/tmp/bf-1234/out/", map[string]string{"recordCount": "77", "sizeKey": "1024"}),
		table("ledger_fix", "s3://acme-lake/ledger_fix/", map[string]string{"backfill_id": "BF-2001", "bfaudit-keep-until": "2026-12-31",
			"bfaudit-keep-reason": "finance reads it until the audit closes"}),
		table("llama_bf16_weights", "s3://acme-ml/bf16/", nil),
		table("tagged_only", "s3://acme-lake/tagged/", nil),
	)
	c.tags["arn:aws:glue:eu-west-1:111111111111:table/analytics/refunds_bf_1234_tmp"] = map[string]string{"owner": "data-eng", "backfill_id": "bf-1234"}
	c.tags["arn:aws:glue:eu-west-1:111111111111:table/analytics/tagged_only"] = map[string]string{"backfill_id": "bf-1234"}
	c.addDatabase(map[string]any{"Name": "scratch_bf_1234"}, table("refunds_stage", "s3://acme-athena/scratch/refunds_stage/", nil))
	c.addDatabase(map[string]any{"Name": "shared_bf_9999", "TargetDatabase": map[string]any{"CatalogId": "999999999999", "DatabaseName": "bf_9999"}})
	c.addDatabase(map[string]any{"Name": "broken"}, table("bf_1234_lost", "", nil))
	c.failing["broken"] = true
	f.catalog(roleAccount, mainRegion).addDatabase(map[string]any{"Name": "finance"},
		table("bf_1234_refunds", "s3://acme-finance/tmp/bf_1234/", map[string]string{"EXTERNAL": "TRUE"}))
	lakeEstate(f)
	return f
}

// Principals of the Lake Formation estate.
const (
	replayRole = "arn:aws:iam::111111111111:role/bf-1234-replay"
	analyst    = "arn:aws:iam::111111111111:role/analyst"
	loader     = "arn:aws:iam::111111111111:user/backfill/bf-1234/loader"
	etl        = "arn:aws:iam::111111111111:role/etl"
)

// lakeEstate is the Lake Formation permissions BF-1234's replay left, and
// others': its role's on a production table (in two entries), on the
// catalog (not a resource bfaudit reports), the analyst's on its scratch
// table's columns, on every table of its scratch database and on its
// data location, the ETL role's on the scratch database with the grant
// option, a loader user under /backfill/bf-1234/ on a production
// location; none of the analyst's on a production table, nor the
// IAM_ALLOWED_PRINCIPALS default, nor anything of the broken database's
// (Lake Formation answers for it though Glue did not); in roleAccount,
// the role's own grant there.
func lakeEstate(f *fakeGlue) {
	l := f.lake(baseAccount, mainRegion)
	l.grant(replayRole, onTbl("analytics", "orders"), []string{"INSERT", "SELECT"})
	l.grant(replayRole, map[string]any{"Catalog": map[string]any{}}, []string{"CREATE_DATABASE"})
	l.grant(analyst, onCols("analytics", "refunds_bf_1234_tmp", map[string]any{}), []string{"SELECT"})
	l.grant(analyst, onTbl("analytics", "orders"), []string{"SELECT"})
	l.grant("IAM_ALLOWED_PRINCIPALS", onDB("scratch_bf_1234"), []string{"ALL"})
	l.grant(etl, onDB("scratch_bf_1234"), []string{"CREATE_TABLE"}, "CREATE_TABLE")
	l.grant(analyst, onEveryTable("scratch_bf_1234"), []string{"DESCRIBE"})
	l.grant(analyst, onLoc("arn:aws:s3:::acme-athena/tmp/bf-1234/"), []string{"DATA_LOCATION_ACCESS"})
	l.grant(loader, onLoc("arn:aws:s3:::acme-lake/orders/"), []string{"DATA_LOCATION_ACCESS"})
	l.grant(analyst, onTbl("broken", "bf_1234_lost"), []string{"SELECT"})
	l.grant(replayRole, onTbl("analytics", "orders"), []string{"ALTER", "DROP", "SELECT"})
	f.lake(roleAccount, mainRegion).grant("arn:aws:iam::222222222222:role/bf-1234-replay", onCols("finance", "bf_1234_refunds", nil, "refund_id", "amount"), []string{"SELECT"})
}
