package airflow

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// airflowSystem acts on DAGs through the stable REST API the collector
// reads (/api/v1 on Airflow 2, /api/v2 on Airflow 3), with the source's
// own client: its HTTP client, credentials and token.
type airflowSystem struct {
	c *Airflow

	mu  sync.Mutex
	api *httpAPI // once the version is known
}

func newAirflow(c *Airflow) *airflowSystem { return &airflowSystem{c: c} }

// client is the source's API client, the version detected on first use
// as the collector detects it.
func (s *airflowSystem) client(ctx context.Context) (*httpAPI, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.api == nil {
		version := s.c.APIVersion
		if version == versionAuto || version == "" {
			v, err := detectVersion(ctx, s.c)
			if err != nil {
				return nil, fmt.Errorf("airflow: %w", err)
			}
			version = v
		}
		s.api = newHTTPAPI(s.c, version)
	}
	return s.api, nil
}

func (s *airflowSystem) call(ctx context.Context, method, dag string, query url.Values, body []byte) (*http.Response, error) {
	api, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return api.send(ctx, method, "/dags/"+url.PathEscape(dag), query, body)
}

func (s *airflowSystem) dag(a *model.Artifact) (string, error) {
	dag, ok := ParseAirflowDAG(a)
	if !ok {
		return "", fmt.Errorf("airflow: %s is not a DAG bfaudit can act on", a.URI)
	}
	return dag, nil
}

func (s *airflowSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	dag, err := s.dag(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	resp, err := s.call(ctx, http.MethodGet, dag, nil, nil)
	if remote.IsStatus(err, http.StatusNotFound) {
		return remedy.Observed{}, nil
	}
	if err != nil {
		return remedy.Observed{}, fmt.Errorf("airflow: %w", err)
	}
	defer resp.Body.Close()
	var d struct {
		DagID    string `json:"dag_id"`
		IsPaused *bool  `json:"is_paused"`
	}
	if err := remote.DecodeJSON(resp.Body, remote.MaxObjectAnswer, &d); err != nil || d.DagID != dag || d.IsPaused == nil {
		return remedy.Observed{}, fmt.Errorf("airflow: GET dags/%s: the answer is not that DAG", dag)
	}
	return remedy.Observed{Found: true, State: map[string]string{AttrPaused: strconv.FormatBool(*d.IsPaused)}}, nil
}

// Expected: paused or not as the audit saw it.
func (s *airflowSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return remedy.Saw(a, AttrPaused)
}

// Act pauses the DAG (PATCH is_paused) or deletes it with its runs.
func (s *airflowSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	dag, err := s.dag(a)
	if err != nil {
		return err
	}
	var resp *http.Response
	switch act.Name {
	case remedy.PauseJob:
		resp, err = s.call(ctx, http.MethodPatch, dag, url.Values{"update_mask": {"is_paused"}}, []byte(`{"is_paused": true}`))
	case remedy.DeleteJob:
		resp, err = s.call(ctx, http.MethodDelete, dag, nil, nil)
		if remote.IsStatus(err, http.StatusNotFound) {
			return nil
		}
	default:
		return fmt.Errorf("airflow: no %s", act.Name)
	}
	if err != nil {
		return fmt.Errorf("airflow: %s %s: %w", act.Name, dag, err)
	}
	resp.Body.Close()
	return nil
}
