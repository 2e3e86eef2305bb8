package inventory

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// An inventory's artifacts have no command of their own: the system they
// were exported from is where they are removed. Its examples show the
// rules' fixes on a feature flag.
func init() {
	remedy.RegisterSystem("inventory", remedy.System{Examples: examples})
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"flag": {Kind: model.KindFeatureFlag, System: "inventory", Source: "exports", State: model.StateEnabled,
		URI: "exports://flags/refund-backfill-mode", Name: "refund-backfill-mode"},
}
