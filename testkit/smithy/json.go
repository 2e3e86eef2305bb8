package smithy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// awsJson1_0 and awsJson1_1: POST / with X-Amz-Target: <Service>.<Operation>
// and the input as a JSON object (member names, epoch-second timestamps);
// answered the same way, errors as {"__type": code, "message": ...}.

func (m *Model) jsonContentType() string {
	return "application/x-amz-json-" + strings.ReplaceAll(strings.TrimPrefix(m.Protocol, "awsJson"), "_", ".")
}

func (m *Model) checkJSON(r *http.Request, body []byte) (Call, error) {
	target := r.Header.Get("X-Amz-Target")
	service, name, _ := strings.Cut(target, ".")
	op := m.ops[name]
	switch {
	case service != m.Service || op == nil:
		return Call{}, fmt.Errorf("unknown operation: X-Amz-Target %q (the model's are %s.<Operation>)", target, m.Service)
	case r.Method != http.MethodPost:
		return Call{}, fmt.Errorf("%s: %s is sent with POST, not %s", op.name, m.Protocol, r.Method)
	case r.Header.Get("Content-Type") != m.jsonContentType():
		return Call{}, fmt.Errorf("%s: Content-Type %q, the protocol's is %s", op.name, r.Header.Get("Content-Type"), m.jsonContentType())
	}
	in, err := readJSON(op.input, body, false)
	if err != nil {
		return Call{}, fmt.Errorf("%s: %w", op.name, err)
	}
	return Call{Operation: op.name, Input: in}, nil
}

// readJSON reads a JSON body as structure s; an empty body is {}.
func readJSON(s *shape, body []byte, jsonName bool) (map[string]any, error) {
	var v any = map[string]any{}
	if len(bytes.TrimSpace(body)) > 0 {
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("the body is not JSON: %v", err)
		}
		if d.More() {
			return nil, fmt.Errorf("the body holds more than one JSON value")
		}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("the body is not a JSON object")
	}
	in, err := reader{wire: true, jsonName: jsonName, time: "epoch-seconds"}.value(s, "", v, "")
	if err != nil {
		return nil, err
	}
	return in.(map[string]any), nil
}

func (m *Model) writeJSON(w http.ResponseWriter, op *operation, out map[string]any) {
	w.Header().Set("Content-Type", m.jsonContentType())
	b, _ := json.Marshal(toJSON(op.output, "", out, false))
	w.Write(b)
}

// writeJSONError answers an error as the awsJson protocols do. An
// awsQueryCompatible service (SQS) also names the error's awsQuery code in
// a header, which the SDK reports as the error's code.
func (m *Model) writeJSONError(w http.ResponseWriter, status int, code, message string, s *shape) {
	w.Header().Set("Content-Type", m.jsonContentType())
	if m.queryCompatible && s != nil && s.queryCode != "" {
		fault := "Sender"
		if status >= 500 {
			fault = "Receiver"
		}
		w.Header().Set("X-Amzn-Query-Error", s.queryCode+";"+fault)
	}
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"__type": code, messageMember(s): message})
	w.Write(b)
}

// messageMember is the name of an error shape's message member: models
// spell it "message" or "Message".
func messageMember(s *shape) string {
	if s != nil {
		for name := range s.members {
			if strings.EqualFold(name, "message") {
				return name
			}
		}
	}
	return "message"
}

// toJSON turns a checked value into what encoding/json writes: keys by
// jsonName when jsonName is set (restJson1), timestamps as epoch seconds
// unless the model says otherwise. Blobs are []byte, which encoding/json
// writes as base64, as the protocols want.
func toJSON(s *shape, format string, v any, jsonName bool) any {
	if s.typ == "document" {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			if s.typ == "map" {
				out[k] = toJSON(s.value.shape, s.value.timestamp, v, jsonName)
				continue
			}
			m := s.members[k]
			key := k
			if jsonName && m.jsonName != "" {
				key = m.jsonName
			}
			out[key] = toJSON(m.shape, m.timestamp, v, jsonName)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = toJSON(s.item.shape, s.item.timestamp, v, jsonName)
		}
		return out
	case time.Time:
		if format == "" || format == "epoch-seconds" {
			return json.Number(formatTime(x, "epoch-seconds"))
		}
		return formatTime(x, format)
	}
	return v
}
