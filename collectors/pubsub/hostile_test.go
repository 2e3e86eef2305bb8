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
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
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

// echoServer answers every call with an UNAVAILABLE status whose message
// repeats the request's metadata, as a misconfigured proxy echoing headers.
type echoServer struct {
	pubsubpb.UnimplementedPublisherServer
	pubsubpb.UnimplementedSubscriberServer
}

func (echoServer) echo(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	var b strings.Builder
	// By hand (MD's own String hides credentials), the credentials first:
	// the collector keeps 200 characters of a message, and the echo must
	// reach them within those for the test to see what it masks.
	for _, k := range []string{"authorization", "x-goog-api-key"} {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(md[k], ", "))
	}
	return status.Errorf(codes.Unavailable, "upstream failed; request headers were\n%s", b.String())
}

func (e echoServer) ListTopics(ctx context.Context, _ *pubsubpb.ListTopicsRequest) (*pubsubpb.ListTopicsResponse, error) {
	return nil, e.echo(ctx)
}

func (e echoServer) ListSubscriptions(ctx context.Context, _ *pubsubpb.ListSubscriptionsRequest) (*pubsubpb.ListSubscriptionsResponse, error) {
	return nil, e.echo(ctx)
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

	// The credentials a real run sends ride in the authorization metadata.
	withToken := grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+hostile.Canary, "x-goog-api-key", hostile.Canary)
		return invoker(ctx, method, req, reply, cc, opts...)
	})
	c := &Collector{
		Projects: []string{"alpha"},
		Endpoint: ln.Addr().String(),
		Timeout:  5 * time.Second,
		clientOptions: []option.ClientOption{
			option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
			option.WithGRPCDialOption(withToken),
		},
		retry: remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
	}
	if err := c.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	sink := collectors.NewTestSink()
	err = collectors.Collect(context.Background(), c, sink)
	if len(sink.Errors) == 0 {
		t.Fatal("no error recorded for a server that fails every call")
	}
	texts := []string{fmt.Sprint(err)}
	echoed := false
	for _, e := range sink.Errors {
		texts = append(texts, e.Error)
		echoed = echoed || strings.Contains(e.Error, "request headers were")
	}
	if !echoed {
		t.Fatalf("errors %+v; want the server's (echoing) message kept, so this test sees the echo", sink.Errors)
	}
	for _, s := range texts {
		if strings.Contains(s, hostile.Canary) {
			t.Errorf("credential echoed into an error: %s", s)
		}
	}
}
