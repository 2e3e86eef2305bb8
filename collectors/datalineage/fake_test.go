package datalineage

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// fakeLineage implements the generated lineagepb.LineageServer: the
// official service's methods, messages and status codes, served over a
// real gRPC listener, so the official client is what is tested.
type fakeLineage struct {
	lineagepb.UnimplementedLineageServer
	mu sync.Mutex
	// links: parent (projects/p/locations/l) -> every link there.
	links map[string][]*lineagepb.Link
	// processLinks: process name -> the link names it made.
	processLinks map[string][]string
	processes    map[string]*lineagepb.Process
	runs         map[string][]*lineagepb.Run // process -> runs, newest start first
	// fail: parent or process -> the status every call about it answers.
	fail map[string]codes.Code
	// stall: parent whose calls never answer (until the call's deadline).
	stall map[string]bool
	// stuck: parent whose SearchLinks answers the same page token forever.
	stuck    map[string]bool
	pageSize int

	searches []*lineagepb.SearchLinksRequest
	batches  []*lineagepb.BatchSearchLinkProcessesRequest
	runCalls []string
}

func newFake() *fakeLineage {
	return &fakeLineage{links: map[string][]*lineagepb.Link{}, processLinks: map[string][]string{},
		processes: map[string]*lineagepb.Process{}, runs: map[string][]*lineagepb.Run{},
		fail: map[string]codes.Code{}, stall: map[string]bool{}, stuck: map[string]bool{}, pageSize: 2}
}

func (f *fakeLineage) problem(ctx context.Context, key string) error {
	f.mu.Lock()
	code, stall := f.fail[key], f.stall[key]
	f.mu.Unlock()
	if stall {
		<-ctx.Done()
		return status.Error(codes.DeadlineExceeded, "stalled")
	}
	if code != codes.OK {
		return status.Errorf(code, "test fake: %s refused", key)
	}
	return nil
}

// page cuts items by the request's token into pages of f.pageSize.
func page[T any](f *fakeLineage, items []T, token string) ([]T, string, error) {
	start := 0
	if token != "" {
		n, err := strconv.Atoi(token)
		if err != nil || n > len(items) {
			return nil, "", status.Errorf(codes.InvalidArgument, "invalid page token %q", token)
		}
		start = n
	}
	end := min(start+f.pageSize, len(items))
	next := ""
	if end < len(items) {
		next = strconv.Itoa(end)
	}
	return items[start:end], next, nil
}

