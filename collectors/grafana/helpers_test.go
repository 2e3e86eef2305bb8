package grafana

import (
	"strconv"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

func decode(entry map[string]any) (collectors.Instance, error) {
	return collectors.Decode(entry, correlate.MustSelector())
}

func itoa(i int) string { return strconv.Itoa(i) }

type nopSink struct{}

func (nopSink) AddBackfill(model.Backfill)       {}
func (nopSink) AddArtifact(model.Artifact)       {}
func (nopSink) AddRecord(model.DecisionRecord)   {}
func (nopSink) AddEdge(model.Edge)               {}
func (nopSink) AddBuild(model.Build)             {}
func (nopSink) AddError(string, error)           {}
func (nopSink) AddRead(string, string, int, int) {}
