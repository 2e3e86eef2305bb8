package alertmanager

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// karmaVersions are the Alertmanager releases whose GET /api/v2/silences
// answers karma keeps as its test fixtures (testdata/karma/SOURCE.md):
// real servers, three silences each, created the same way. Before 0.22
// a matcher has no isEqual (every matcher was positive).
var karmaVersions = []string{"0.17.0", "0.18.0", "0.19.0", "0.20.0", "0.21.0", "0.22.0", "0.22.1",
	"0.23.0", "0.24.0", "0.25.0", "0.26.0", "0.27.0", "0.31.0"}

// Real answers of thirteen Alertmanager releases, served as they were
// captured: each silence is read (the unit says so), none names a
// backfill, nothing fails, and the alerts are not asked for.
func TestRealAnswersOfThirteenReleases(t *testing.T) {
	for _, v := range karmaVersions {
		t.Run(v, func(t *testing.T) {
			f := newFakeAM(t)
			f.silences = readFile(t, filepath.Join("testdata", "karma", "silences-"+v+".json"))
			f.set("/api/v2/alerts", status(500)) // asked for only when a backfill silence is live
			sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
			if err != nil || len(sink.Errors) > 0 {
				t.Fatalf("Collect: %v %+v", err, sink.Errors)
			}
			if len(sink.Artifacts) != 0 {
				t.Errorf("silences of instance web1, Host_Down in dev and server7 tied to a backfill: %+v", sink.Artifacts)
			}
			if n, partial := sink.Read(ScopeSilences, readSilences); n != 3 || partial != 0 {
				t.Errorf("%d silences read (%d in part), want 3", n, partial)
			}
		})
	}
}

// The same answers with one comment naming a backfill, as a team writes it
// for a replay: that silence is reported, tied by its comment, with its
// matchers as amtool prints them, whether or not the release says
// isEqual.
func TestRealAnswersWithABackfillComment(t *testing.T) {
	for _, v := range karmaVersions {
		t.Run(v, func(t *testing.T) {
			var list []map[string]any
			if err := json.Unmarshal(readFile(t, filepath.Join("testdata", "karma", "silences-"+v+".json")), &list); err != nil {
				t.Fatal(err)
			}
			id := ""
			for _, s := range list {
				if strings.HasPrefix(s["comment"].(string), "Silenced Host_Down") {
					s["comment"] = "BF-1234 replay: " + s["comment"].(string)
					id = s["id"].(string)
				}
			}
			f := newFakeAM(t)
			f.setSilences(list)
			sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
			if err != nil || len(sink.Errors) > 0 {
				t.Fatalf("Collect: %v %+v", err, sink.Errors)
			}
			a := sink.Artifact("alertmanager://am/silences/" + id)
			if len(sink.Artifacts) != 1 || a == nil {
				t.Fatalf("want the Host_Down silence alone: %+v", sink.Artifacts)
			}
			if a.BackfillID != "BF-1234" || a.Correlation != "comment" || a.State != model.StateActive ||
				a.Attr(model.AttrMatchers) != `{alertname="Host_Down", cluster="dev"}` || a.Attr(model.AttrCreatedBy) != "john@example.com" ||
				!a.ExpiresAt.Time().Equal(time.Date(2063, 1, 1, 0, 0, 0, 0, time.UTC)) || a.Labels.Get("cluster") != "dev" ||
				a.Attr(AttrMutedAlerts) != "0" || a.Attr(model.AttrMutesCritical) != "false" {
				t.Errorf("%+v", a)
			}
			if n, _ := sink.Read(ScopeSilences, readSilences); n != 3 {
				t.Errorf("%d silences read, want 3", n)
			}
		})
	}
}

// The silences unit says how many silences it read, and how many only in
// part: a live backfill silence whose muted alerts could not be listed.
func TestReadsSayWhatWasRead(t *testing.T) {
	f := newFakeAM(t)
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err != nil {
		t.Fatal(err)
	}
	if n, partial := sink.Read(ScopeSilences, readSilences); n != 3 || partial != 0 {
		t.Errorf("%d silences read (%d in part), want 3 (0)", n, partial)
	}
	f.set("/api/v2/alerts", status(500))
	sink, _ = collectortest.Collect(t, newCollector(t, f.URL()))
	// Of the two silences tied to BF-1234, the active one's muted alerts
	// are unknown; the expired one mutes nothing.
	if n, partial := sink.Read(ScopeSilences, readSilences); n != 3 || partial != 1 {
		t.Errorf("%d silences read (%d in part), want 3 (1)", n, partial)
	}
	f.setSilences([]any{map[string]any{"id": "x", "status": map[string]any{"state": "weird"}, "startsAt": "2026-01-01T00:00:00Z",
		"endsAt": "2026-01-02T00:00:00Z", "matchers": []any{map[string]any{"name": "a", "value": "b", "isRegex": false}}}})
	sink, _ = collectortest.Collect(t, newCollector(t, f.URL()))
	if n, _ := sink.Read(ScopeSilences, readSilences); n != 0 || len(sink.Errors) != 1 || len(sink.Reads) != 1 {
		t.Errorf("a silence not understood is an error, not a read: %d read, errors %+v", n, sink.Errors)
	}
}
