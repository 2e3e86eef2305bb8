package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/remedy"
)

// Fix is the `fix` section of the config file: what `bfaudit fix --apply`
// may do. It lives here, not in package fix, so loading a config does not
// pull in every system fix acts on.
type Fix struct {
	// Allow names the actions `fix --apply` may take besides the
	// reversible ones (pause_job, expire_role, disable_key), which it
	// always may: drop_table, revoke_grant, delete_subscription...
	Allow []string `mapstructure:"allow"`
	// Actor is who the history store records as having acted; default
	// $USER.
	Actor string `mapstructure:"actor"`
}

// Validate checks every allowed action is one bfaudit knows.
func (c Fix) Validate() error {
	known := remedy.Actions()
	for i, a := range c.Allow {
		if _, ok := known[a]; !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Errorf("fix.allow[%d]: unknown action %q (expected one of %s)", i, a, strings.Join(names, ", "))
		}
	}
	return nil
}

// Allows reports whether --apply may take an action: it is reversible or
// the config allows it.
func (c Fix) Allows(action string) bool {
	return remedy.Reversible(action) || slices.Contains(c.Allow, action)
}
