package hostile

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// GRPCCanaryCredentials is a dial option that sends Canary as a call's
// credentials (the authorization metadata and an API key), as a real
// run's token rides: the peer of a token a config names.
func GRPCCanaryCredentials() grpc.DialOption {
	return grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+Canary, "x-goog-api-key", Canary)
		return invoker(ctx, method, req, reply, cc, opts...)
	})
}

// GRPCEchoMark is in every GRPCEcho message.
const GRPCEchoMark = "request headers were"

// GRPCEcho is the answer of a misconfigured proxy in front of a gRPC
// service, the peer of EchoHeaders: UNAVAILABLE, its message repeating the
// call's credential metadata. The credentials come first: a collector
// keeps the start of a message, and the echo must reach them within it for
// a test to see what the collector masks.
func GRPCEcho(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	var b strings.Builder
	for _, k := range []string{"authorization", "x-goog-api-key"} { // by hand: MD's String hides them
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(md[k], ", "))
	}
	return status.Errorf(codes.Unavailable, "upstream failed; %s\n%s", GRPCEchoMark, b.String())
}
