package config

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// lineOf returns the line of key ("owners.team-x", "fix.allow[0]",
// "rules.custom[2].expr") in the YAML config file as read, or of the
// nearest enclosing key that is written there; 0 when the file is not YAML
// or the key's first segment is not in it (an env var or a default set it).
func (c *Config) lineOf(key string) int {
	line, _ := c.locate(key)
	return line
}

// locate is lineOf, and whether the key itself (not only an enclosing
// one) is written in the file.
func (c *Config) locate(key string) (line int, exact bool) {
	root := c.yamlRoot()
	if key == "" || root == nil {
		return 0, false
	}
	n := root
	segs := strings.Split(key, ".")
	for i := 0; i < len(segs); i++ {
		name, rest, _ := strings.Cut(segs[i], "[")
		if name != "" {
			v, l := mapValue(n, name)
			// A key may hold dots itself (an owner "a@b.c"): try it
			// joined with the segments after it.
			for j := i + 1; v == nil && j < len(segs); j++ {
				name, rest, _ = strings.Cut(strings.Join(segs[i:j+1], "."), "[")
				if v, l = mapValue(n, name); v != nil {
					i = j
				}
			}
			if v == nil {
				return line, false
			}
			n, line = v, l
		}
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			i, err := strconv.Atoi(idx)
			if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return line, false
			}
			n, line = n.Content[i], n.Content[i].Line
			// What follows an index is another index, or a name shown
			// beside it ("custom[0] (ACME001)"), which is not a key.
			rest, _ = strings.CutPrefix(after, "[")
			if rest == after {
				rest = ""
			}
		}
	}
	return line, true
}

// yamlRoot is the top node of the config file as read, nil when the file
// is not YAML (lines are a help, not a requirement).
func (c *Config) yamlRoot() *yaml.Node {
	if len(c.raw) == 0 || configType(c.File, c.raw) == "toml" {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(c.raw, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// mapValue finds name in a mapping node (viper folds keys to lower case,
// so the match ignores case) and returns its value and the key's line.
func mapValue(n *yaml.Node, name string) (*yaml.Node, int) {
	if n.Kind != yaml.MappingNode {
		return nil, 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if strings.EqualFold(n.Content[i].Value, name) {
			return n.Content[i+1], n.Content[i].Line
		}
	}
	return nil, 0
}
