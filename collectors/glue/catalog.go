package glue

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsglue "github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/awssource"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a table, beside model.AttrRows and model.AttrBytes.
const (
	AttrDatabase       = "database"       // the Glue database holding the table
	AttrLocation       = "location"       // where its data lives (s3://bucket/tmp/bf-1234/)
	AttrTableType      = "table_type"     // EXTERNAL_TABLE, VIRTUAL_VIEW, GOVERNED...
	AttrClassification = "classification" // the data format a crawler or Athena recorded (parquet, csv)
	AttrExternal       = "external"       // "true" when dropping the table leaves its data in place
	AttrProjection     = "projection"     // "true" when Athena projects its partitions (projection.enabled)
	AttrVersionID      = "version_id"     // the table version the audit read
	AttrTargetTable    = "target_table"   // the table a resource link points to (account:database.table)
	AttrTableARN       = "table_arn"
)

// maxResults is the largest page GetDatabases and GetTables answer.
const maxResults = 100

// maxTagReads bounds the GetTags calls of one unit: tags are read only
// for the tables kept, and beyond this many they are reported without
// (counted as read in part).
const maxTagReads = 1000

// service is Glue's name in an error about an answer that is not its: it
// always answers with its list, an empty catalog with an empty one.
const service = "Glue"

// tie is a backfill id and how it was found (docs/correlation.md).
type tie struct{ id, how string }

// catalogRead is the read of one unit: one account's catalog in one region.
type catalogRead struct {
	c         *Collector
	place     awsconf.Place
	unit      string
	sink      collectors.Sink
	client    *awsglue.Client
	tagBudget int

	// What the catalog tied, for the Lake Formation permissions on it,
	// and the databases whose tables did not read (which of their tables
	// a backfill's is not known).
	tableTies    map[tableKey]tie
	databaseTies map[string]tie
	unread       map[string]bool
}

// tableKey is a table of the unit's catalog: its database and name.
type tableKey struct{ database, table string }

func (r *catalogRead) read(ctx context.Context) error {
	dbs, err := r.databases(ctx)
	if err != nil {
		return fmt.Errorf("glue: %s: list databases: %w", r.place, err)
	}
	r.sink.AddRead(r.unit, "databases", len(dbs), 0)
	for _, db := range dbs {
		if err := r.database(ctx, db); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.sink.AddError(r.scope(aws.ToString(db.Name)), err)
		}
	}
	return ctx.Err()
}

func (r *catalogRead) scope(database string) string {
	return model.JoinScope(r.place.Account, r.place.Region, database)
}

// databases lists the unit's databases, each once. A resource link to
// another account's database is left out: its tables are read in the
// account that holds them.
func (r *catalogRead) databases(ctx context.Context) ([]gluetypes.Database, error) {
	pager := awsglue.NewGetDatabasesPaginator(r.client, &awsglue.GetDatabasesInput{MaxResults: aws.Int32(maxResults)})
	out, err := awsconf.List(ctx, r.c.Timeout, pager.HasMorePages,
		func(ctx context.Context) (*awsglue.GetDatabasesOutput, error) { return pager.NextPage(ctx) },
		awsconf.Listing[*awsglue.GetDatabasesOutput, gluetypes.Database]{Service: service,
			Items: func(p *awsglue.GetDatabasesOutput) []gluetypes.Database { return p.DatabaseList },
			Key:   func(db gluetypes.Database) string { return aws.ToString(db.Name) }})
	return slices.DeleteFunc(out, func(db gluetypes.Database) bool { return db.TargetDatabase != nil }), err
}

