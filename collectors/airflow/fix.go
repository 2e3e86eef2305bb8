package airflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// airflowSystem acts on DAGs through the stable REST API the collector
// reads (/api/v1 on Airflow 2, /api/v2 on Airflow 3), with its HTTP client
// and credentials: basic auth on v1, a bearer token on v2 (token_env, or
// minted from username and password at /auth/token).
type airflowSystem struct {
	base       string
	version    string // "1", "2" or "" to detect
	user, pass string
	token      string
	client     *http.Client
	retry      remote.RetryPolicy

	mu sync.Mutex
}

func newAirflow(c *Airflow) *airflowSystem {
	s := &airflowSystem{base: strings.TrimSuffix(c.URL, "/"), user: c.Username, client: c.HTTPClient, retry: c.Retry}
	switch c.APIVersion {
	case "1", "2":
		s.version = c.APIVersion
	}
	if c.PasswordEnv != "" {
		s.pass = os.Getenv(c.PasswordEnv)
	}
	if c.TokenEnv != "" {
		s.token = os.Getenv(c.TokenEnv)
	}
	return s
}

// prefix detects the API version once: Airflow 3 answers /api/v2/version.
func (s *airflowSystem) prefix(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version == "" {
		resp, err := remote.DoHTTP(ctx, s.client, s.retry, func() (*http.Request, error) {
			return http.NewRequest(http.MethodGet, s.base+"/api/v2/version", nil)
		})
		switch {
		case err == nil:
			resp.Body.Close()
			s.version = "2"
		case remote.IsStatus(err, http.StatusNotFound):
			s.version = "1"
		default:
			return "", fmt.Errorf("airflow: detect API version: %w", err)
		}
	}
	return "/api/v" + s.version, nil
}

func (s *airflowSystem) auth(ctx context.Context, req *http.Request) error {
	switch {
	case s.token != "":
		req.Header.Set("Authorization", "Bearer "+s.token)
	case s.pass == "":
	case s.version == "1":
		req.SetBasicAuth(s.user, s.pass)
	default:
		body, _ := json.Marshal(map[string]string{"username": s.user, "password": s.pass})
		resp, err := remote.DoHTTP(ctx, s.client, s.retry, func() (*http.Request, error) {
			r, err := http.NewRequest(http.MethodPost, s.base+"/auth/token", bytes.NewReader(body))
			if err == nil {
				r.Header.Set("Content-Type", "application/json")
			}
			return r, err
		})
		if err != nil {
			return fmt.Errorf("airflow: get a token: %w", err)
		}
		defer resp.Body.Close()
		var tr struct {
			AccessToken string `json:"access_token"`
		}
		if err := remote.DecodeJSON(resp.Body, remote.MaxObjectAnswer, &tr); err != nil || tr.AccessToken == "" {
			return errors.New("airflow: get a token: POST /auth/token answered without an access_token")
		}
		s.token = tr.AccessToken
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	return nil
}

func (s *airflowSystem) call(ctx context.Context, method, dag string, query url.Values, body []byte) (*http.Response, error) {
	prefix, err := s.prefix(ctx)
	if err != nil {
		return nil, err
	}
	target := s.base + prefix + "/dags/" + url.PathEscape(dag)
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	probe, _ := http.NewRequest(method, target, nil)
	if err := s.auth(ctx, probe); err != nil {
		return nil, err
	}
	authz := probe.Header.Get("Authorization")
	return remote.DoHTTP(ctx, s.client, s.retry, func() (*http.Request, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequest(method, target, rd)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		return req, nil
	})
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
