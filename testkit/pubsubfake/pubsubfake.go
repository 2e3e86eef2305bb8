// Package pubsubfake serves Google's pstest fake with the snapshot calls
// it lacks (pstest answers CreateSnapshot, GetSnapshot, ListSnapshots and
// DeleteSnapshot UNIMPLEMENTED). Topics, subscriptions and everything else
// are pstest's own; the four snapshot methods of the official
// SubscriberServer are served here, on the same address, so one admin
// client reaches both.
package pubsubfake

import (
	"context"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	pb "cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// snapshotCalls are the methods served here; reactors named for them
// react here, the others are handed to pstest.
var snapshotCalls = map[string]bool{"CreateSnapshot": true, "GetSnapshot": true, "ListSnapshots": true, "DeleteSnapshot": true}

// Server is pstest plus snapshots.
type Server struct {
	// Addr is the address to dial (host:port).
	Addr string
	// PS is the pstest server behind; its own address is not used.
	PS *pstest.Server

	gsrv     *grpc.Server
	reactors map[string][]pstest.Reactor

	mu     sync.Mutex
	snaps  map[string]*pb.Snapshot
	expiry func() time.Time
}

// NewServer starts the fake. Reactors work as pstest's do, for the
// snapshot calls too (by FuncName).
func NewServer(opts ...pstest.ServerReactorOption) (*Server, error) {
	var ps []pstest.ServerReactorOption
	s := &Server{reactors: map[string][]pstest.Reactor{}, snaps: map[string]*pb.Snapshot{}}
	for _, o := range opts {
		if snapshotCalls[o.FuncName] {
			s.reactors[o.FuncName] = append(s.reactors[o.FuncName], o.Reactor)
		} else {
			ps = append(ps, o)
		}
	}
	// As the service does for a subscription with no backlog: seven days.
	s.expiry = func() time.Time { return time.Now().Add(7 * 24 * time.Hour) }
	s.PS = pstest.NewServer(ps...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.PS.Close()
		return nil, err
	}
	s.Addr = ln.Addr().String()
	s.gsrv = grpc.NewServer()
	pb.RegisterPublisherServer(s.gsrv, &s.PS.GServer)
	pb.RegisterSubscriberServer(s.gsrv, subscriber{GServer: &s.PS.GServer, s: s})
	go s.gsrv.Serve(ln) //nolint:errcheck // ends with Close
	return s, nil
}

// Close stops both servers.
func (s *Server) Close() error {
	s.gsrv.Stop()
	return s.PS.Close()
}

// SetExpiry sets the expire_time CreateSnapshot gives from now on; the
// zero time leaves it unset.
func (s *Server) SetExpiry(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expiry = func() time.Time { return t }
}

// Snapshots returns the full names of the snapshots held, sorted.
func (s *Server) Snapshots() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.snaps))
	for n := range s.snaps {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s *Server) react(name string, req any) (bool, any, error) {
	for _, r := range s.reactors[name] {
		if handled, ret, err := r.React(req); handled || err != nil {
			return true, ret, err
		}
	}
	return false, nil, nil
}

// subscriber is pstest's SubscriberServer with the snapshot methods.
type subscriber struct {
	*pstest.GServer
	s *Server
}

func (sub subscriber) CreateSnapshot(ctx context.Context, req *pb.CreateSnapshotRequest) (*pb.Snapshot, error) {
	if handled, ret, err := sub.s.react("CreateSnapshot", req); handled {
		snap, _ := ret.(*pb.Snapshot)
		return snap, err
	}
	if project, _, ok := split(req.GetName(), "snapshots"); !ok || !strings.HasPrefix(req.GetSubscription(), project+"/subscriptions/") {
		return nil, status.Errorf(codes.InvalidArgument, "bad snapshot %q or subscription %q", req.GetName(), req.GetSubscription())
	}
	ps, err := sub.GetSubscription(ctx, &pb.GetSubscriptionRequest{Subscription: req.GetSubscription()})
	if err != nil {
		return nil, err
	}
	s := sub.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.snaps[req.GetName()]; ok {
		return nil, status.Errorf(codes.AlreadyExists, "snapshot %q", req.GetName())
	}
	snap := &pb.Snapshot{Name: req.GetName(), Topic: ps.GetTopic(), Labels: req.GetLabels()}
	if t := s.expiry(); !t.IsZero() {
		snap.ExpireTime = timestamppb.New(t)
	}
	s.snaps[snap.Name] = snap
	return proto.Clone(snap).(*pb.Snapshot), nil
}

func (sub subscriber) GetSnapshot(_ context.Context, req *pb.GetSnapshotRequest) (*pb.Snapshot, error) {
	if handled, ret, err := sub.s.react("GetSnapshot", req); handled {
		snap, _ := ret.(*pb.Snapshot)
		return snap, err
	}
	s := sub.s
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, ok := s.snaps[req.GetSnapshot()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "snapshot %q", req.GetSnapshot())
	}
	return proto.Clone(snap).(*pb.Snapshot), nil
}

// ListSnapshots pages by name; the page token is the offset.
func (sub subscriber) ListSnapshots(_ context.Context, req *pb.ListSnapshotsRequest) (*pb.ListSnapshotsResponse, error) {
	if handled, ret, err := sub.s.react("ListSnapshots", req); handled {
		resp, _ := ret.(*pb.ListSnapshotsResponse)
		return resp, err
	}
	if _, _, ok := split(req.GetProject()+"/x/y", "x"); !ok {
		return nil, status.Errorf(codes.InvalidArgument, "bad project %q", req.GetProject())
	}
	from := 0
	if req.GetPageToken() != "" {
		n, err := strconv.Atoi(req.GetPageToken())
		if err != nil || n < 0 {
			return nil, status.Errorf(codes.InvalidArgument, "bad page token %q", req.GetPageToken())
		}
		from = n
	}
	var names []string
	for _, n := range sub.s.Snapshots() {
		if strings.HasPrefix(n, req.GetProject()+"/snapshots/") {
			names = append(names, n)
		}
	}
	size := int(req.GetPageSize())
	if size <= 0 || size > 1000 {
		size = 1000
	}
	resp := &pb.ListSnapshotsResponse{}
	s := sub.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := from; i < len(names) && i < from+size; i++ {
		if snap, ok := s.snaps[names[i]]; ok {
			resp.Snapshots = append(resp.Snapshots, proto.Clone(snap).(*pb.Snapshot))
		}
	}
	if from+size < len(names) {
		resp.NextPageToken = strconv.Itoa(from + size)
	}
	return resp, nil
}

func (sub subscriber) DeleteSnapshot(_ context.Context, req *pb.DeleteSnapshotRequest) (*emptypb.Empty, error) {
	if handled, ret, err := sub.s.react("DeleteSnapshot", req); handled {
		e, _ := ret.(*emptypb.Empty)
		return e, err
	}
	s := sub.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.snaps[req.GetSnapshot()]; !ok {
		return nil, status.Errorf(codes.NotFound, "snapshot %q", req.GetSnapshot())
	}
	delete(s.snaps, req.GetSnapshot())
	return &emptypb.Empty{}, nil
}

// split reads projects/<p>/<kind>/<name>.
func split(name, kind string) (project, short string, ok bool) {
	segs := strings.Split(name, "/")
	if len(segs) != 4 || segs[0] != "projects" || segs[1] == "" || segs[2] != kind || segs[3] == "" {
		return "", "", false
	}
	return "projects/" + segs[1], segs[3], true
}
