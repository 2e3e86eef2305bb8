package records

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var lineRE = regexp.MustCompile(`^line (\d+): `)

// splitLine takes "line N: msg" apart.
func splitLine(err error) (int, error) {
	msg := err.Error()
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, plainError(strings.TrimPrefix(msg, m[0]))
	}
	return 0, err
}

type plainError string

func (e plainError) Error() string { return string(e) }

// cleanYAMLError drops the yaml package's prefixes.
func cleanYAMLError(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n  ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	return plainError(msg)
}

// lineOf returns the line of key in a mapping node, or the mapping's line.
func lineOf(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return m.Line
}

// scalarAt returns a top-level scalar value of a mapping node.
func scalarAt(m *yaml.Node, key string) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.ScalarNode {
			return m.Content[i+1].Value
		}
	}
	return ""
}