func (f *fakeLineage) SearchLinks(ctx context.Context, req *lineagepb.SearchLinksRequest) (*lineagepb.SearchLinksResponse, error) {
	f.mu.Lock()
	f.searches = append(f.searches, req)
	f.mu.Unlock()
	if err := f.problem(ctx, req.GetParent()); err != nil {
		return nil, err
	}
	src := req.GetSource().GetFullyQualifiedName()
	if src == "" {
		return nil, status.Error(codes.InvalidArgument, "source or target is required")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stuck[req.GetParent()] {
		return &lineagepb.SearchLinksResponse{Links: f.links[req.GetParent()][:1], NextPageToken: "again"}, nil
	}
	var match []*lineagepb.Link
	for _, l := range f.links[req.GetParent()] {
		if l.GetSource().GetFullyQualifiedName() == src {
			match = append(match, l)
		}
	}
	links, next, err := page(f, match, req.GetPageToken())
	return &lineagepb.SearchLinksResponse{Links: links, NextPageToken: next}, err
}

func (f *fakeLineage) BatchSearchLinkProcesses(ctx context.Context, req *lineagepb.BatchSearchLinkProcessesRequest) (*lineagepb.BatchSearchLinkProcessesResponse, error) {
	f.mu.Lock()
	f.batches = append(f.batches, req)
	f.mu.Unlock()
	if len(req.GetLinks()) > 100 {
		return nil, status.Error(codes.InvalidArgument, "at most 100 links")
	}
	if err := f.problem(ctx, req.GetParent()+"/processes"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*lineagepb.ProcessLinks
	procs := make([]string, 0, len(f.processLinks))
	for p := range f.processLinks {
		procs = append(procs, p)
	}
	sort.Strings(procs) // pages must not shift between calls
	for _, p := range procs {
		names := f.processLinks[p]
		if !strings.HasPrefix(p, req.GetParent()+"/") {
			continue
		}
		pl := &lineagepb.ProcessLinks{Process: p}
		for _, n := range names {
			for _, asked := range req.GetLinks() {
				if n == asked {
					pl.Links = append(pl.Links, &lineagepb.ProcessLinkInfo{Link: n})
				}
			}
		}
		if len(pl.Links) > 0 {
			out = append(out, pl)
		}
	}
	items, next, err := page(f, out, req.GetPageToken())
	return &lineagepb.BatchSearchLinkProcessesResponse{ProcessLinks: items, NextPageToken: next}, err
}

func (f *fakeLineage) GetProcess(ctx context.Context, req *lineagepb.GetProcessRequest) (*lineagepb.Process, error) {
	if err := f.problem(ctx, req.GetName()); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.processes[req.GetName()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "process %s not found", req.GetName())
	}
	return p, nil
}

func (f *fakeLineage) ListRuns(ctx context.Context, req *lineagepb.ListRunsRequest) (*lineagepb.ListRunsResponse, error) {
	f.mu.Lock()
	f.runCalls = append(f.runCalls, req.GetParent()+"?page="+req.GetPageToken())
	f.mu.Unlock()
	if err := f.problem(ctx, req.GetParent()+"/runs"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	runs, next, err := page(f, f.runs[req.GetParent()], req.GetPageToken())
	return &lineagepb.ListRunsResponse{Runs: runs, NextPageToken: next}, err
}

// serve starts the fake on a loopback listener and returns the client
// options that reach it without credentials.
func (f *fakeLineage) serve(t *testing.T) []option.ClientOption { return serveLineage(t, f) }

// serveLineage serves s on a loopback listener and returns the client
// options that reach it without credentials; extra dial options ride
// along (a credential interceptor).
func serveLineage(t *testing.T, s lineagepb.LineageServer, dial ...grpc.DialOption) []option.ClientOption {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	lineagepb.RegisterLineageServer(srv, s)
	go srv.Serve(lis) //nolint:errcheck // ends with Stop
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), append(dial, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return []option.ClientOption{option.WithEndpoint(lis.Addr().String()), option.WithoutAuthentication(), option.WithGRPCConn(conn)}
}

// link adds a link from src to dst, made by process (a short name under
// parent), and returns its name.
func (f *fakeLineage) link(parent, process, src, dst string) string {
	name := fmt.Sprintf("%s/links/l%d", parent, len(f.links[parent])+1)
	f.links[parent] = append(f.links[parent], &lineagepb.Link{Name: name,
		Source: &lineagepb.EntityReference{FullyQualifiedName: src}, Target: &lineagepb.EntityReference{FullyQualifiedName: dst}})
	p := parent + "/processes/" + process
	f.processLinks[p] = append(f.processLinks[p], name)
	if f.processes[p] == nil {
		f.processes[p] = &lineagepb.Process{Name: p, DisplayName: process}
	}
	return name
}

// run adds a run of process (newest start first: add them in that order).
func (f *fakeLineage) run(parent, process string, state lineagepb.Run_State, end time.Time) {
	p := parent + "/processes/" + process
	r := &lineagepb.Run{Name: fmt.Sprintf("%s/runs/r%d", p, len(f.runs[p])+1), State: state,
		StartTime: timestamppb.New(end.Add(-time.Hour))}
	if !end.IsZero() {
		r.EndTime = timestamppb.New(end)
	}
	f.runs[p] = append(f.runs[p], r)
}

// newCollector builds the collector against the fake, Init-ed.
func newCollector(t *testing.T, opts []option.ClientOption, projects []string, locations []string, tables ...string) *Collector {
	t.Helper()
	c := &Collector{Projects: projects, Locations: locations, Tables: tables, Builds: true,
		Timeout:       2 * time.Second,
		retry:         remote.RetryPolicy{Attempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }},
		clientOptions: opts}
	if err := c.Init(collectors.Env{Source: "datalineage", Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// faultmatrixDay is before the fault matrix plan's replay (2026-01-05).
var faultmatrixDay = time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
