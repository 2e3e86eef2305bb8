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

// searchResources reads every page of one resource search. A search that
// fails on any page, or that never stops paging, is an error.
func (c *Collector) searchResources(ctx context.Context, scope, query string, types []string) ([]*assetpb.ResourceSearchResult, error) {
	req := &assetpb.SearchAllResourcesRequest{Scope: scope, Query: query, AssetTypes: types, ReadMask: readMask}
	return pages(ctx, c, "cloudasset.searchAllResources", func(ctx context.Context, token string) (gcp.Page[*assetpb.ResourceSearchResult], error) {
		items, next, err := c.client.SearchAllResources(ctx, req, gcp.NoClientRetry, gax.WithTimeout(c.Timeout)).InternalFetch(c.PageSize, token)
		return gcp.Page[*assetpb.ResourceSearchResult]{Items: items, Next: next}, err
	}, (*assetpb.ResourceSearchResult).GetName)
}

// searchPolicies reads every page of one IAM policy search.
func (c *Collector) searchPolicies(ctx context.Context, scope, query string, types []string) ([]*assetpb.IamPolicySearchResult, error) {
	req := &assetpb.SearchAllIamPoliciesRequest{Scope: scope, Query: query, AssetTypes: types}
	return pages(ctx, c, "cloudasset.searchAllIamPolicies", func(ctx context.Context, token string) (gcp.Page[*assetpb.IamPolicySearchResult], error) {
		items, next, err := c.client.SearchAllIamPolicies(ctx, req, gcp.NoClientRetry, gax.WithTimeout(c.Timeout)).InternalFetch(c.PageSize, token)
		return gcp.Page[*assetpb.IamPolicySearchResult]{Items: items, Next: next}, err
	}, (*assetpb.IamPolicySearchResult).GetResource)
}

// pages reads every page of one search (gcp.Pages), what naming the API
// method (the caller names the scope).
func pages[T any](ctx context.Context, c *Collector, what string, fetch func(ctx context.Context, token string) (gcp.Page[T], error), id func(T) string) ([]T, error) {
	return gcp.Pages(ctx, c.retry, c.Timeout, &remote.Pager{What: what, Max: c.maxPages}, fetch, id)
}
