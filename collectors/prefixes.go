package collectors

import (
	"fmt"
	"strings"
)

// CheckPrefixes checks the prefixes configured for one bucket of an
// object store (key names them in errors: "buckets[0].prefixes"): at
// least one, none blank, none within another (its objects would be
// listed, and reported, twice).
func CheckPrefixes(key string, prefixes []string) error {
	if len(prefixes) == 0 {
		return fmt.Errorf("%s: missing; list the prefixes to read, e.g. [tmp/, checkpoints/]", key)
	}
	for j, p := range prefixes {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("%s[%d]: empty; name a prefix such as checkpoints/", key, j)
		}
		for k, q := range prefixes {
			if k != j && strings.HasPrefix(p, q) {
				return fmt.Errorf("%s[%d]: %q lies within %q: prefixes of one bucket must not overlap", key, j, p, q)
			}
		}
	}
	return nil
}
