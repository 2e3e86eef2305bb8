package flagd

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// variantTypes checks what the flagd schema asks of variants and the
// parser does not: their values are all booleans, all strings, all
// numbers or all objects. flagd serves such a flag, with a warning in its
// log (the Operator refuses the resource), so it is read and noted.
func variantTypes(key, vars *yaml.Node) *problem {
	kinds := map[string]bool{}
	for i := 1; i < len(vars.Content); i += 2 {
		kinds[valueKind(resolve(vars.Content[i]))] = true
	}
	for _, k := range []string{"a list", "null"} {
		if kinds[k] {
			return &problem{line: key.Line, msg: fmt.Sprintf(".variants: a value is %s; the flagd schema allows booleans, strings, numbers or objects (read: flagd serves it with a warning)", k)}
		}
	}
	if len(kinds) < 2 {
		return nil
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return &problem{line: key.Line, msg: fmt.Sprintf(".variants: values of several types (%s); the flagd schema wants one type per flag (read: flagd serves it with a warning)", strings.Join(names, ", "))}
}

func valueKind(n *yaml.Node) string {
	switch {
	case n == nil:
		return "null"
	case n.Kind == yaml.MappingNode:
		return "object"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!bool":
		return "boolean"
	case "!!int", "!!float":
		return "number"
	case "!!null":
		return "null"
	}
	return "string"
}
