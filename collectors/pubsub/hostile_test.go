package pubsub

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// huge answers alpha's ListTopics with a 20 MB page, beyond the 16 MiB
// answer cap, counting the calls.
type huge struct{ calls atomic.Int32 }

func (h *huge) React(req any) (bool, any, error) {
	r := req.(*pubsubpb.ListTopicsRequest)
	if r.Project != "projects/alpha" {
		return false, nil, nil
	}
	h.calls.Add(1)
	pad := strings.Repeat("x", 200)
	topics := make([]*pubsubpb.Topic, 0, 20<<20/len(pad))
	for i := range cap(topics) {
		topics = append(topics, &pubsubpb.Topic{Name: fmt.Sprintf("%s/topics/t-%d-%s", r.Project, i, pad)})
	}
	return true, &pubsubpb.ListTopicsResponse{Topics: topics}, nil
}

// A 20 MB answer (50 MB in the issue: the same path, cheaper under -race)
// fails its unit once: the client refuses it past
// gcp.MaxAnswerBytes (RESOURCE_EXHAUSTED on the client side), and asking
// again would get the same, so it is not retried like a server's quota
// answer. Topics failing fails the project (collectProject); the other
// project still answers.
func TestHugeAnswerFailsItsUnitWithoutRetry(t *testing.T) {
	h := &huge{}
	c := start(t, pstest.ServerReactorOption{FuncName: "ListTopics", Reactor: h})
	c.Timeout = time.Minute // building the answer is slow under -race on a busy machine
	sink := collectors.NewTestSink()
	_ = collectors.Collect(context.Background(), c, sink)
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "alpha" {
		t.Fatalf("errors %+v; want one at alpha", sink.Errors)
	}
	if !strings.Contains(sink.Errors[0].Error, "larger than max") {
		t.Errorf("error %q; want the size limit named", sink.Errors[0].Error)
	}
	if n := h.calls.Load(); n != 1 {
		t.Errorf("ListTopics of alpha called %d times; a too-large answer must not be retried", n)
	}
	if sink.Artifact("pubsub://beta/subscriptions/bf-3003-audit") == nil {
		t.Error("beta lost with alpha")
	}
}

// echoServer answers every call with hostile.GRPCEcho.
type echoServer struct {
	pubsubpb.UnimplementedPublisherServer
	pubsubpb.UnimplementedSubscriberServer
}

func (echoServer) ListTopics(ctx context.Context, _ *pubsubpb.ListTopicsRequest) (*pubsubpb.ListTopicsResponse, error) {
	return nil, hostile.GRPCEcho(ctx)
}

func (echoServer) ListSubscriptions(ctx context.Context, _ *pubsubpb.ListSubscriptionsRequest) (*pubsubpb.ListSubscriptionsResponse, error) {
	return nil, hostile.GRPCEcho(ctx)
}

// A server that echoes the request's credentials in its error message
// degrades the project, and the credential appears in no error the
// collector reports.
func TestHeaderEchoLeaksNoCredential(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	pubsubpb.RegisterPublisherServer(srv, echoServer{})
	pubsubpb.RegisterSubscriberServer(srv, echoServer{})
	go srv.Serve(ln) //nolint:errcheck // ends with Stop
	t.Cleanup(srv.Stop)

	c := &Collector{
		Projects: []string{"alpha"},
		Endpoint: ln.Addr().String(),
		Timeout:  5 * time.Second,
		clientOptions: []option.ClientOption{
			option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
			option.WithGRPCDialOption(hostile.GRPCCanaryCredentials()),
		},
		retry: remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
	}
	if err := c.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	collectortest.CollectEchoed(t, c)
}
