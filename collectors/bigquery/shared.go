package bigquery

import (
	"time"

	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
	bq "google.golang.org/api/bigquery/v2"
)

// The functions below let another collector that reads the same tables
// and ACL entries from elsewhere (cloudasset, from Cloud Asset Inventory)
// build exactly the artifacts this one emits, through the same code, so
// findings and fingerprints do not change when a user switches.

// TableArtifact is the artifact Collect emits for a table, as tables.get
// returns it (with fetch_table_metadata), tied to backfill id by how.
func TableArtifact(project, dataset string, t *bq.Table, id, how, ownerLabel string, now time.Time) model.Artifact {
	c := &Collector{OwnerLabel: ownerLabel, now: func() time.Time { return now }}
	listed := &bq.TableListTables{
		TableReference: t.TableReference, Labels: t.Labels, Type: t.Type,
		CreationTime: t.CreationTime, ExpirationTime: t.ExpirationTime, TimePartitioning: t.TimePartitioning,
	}
	a := c.tableFromList(project, dataset, listed, tie{id, how})
	c.addStats(&a, t)
	return a
}

// ACLGrants are the grants Collect emits for a dataset's ACL entries
// (dataset access policy version 3). datasetID and datasetHow are the
// dataset's own tie ("" when it is not backfill machinery).
func ACLGrants(project, dataset string, access []*bq.DatasetAccess, datasetID, datasetHow string, m iamcond.Matcher, now time.Time) []model.Artifact {
	c := &Collector{now: func() time.Time { return now }}
	var s sliceSink
	c.emitACL(project, dataset, &bq.Dataset{Access: access}, tie{datasetID, datasetHow}, m, &s)
	return s.artifacts
}

// sliceSink keeps the artifacts emitACL hands it.
type sliceSink struct{ artifacts []model.Artifact }

func (s *sliceSink) AddArtifact(a model.Artifact)     { s.artifacts = append(s.artifacts, a) }
func (s *sliceSink) AddBackfill(model.Backfill)       {}
func (s *sliceSink) AddRecord(model.DecisionRecord)   {}
func (s *sliceSink) AddEdge(model.Edge)               {}
func (s *sliceSink) AddBuild(model.Build)             {}
func (s *sliceSink) AddError(string, error)           {}
func (s *sliceSink) AddRead(string, string, int, int) {}
