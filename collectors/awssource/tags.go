package awssource

import (
	"cmp"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// OwnerTag is the owner a team writes in an owner tag (owner, or Owner
// as AWS's tagging guides spell it), if any: the one place the AWS
// collectors read it.
func OwnerTag(tags map[string]string) string { return cmp.Or(tags["owner"], tags["Owner"]) }

// Tags is an AWS tag list as a map, nil for none. Each service's SDK has
// its own Tag type, all with a Key and a Value: kv reads them.
func Tags[T any](ts []T, kv func(T) (key, value *string)) map[string]string {
	if len(ts) == 0 {
		return nil
	}
	out := make(map[string]string, len(ts))
	for _, t := range ts {
		k, v := kv(t)
		out[aws.ToString(k)] = aws.ToString(v)
	}
	return out
}
