package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/internal/safefile"
)

// KeyLines maps, for each plan document of a file, the line every key sits
// on. The outer key is the line the document's mapping starts on (the Line
// of the plan's model.Location); the inner key is a dotted path such as
// "concurrency", "range.start" or "elevated_access[1].expiry". It lets a
// finding point at the offending key rather than at the top of the plan.
type KeyLines map[int]map[string]int

// ReadKeyLines reads a plan file's key lines. A file that does not parse
// gives what was read before the error.
func ReadKeyLines(path string) (KeyLines, error) {
	data, err := safefile.ReadLimit(path, maxFileBytes)
	if err != nil {
		return nil, err
	}
	return ParseKeyLines(data)
}

// ParseKeyLines reads the key lines of every YAML document in data.
func ParseKeyLines(data []byte) (KeyLines, error) {
	out := KeyLines{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(node.Content) == 0 || node.Content[0].Kind != yaml.MappingNode {
			continue
		}
		doc := node.Content[0]
		lines := map[string]int{}
		walkKeys(doc, "", lines)
		out[doc.Line] = lines
	}
}

// Line returns the line of key in the document starting at docLine, or 0.
func (k KeyLines) Line(docLine int, key string) int { return k[docLine][key] }

func walkKeys(n *yaml.Node, prefix string, lines map[string]int) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if prefix != "" {
				key = prefix + "." + key
			}
			lines[key] = n.Content[i].Line
			walkKeys(n.Content[i+1], key, lines)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			key := fmt.Sprintf("%s[%d]", prefix, i)
			lines[key] = item.Line
			walkKeys(item, key, lines)
		}
	}
}
