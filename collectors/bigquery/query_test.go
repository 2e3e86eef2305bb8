package bigquery

import (
	"context"
	"errors"
	"reflect"
	"testing"

	bqclient "cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
)

// everyType is a result of every type a query's cells can hold, as the
// REST API writes them (formatOptions.useInt64Timestamp asked), nulls,
// repeated values and records included.
const everyTypeSchema = `[{"name":"s","type":"STRING"},{"name":"i","type":"INTEGER"},{"name":"f","type":"FLOAT"},
	{"name":"n","type":"NUMERIC"},{"name":"b","type":"BOOLEAN"},{"name":"ts","type":"TIMESTAMP"},{"name":"d","type":"DATE"},
	{"name":"dt","type":"DATETIME"},{"name":"tags","type":"STRING","mode":"REPEATED"},
	{"name":"rec","type":"RECORD","fields":[{"name":"a","type":"INTEGER"},{"name":"z","type":"STRING"}]},
	{"name":"recs","type":"RECORD","mode":"REPEATED","fields":[{"name":"a","type":"INTEGER"},{"name":"z","type":"STRING"}]}]`

const everyTypeRows = `[
	{"f":[{"v":"bf-1"},{"v":"-42"},{"v":"1.5"},{"v":"123.456"},{"v":"true"},{"v":"1767225600123456"},{"v":"2026-01-01"},
	      {"v":"2026-01-01T10:11:12.5"},{"v":[{"v":"a"},{"v":"b"}]},{"v":{"f":[{"v":"7"},{"v":"x"}]}},
	      {"v":[{"v":{"f":[{"v":"1"},{"v":null}]}}]}]},
	{"f":[{"v":null},{"v":null},{"v":null},{"v":null},{"v":null},{"v":null},{"v":null},{"v":null},{"v":[]},{"v":null},{"v":[]}]}]`

// The rows read through the REST client are the rows Google's own
// client (cloud.google.com/go/bigquery, which bfaudit no longer links)
// makes of the same answer: the same Go types and values, cell by cell.
func TestReadTypesCellsAsGooglesClient(t *testing.T) {
	f := newFakeBQ(t)
	f.schema, f.rows = everyTypeSchema, everyTypeRows
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	c.jobs = nil
	if err := c.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	var names []string
	var got [][]any
	err := c.read(context.Background(), query{sql: "SELECT everything"}, func(n []string) { names = n }, func(row []any) error {
		got = append(got, row)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	client, err := bqclient.NewClient(context.Background(), "p-one", option.WithEndpoint(srv.URL+"/bigquery/v2/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	it, err := client.Query("SELECT everything").Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want [][]any
	for {
		var row []bqclient.Value
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		cells := make([]any, len(row))
		for i, v := range row {
			cells[i] = plain(v)
		}
		want = append(want, cells)
	}
	if len(names) != len(it.Schema) || names[0] != "s" || names[10] != "recs" {
		t.Errorf("columns %v; want the schema's %d names", names, len(it.Schema))
	}
	if len(got) != 2 || len(want) != 2 {
		t.Fatalf("rows: got %d, Google's client %d; want 2", len(got), len(want))
	}
	for r := range want {
		for i := range want[r] {
			if !reflect.DeepEqual(got[r][i], want[r][i]) {
				t.Errorf("row %d column %s: got %#v, Google's client %#v", r+1, names[i], got[r][i], want[r][i])
			}
		}
	}
}

// plain turns the client's []bigquery.Value (repeated values, records)
// into []any, as read gives them.
func plain(v bqclient.Value) any {
	l, ok := v.([]bqclient.Value)
	if !ok {
		return v
	}
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = plain(e)
	}
	return out
}