// database reads one database's tables and reports those tied to a
// backfill; its error is the database's.
func (r *catalogRead) database(ctx context.Context, db gluetypes.Database) error {
	name := aws.ToString(db.Name)
	dbTie := r.databaseTie(db)
	if dbTie.id != "" {
		r.databaseTies[name] = dbTie
	}
	tables, err := r.tables(ctx, name)
	if err != nil {
		r.unread[name] = true
		return fmt.Errorf("glue: %s: tables of database %s: %w", r.place, name, err)
	}
	partial := 0
	for _, t := range tables {
		tt, ok := r.tableTie(t, dbTie)
		if !ok {
			continue
		}
		a := r.artifact(t, tt)
		if !r.readTags(ctx, &a) {
			partial++
		}
		r.tableTies[tableKey{name, aws.ToString(t.Name)}] = tie{a.BackfillID, a.Correlation}
		r.sink.AddArtifact(a)
	}
	r.sink.AddRead(r.scope(name), "tables", len(tables), partial)
	return ctx.Err()
}

// tables lists a database's tables, each once.
func (r *catalogRead) tables(ctx context.Context, database string) ([]gluetypes.Table, error) {
	pager := awsglue.NewGetTablesPaginator(r.client, &awsglue.GetTablesInput{DatabaseName: aws.String(database), MaxResults: aws.Int32(maxResults)})
	return awsconf.List(ctx, r.c.Timeout, pager.HasMorePages,
		func(ctx context.Context) (*awsglue.GetTablesOutput, error) { return pager.NextPage(ctx) },
		awsconf.Listing[*awsglue.GetTablesOutput, gluetypes.Table]{Service: service,
			Items: func(p *awsglue.GetTablesOutput) []gluetypes.Table { return p.TableList },
			Key:   func(t gluetypes.Table) string { return aws.ToString(t.Name) }})
}

// databaseTie is what a database says of the backfill its tables belong
// to: a backfill_id parameter, its name (scratch_bf_1234), or its
// location (s3://bucket/tmp/bf-1234/). Its tables are tied by it as by
// the folder they live in.
func (r *catalogRead) databaseTie(db gluetypes.Database) tie {
	sel := r.c.Env.Selector
	if id, ok := sel.FromLabels(db.Parameters); ok {
		return tie{id, "folder"}
	}
	if id, ok := sel.FromName(aws.ToString(db.Name)); ok {
		return tie{id, "folder"}
	}
	if id, ok := sel.FromText(aws.ToString(db.LocationUri)); ok {
		return tie{id, "folder"}
	}
	return tie{}
}

// tableTie says which backfill a table belongs to, in the order of
// docs/correlation.md: a backfill_id table property (Athena's
// TBLPROPERTIES), a plan's asset, its name (refunds_bf_1234_tmp), its
// database, its location, its description. Its tags, read only for the
// tables kept, come first when they carry an id (readTags).
func (r *catalogRead) tableTie(t gluetypes.Table, db tie) (tie, bool) {
	sel := r.c.Env.Selector
	uri := TableURI(r.c.Source(), r.place.Account, r.place.Region, aws.ToString(t.DatabaseName), aws.ToString(t.Name))
	if id, how, ok := sel.Match(uri, aws.ToString(t.Name), t.Parameters); ok {
		return tie{id, how}, true
	}
	if db.id != "" {
		return db, true
	}
	if sd := t.StorageDescriptor; sd != nil {
		if id, ok := sel.FromText(aws.ToString(sd.Location)); ok {
			return tie{id, "path"}, true
		}
	}
	if id, ok := sel.FromText(aws.ToString(t.Description)); ok {
		return tie{id, "description"}, true
	}
	return tie{}, false
}

