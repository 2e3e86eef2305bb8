package datalineage

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// The collector's gRPC peer of the HTTP hostile servers the other
// collectors meet (collectortest.Hostile*): a server echoing the request's
// credentials. An answer too large to hold is TestHugeAnswerRefused's; a
// stalled, refusing or down service is the fault matrix's.

// echoLineage fails every call with a message repeating the request's
// metadata, as a misconfigured proxy echoing headers.
type echoLineage struct {
	lineagepb.UnimplementedLineageServer
}

func (echoLineage) SearchLinks(ctx context.Context, _ *lineagepb.SearchLinksRequest) (*lineagepb.SearchLinksResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	var b strings.Builder
	// By hand (MD's own String hides credentials), the credentials first:
	// the collector keeps 200 characters of a message, and the echo must
	// reach them within those for the test to see what it masks.
	for _, k := range []string{"authorization", "x-goog-api-key"} {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(md[k], ", "))
	}
	return nil, status.Errorf(codes.Unavailable, "upstream failed; request headers were\n%s", b.String())
}

// A server that echoes the request's credentials in its error fails the
// unit, and the credential is in no error the collector reports.
func TestHeaderEchoLeaksNoCredential(t *testing.T) {
	withToken := grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+hostile.Canary, "x-goog-api-key", hostile.Canary)
		return invoker(ctx, method, req, reply, cc, opts...)
	})
	c := newCollector(t, serveLineage(t, echoLineage{}, withToken), []string{"p-one"}, []string{"us"}, orders)
	sink := collectors.NewTestSink()
	err := collectors.Collect(context.Background(), c, sink)
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
