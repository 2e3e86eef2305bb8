package metrics

import (
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// maxLabelRunes caps a label value: an owner or rule id comes from the
// estate (a label on a resource), and one absurd value should not make
// every scrape of the file heavy.
const maxLabelRunes = 256

// labels makes label pairs from name, value, name, value... Values come
// from the estate and may hold anything: the text encoder escapes quotes,
// backslashes and newlines, but invalid UTF-8 would make Prometheus and
// the Pushgateway refuse the whole exposition, so it is replaced here.
func labels(nv ...string) []*dto.LabelPair {
	out := make([]*dto.LabelPair, 0, len(nv)/2)
	for i := 0; i+1 < len(nv); i += 2 {
		name, value := nv[i], labelValue(nv[i+1])
		out = append(out, &dto.LabelPair{Name: &name, Value: &value})
	}
	return out
}

func labelValue(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if r := []rune(s); len(r) > maxLabelRunes {
		s = string(r[:maxLabelRunes-1]) + "…"
	}
	return s
}