// artifact is a kept table as BF005 reads a temporary table: when it was
// made, changed and last read, its rows and bytes where the catalog
// records them, where its data lives. Glue sets no expiration on a table.
func (r *catalogRead) artifact(t gluetypes.Table, tt tie) model.Artifact {
	db, name := aws.ToString(t.DatabaseName), aws.ToString(t.Name)
	a := model.Artifact{
		Kind: model.KindTable, Scope: r.scope(db), URI: TableURI(r.c.Source(), r.place.Account, r.place.Region, db, name),
		Name: db + "." + name, BackfillID: tt.id, Correlation: tt.how, State: model.StateActive,
		CreatedAt: model.At(utc(t.CreateTime)), ModifiedAt: model.At(utc(t.UpdateTime)), LastUsedAt: model.At(utc(t.LastAccessTime)),
	}
	a.SetAttr(AttrDatabase, db)
	a.SetAttr(AttrTableARN, tableARN(r.place.Region, r.place.Account, db, name))
	if v := aws.ToString(t.TableType); v != "" {
		a.SetAttr(AttrTableType, v)
	}
	if sd := t.StorageDescriptor; sd != nil && aws.ToString(sd.Location) != "" {
		a.SetAttr(AttrLocation, aws.ToString(sd.Location))
	}
	p := t.Parameters
	if v := p["classification"]; v != "" {
		a.SetAttr(AttrClassification, v)
	}
	a.SetAttr(AttrExternal, strconv.FormatBool(strings.EqualFold(p["EXTERNAL"], "true") || aws.ToString(t.TableType) == "EXTERNAL_TABLE"))
	if strings.EqualFold(p["projection.enabled"], "true") {
		a.SetAttr(AttrProjection, "true")
	}
	// Hive and Spark write numRows and totalSize, Glue's crawlers
	// recordCount and sizeKey: either, where it is a count.
	if n, ok := count(p, "numRows", "recordCount"); ok {
		a.SetAttr(model.AttrRows, n)
	}
	if n, ok := count(p, "totalSize", "sizeKey"); ok {
		a.SetAttr(model.AttrBytes, n)
	}
	if v := aws.ToString(t.VersionId); v != "" {
		a.SetAttr(AttrVersionID, v)
	}
	if v := aws.ToString(t.CreatedBy); v != "" {
		a.SetAttr(model.AttrCreatedBy, v)
	}
	if tt := t.TargetTable; tt != nil {
		a.SetAttr(AttrTargetTable, aws.ToString(tt.CatalogId)+":"+aws.ToString(tt.DatabaseName)+"."+aws.ToString(tt.Name))
	}
	// A keep label in the table properties (free text, unlike a tag's)
	// or a keep line in the description; a tag wins (readTags).
	a.SetKeep(p[model.KeepUntilKey], p[model.KeepReasonKey], "")
	a.KeepFromText(aws.ToString(t.Description))
	return a
}

// readTags reads a kept table's tags (GetTags on its ARN): a backfill id
// tag ties it first, an owner tag names its owner, keep tags waive it.
// false when they were not read (the unit's budget spent, or the call
// failed: an error at the table's database, whose tables may then be
// tied otherwise than the tags say).
func (r *catalogRead) readTags(ctx context.Context, a *model.Artifact) bool {
	if r.tagBudget == 0 {
		return false
	}
	r.tagBudget--
	arn := a.Attr(AttrTableARN)
	out, err := awsconf.Call(ctx, r.c.Timeout, func(ctx context.Context) (*awsglue.GetTagsOutput, error) {
		return r.client.GetTags(ctx, &awsglue.GetTagsInput{ResourceArn: aws.String(arn)})
	})
	if err != nil {
		if ctx.Err() == nil {
			r.sink.AddError(a.Scope, fmt.Errorf("glue: %s: tags of table %s: %w", r.place, a.Name, err))
		}
		return false
	}
	if len(out.Tags) == 0 {
		return true
	}
	a.Labels = model.TagsOf(maps.Clone(out.Tags))
	if id, ok := r.c.Env.Selector.FromLabels(out.Tags); ok {
		a.BackfillID, a.Correlation = id, "label"
	}
	a.Owner = awssource.OwnerTag(out.Tags)
	a.SetKeep(out.Tags[model.KeepUntilKey], out.Tags[model.KeepReasonKey], "")
	return true
}

// count is the first of keys in p that holds a non-negative integer.
func count(p map[string]string, keys ...string) (string, bool) {
	for _, k := range keys {
		if n, err := strconv.ParseInt(strings.TrimSpace(p[k]), 10, 64); err == nil && n >= 0 {
			return strconv.FormatInt(n, 10), true
		}
	}
	return "", false
}

func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
