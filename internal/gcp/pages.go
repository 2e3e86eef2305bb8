package gcp

import (
	"context"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc"
)

// NoClientRetry turns off a generated gRPC client's own retries for a
// call: they do not cover RESOURCE_EXHAUSTED (429), they wait on their
// own clock, and two retry layers multiply waits. Call retries each call
// instead, within the retry budget.
var NoClientRetry = gax.WithRetry(func() gax.Retryer { return nil })

// AnswerCap bounds one gRPC answer as HTTPClient bounds a REST one: the
// generated clients accept messages up to 2 GiB, so a server sending 50
// MB (or 2 GB) would be read whole into memory.
var AnswerCap = gax.WithGRPCOptions(grpc.MaxCallRecvMsgSize(MaxAnswerBytes))

// Page is one page of a listing, read with exactly one call (a generated
// client's InternalFetch, not its iterator, which keeps calling until a
// page is full, so a server answering empty pages with fresh tokens would
// hold one "page" forever). Next is the next page's token, "" on the
// last; Announced is the item count the API says the listing holds, 0
// when it says none.
type Page[T any] struct {
	Items     []T
	Next      string
	Announced int64
}

// Pages reads every page of a listing: fetch reads the page at a token,
// each page one call under its own deadline and retried on its own
// (Call). pager bounds the pages and stops a listing that does not
// advance, by the keys key gives the items ("" for one without). A
// failed page fails the listing: nothing is returned short.
func Pages[T any](ctx context.Context, retry remote.RetryPolicy, timeout time.Duration, pager *remote.Pager,
	fetch func(ctx context.Context, token string) (Page[T], error), key func(T) string) ([]T, error) {
	var all []T
	token := ""
	for {
		p, err := Call(ctx, retry, timeout, func(ctx context.Context) (Page[T], error) { return fetch(ctx, token) })
		if err != nil {
			return nil, err
		}
		pager.Announced = p.Announced
		keys := make([]string, len(p.Items))
		for i, it := range p.Items {
			keys[i] = key(it)
		}
		if err := pager.Next(p.Next, keys...); err != nil {
			return nil, err
		}
		all = append(all, p.Items...)
		if p.Next == "" {
			return all, nil
		}
		token = p.Next
	}
}
