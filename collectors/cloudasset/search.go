package cloudasset

import (
	"context"

	asset "cloud.google.com/go/asset/apiv1"
	"cloud.google.com/go/asset/apiv1/assetpb"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// searcher is the part of the Asset API client used, so tests can hand in
// another.
type searcher interface {
	SearchAllResources(ctx context.Context, req *assetpb.SearchAllResourcesRequest, opts ...gax.CallOption) *asset.ResourceSearchResultIterator
	SearchAllIamPolicies(ctx context.Context, req *assetpb.SearchAllIamPoliciesRequest, opts ...gax.CallOption) *asset.IamPolicySearchResultIterator
}

// noClientRetry turns off the client's own retries (it retries 503 only,
// on its own clock): gcp.Call retries each page instead, within the
// budget.
var noClientRetry = gax.WithRetry(func() gax.Retryer { return nil })

// readMask asks for the resource's own representation
// (versionedResources), which the search leaves out by default: it holds
// what the per-project APIs return (a table's expiration and row count, a
// subscription's topic and expiration policy, a key's validity).
var readMask = &fieldmaskpb.FieldMask{Paths: []string{"name", "asset_type", "project", "versioned_resources"}}

// Asset types searched.
const (
	typeDataset      = "bigquery.googleapis.com/Dataset"
	typeTable        = "bigquery.googleapis.com/Table"
	typeTopic        = "pubsub.googleapis.com/Topic"
	typeSubscription = "pubsub.googleapis.com/Subscription"
	typeAccount      = "iam.googleapis.com/ServiceAccount"
	typeKey          = "iam.googleapis.com/ServiceAccountKey"
	typeProject      = "cloudresourcemanager.googleapis.com/Project"
)

// resourceTypes are the machinery the resource search looks for; policy
// types the resources whose IAM policies are read.
var (
	resourceTypes = []string{typeDataset, typeTable, typeTopic, typeSubscription, typeAccount, typeKey}
	policyTypes   = []string{typeProject, typeDataset}
)

// page is one answer of a search: exactly one call.
type page[T any] struct {
	items []T
	next  string
}

// searchResources reads every page of one resource search. A search that
// fails on any page, or that never stops paging, is an error.
func (c *Collector) searchResources(ctx context.Context, scope, query string, types []string) ([]*assetpb.ResourceSearchResult, error) {
	req := &assetpb.SearchAllResourcesRequest{Scope: scope, Query: query, AssetTypes: types, ReadMask: readMask}
	return pages(ctx, c, "cloudasset.searchAllResources", func(ctx context.Context, token string) (page[*assetpb.ResourceSearchResult], error) {
		// InternalFetch is one RPC; the iterator's own paging would keep
		// calling until a page is full, so a server answering empty pages
		// with fresh tokens would hold one "page" forever.
		items, next, err := c.client.SearchAllResources(ctx, req, noClientRetry, gax.WithTimeout(c.Timeout)).InternalFetch(c.PageSize, token)
		return page[*assetpb.ResourceSearchResult]{items, next}, err
	}, (*assetpb.ResourceSearchResult).GetName)
}

// searchPolicies reads every page of one IAM policy search.
func (c *Collector) searchPolicies(ctx context.Context, scope, query string, types []string) ([]*assetpb.IamPolicySearchResult, error) {
	req := &assetpb.SearchAllIamPoliciesRequest{Scope: scope, Query: query, AssetTypes: types}
	return pages(ctx, c, "cloudasset.searchAllIamPolicies", func(ctx context.Context, token string) (page[*assetpb.IamPolicySearchResult], error) {
		items, next, err := c.client.SearchAllIamPolicies(ctx, req, noClientRetry, gax.WithTimeout(c.Timeout)).InternalFetch(c.PageSize, token)
		return page[*assetpb.IamPolicySearchResult]{items, next}, err
	}, (*assetpb.IamPolicySearchResult).GetResource)
}

// pages calls fetch page after page, each under its own deadline and
// retried on its own, until the server stops handing out tokens; bounded
// by a remote.Pager named what (the API method; the caller names the
// scope).
func pages[T any](ctx context.Context, c *Collector, what string, fetch func(ctx context.Context, token string) (page[T], error), id func(T) string) ([]T, error) {
	var all []T
	bound := remote.Pager{What: what, Max: c.maxPages}
	token := ""
	for {
		p, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (page[T], error) { return fetch(ctx, token) })
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(p.items))
		for i, it := range p.items {
			ids[i] = id(it)
		}
		if err := bound.Next(p.next, ids...); err != nil {
			return nil, err
		}
		all = append(all, p.items...)
		if p.next == "" {
			return all, nil
		}
		token = p.next
	}
}
