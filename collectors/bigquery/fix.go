package bigquery

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// bqSystem acts on BigQuery tables and dataset ACLs with the REST client
// the collector lists them with (google.golang.org/api/bigquery/v2), read
// and write scope, Application Default Credentials, the source's endpoint.
type bqSystem struct {
	src      *Collector
	endpoint []option.ClientOption

	once sync.Once
	svc  *bq.Service
	err  error
}

// newBigQuery acts with the source's endpoint and the client options it
// was given (a test's); it builds its own read-write client when first
// used.
func newBigQuery(c *Collector) (*bqSystem, error) {
	endpoint, err := c.endpointOptions()
	if err != nil {
		return nil, err
	}
	return &bqSystem{src: c, endpoint: endpoint}, nil
}

func (s *bqSystem) service(ctx context.Context) (*bq.Service, error) {
	s.once.Do(func() {
		ctx := context.WithoutCancel(ctx)
		hc, err := s.src.httpClient(ctx, bq.BigqueryScope)
		if err != nil {
			s.err = fmt.Errorf("bigquery: REST client (Application Default Credentials): %w", err)
			return
		}
		s.svc, s.err = bq.NewService(ctx, append(s.endpoint, hc)...)
	})
	return s.svc, s.err
}

func (s *bqSystem) object(a *model.Artifact) (BQTable, error) {
	t, ok := ParseBigQuery(a)
	if !ok {
		return t, fmt.Errorf("bigquery: %s is not an artifact bfaudit can act on", a.URI)
	}
	return t, nil
}

func notFound(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusNotFound
}

// aclIndex finds the dataset access entry of the member with the role.
func aclIndex(ds *bq.Dataset, t BQTable) int {
	field, who := t.ACLField()
	for i, e := range ds.Access {
		if e.Role != t.Role {
			continue
		}
		var v string
		switch field {
		case "userByEmail":
			v = e.UserByEmail
		case "groupByEmail":
			v = e.GroupByEmail
		case "domain":
			v = e.Domain
		case "specialGroup":
			v = e.SpecialGroup
		default:
			v = e.IamMember
		}
		if strings.EqualFold(v, who) {
			return i
		}
	}
	return -1
}

func (s *bqSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	t, err := s.object(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	svc, err := s.service(ctx)
	if err != nil {
		return remedy.Observed{}, err
	}
	if t.ACL {
		ds, err := svc.Datasets.Get(t.Project, t.Dataset).Context(ctx).Do()
		if notFound(err) {
			return remedy.Observed{}, nil
		}
		if err != nil {
			return remedy.Observed{}, fmt.Errorf("bigquery: get dataset %s: %w", t.DatasetSpec(), err)
		}
		if aclIndex(ds, t) < 0 {
			return remedy.Observed{}, nil
		}
		return remedy.Observed{Found: true, State: map[string]string{"etag": ds.Etag}}, nil
	}
	tbl, err := svc.Tables.Get(t.Project, t.Dataset, t.Table).Context(ctx).Do()
	if notFound(err) {
		return remedy.Observed{}, nil
	}
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("bigquery: get table %s: %w", t.Spec(), err)
	}
	st := map[string]string{"expires": millisText(tbl.ExpirationTime), "modified": millisText(int64(tbl.LastModifiedTime))}
	return remedy.Observed{Found: true, State: st}, nil
}

// Expected: a table expiring when it did (an expiration set since means
// someone decided), and, when the audit read it, not modified since.
func (s *bqSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	if t, ok := ParseBigQuery(a); ok && t.ACL {
		return map[string]string{}
	}
	out := map[string]string{"expires": timeText(a.ExpiresAt.Time())}
	if !a.ModifiedAt.IsZero() {
		out["modified"] = timeText(a.ModifiedAt.Time())
	}
	return out
}

// Act deletes the table, or removes the access entry from the dataset
// with a patch conditioned on the etag read, so a change made in between
// fails the patch instead of being overwritten.
func (s *bqSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	t, err := s.object(a)
	if err != nil {
		return err
	}
	svc, err := s.service(ctx)
	if err != nil {
		return err
	}
	switch {
	case !t.ACL && act.Name == remedy.DropTable:
		err = svc.Tables.Delete(t.Project, t.Dataset, t.Table).Context(ctx).Do()
		if notFound(err) {
			return nil
		}
	case t.ACL && act.Name == remedy.RevokeGrant:
		ds, gerr := svc.Datasets.Get(t.Project, t.Dataset).Context(ctx).Do()
		if gerr != nil {
			return fmt.Errorf("bigquery: get dataset %s: %w", t.DatasetSpec(), gerr)
		}
		i := aclIndex(ds, t)
		if i < 0 {
			return nil
		}
		access := append(append([]*bq.DatasetAccess{}, ds.Access[:i]...), ds.Access[i+1:]...)
		call := svc.Datasets.Patch(t.Project, t.Dataset, &bq.Dataset{Access: access, ForceSendFields: []string{"Access"}})
		call.Header().Set("If-Match", ds.Etag)
		_, err = call.Context(ctx).Do()
	default:
		return fmt.Errorf("bigquery: no %s for %s", act.Name, a.URI)
	}
	if err != nil {
		return fmt.Errorf("bigquery: %s %s: %w", act.Name, a.URI, err)
	}
	return nil
}

func millisText(ms int64) string {
	if ms == 0 {
		return ""
	}
	return timeText(time.UnixMilli(ms))
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
