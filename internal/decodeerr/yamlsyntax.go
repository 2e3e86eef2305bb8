package decodeerr

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// YAMLSyntax splits an error of gopkg.in/yaml.v3 into the line it names
// (0 when it names none) and what is wrong, without the package's
// "yaml: " prefix. The package counts a parser error's line from 0 and a
// scanner error's from 1, so a parser error (an unclosed flow sequence, a
// missing key: parserProblems) is placed one line on, where the construct
// it is about starts, or where the parser stopped. A file that ends too
// soon stops the parser past its last line: given the document's data
// (nil when not at hand), the line is kept within it.
func YAMLSyntax(err error, data []byte) (int, string) { return YAMLLine(err.Error(), data) }

// YAMLLine is YAMLSyntax of one line of the package's error text (its
// "unmarshal errors:" list one a line).
func YAMLLine(msg string, data []byte) (int, string) {
	msg = strings.TrimPrefix(strings.TrimSpace(msg), "yaml: ")
	line, what := 0, msg
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		what = m[2]
	}
	if parserProblems[what] {
		line++
		if last := lastLine(data); last > 0 && line > last {
			line = last
		}
	}
	return line, what
}

// lastLine is the number of the last line of data holding text (0 for
// none).
func lastLine(data []byte) int {
	data = bytes.TrimRight(data, " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return bytes.Count(data, []byte("\n")) + 1
}

var yamlLineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// parserProblems are the parser's messages (yaml.v3's parserc.go); the
// scanner's, some of which also begin "did not find expected", are
// counted from 1 already.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}
