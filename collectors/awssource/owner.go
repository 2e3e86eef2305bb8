package awssource

import "cmp"

// OwnerTag is the owner a team writes in an owner tag (owner, or Owner
// as AWS's tagging guides spell it), if any: the one place the AWS
// collectors read it.
func OwnerTag(tags map[string]string) string { return cmp.Or(tags["owner"], tags["Owner"]) }
