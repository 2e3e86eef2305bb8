package datalineage

import (
	"context"
	"testing"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// The collector's gRPC peer of the HTTP hostile servers the other
// collectors meet (collectortest.Hostile*): a server echoing the request's
// credentials. An answer too large to hold is TestHugeAnswerRefused's; a
// stalled, refusing or down service is the fault matrix's.

// echoLineage fails every call with hostile.GRPCEcho.
type echoLineage struct {
	lineagepb.UnimplementedLineageServer
}

func (echoLineage) SearchLinks(ctx context.Context, _ *lineagepb.SearchLinksRequest) (*lineagepb.SearchLinksResponse, error) {
	return nil, hostile.GRPCEcho(ctx)
}

// A server that echoes the request's credentials in its error fails the
// unit, and the credential is in no error the collector reports.
func TestHeaderEchoLeaksNoCredential(t *testing.T) {
	opts := serveLineage(t, echoLineage{}, hostile.GRPCCanaryCredentials())
	collectortest.CollectEchoed(t, newCollector(t, opts, []string{"p-one"}, []string{"us"}, orders))
}
