package cloudasset

import (
	"encoding/json"
	"errors"
	"fmt"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	bq "google.golang.org/api/bigquery/v2"
	iam "google.golang.org/api/iam/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The resource data Cloud Asset Inventory carries is the JSON the
// service's own REST API returns (BigQuery v2, Pub/Sub v1, IAM v1), so it
// is read into the types the per-project collectors read.

// errNoData is an answer without the resource's own representation: the
// artifact would lack what rules judge (expiration, topic, validity), so
// it is an error at the resource's unit, never an artifact with holes.
var errNoData = errors.New("the answer carries no resource data (versionedResources); search with readMask versionedResources, or export with --content-type=resource")

func decodeJSON[T any](data []byte) (*T, error) {
	if data == nil {
		return nil, errNoData
	}
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("resource data: %w", err)
	}
	return v, nil
}

func decodeProto[T proto.Message](data []byte, v T) (T, error) {
	if data == nil {
		return v, errNoData
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, v); err != nil {
		return v, fmt.Errorf("resource data: %w", err)
	}
	return v, nil
}

func decodeDataset(data []byte) (*bq.Dataset, error) { return decodeJSON[bq.Dataset](data) }
func decodeTable(data []byte) (*bq.Table, error)     { return decodeJSON[bq.Table](data) }
func decodeAccount(data []byte) (*iam.ServiceAccount, error) {
	return decodeJSON[iam.ServiceAccount](data)
}
func decodeKey(data []byte) (*iam.ServiceAccountKey, error) {
	return decodeJSON[iam.ServiceAccountKey](data)
}
func decodeTopic(data []byte) (*pubsubpb.Topic, error) {
	return decodeProto(data, &pubsubpb.Topic{})
}
func decodeSubscription(data []byte) (*pubsubpb.Subscription, error) {
	return decodeProto(data, &pubsubpb.Subscription{})
}
