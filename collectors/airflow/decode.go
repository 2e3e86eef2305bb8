package airflow

import (
	"encoding/json"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// maxAnswerBytes caps one API answer or one per-DAG export file: a page of
// 100 DAGs is tens of kilobytes, so a larger answer is a misbehaving
// server or proxy, and reading it whole would only fill memory.
const maxAnswerBytes = 32 << 20

// decodeAnswer decodes one JSON answer into out (remote.Unmarshal: empty,
// null or not JSON is an error) and checks it is not malformed (a null or
// absent list). Its errors never quote the answer.
func decodeAnswer(body []byte, out checker) error {
	if err := remote.Unmarshal(body, out); err != nil {
		return err
	}
	return out.check()
}

// runConf is a run's conf kept as its JSON text, decoded only for the
// runs the collector keeps. Airflow 2 cannot filter runs by type, so a
// listing brings every run of the lookback and the collector drops all
// but the backfill runs as each page arrives: decoding each dropped
// run's conf into a map (any parameters a run was given, often the
// biggest part of a run) was most of the allocations of reading a page
// (about 750 a run whose conf has 50 parameters; 4 now).
type runConf struct{ raw []byte }

// UnmarshalJSON keeps an object's text (the decoder has checked it) and
// refuses any other value but null, as decoding into a map did.
func (c *runConf) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		c.raw = nil
	case len(b) > 0 && b[0] == '{':
		c.raw = append(c.raw[:0], b...)
	default:
		var m map[string]any
		return json.Unmarshal(b, &m) // encoding/json's own type error, as before
	}
	return nil
}

// decode reads the conf; nil when there is none, or when it does not
// decode (a number out of float64's range): such a conf ties nothing.
func (c runConf) decode() map[string]any {
	if c.raw == nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(c.raw, &m) != nil {
		return nil
	}
	return m
}
