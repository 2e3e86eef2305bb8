package metrics

import (
	"bytes"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// ContentType is the text format's media type, as a Pushgateway push
// declares it.
const ContentType = `text/plain; version=0.0.4; charset=utf-8`

// Text writes fams in the Prometheus text format, with the official
// encoder (its escaping of label values is the one parsers undo).
func Text(fams []*dto.MetricFamily) ([]byte, error) {
	var b bytes.Buffer
	for _, mf := range fams {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}
