package smithy

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// awsQuery: a form body (Action, Version, then the input flattened into
// keys: Tags.member.1.Key), answered in XML
// (<OpResponse><OpResult>...</OpResult></OpResponse>), errors as
// <ErrorResponse><Error><Code>.

func (m *Model) checkQuery(r *http.Request, body []byte) (Call, error) {
	if r.Method != http.MethodPost {
		return Call{}, fmt.Errorf("awsQuery is sent with POST, not %s", r.Method)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		return Call{}, fmt.Errorf("Content-Type %q, awsQuery's is application/x-www-form-urlencoded", ct)
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return Call{}, fmt.Errorf("the form body does not parse: %v", err)
	}
	for k, v := range form {
		if len(v) > 1 {
			return Call{}, fmt.Errorf("form key %s is sent %d times", k, len(v))
		}
	}
	op := m.ops[form.Get("Action")]
	if op == nil {
		return Call{}, fmt.Errorf("unknown operation: Action=%q", form.Get("Action"))
	}
	if v := form.Get("Version"); v != m.Version {
		return Call{}, fmt.Errorf("%s: Version=%q, the model's is %s", op.name, v, m.Version)
	}
	seen := map[string]bool{"Action": true, "Version": true}
	// A misspelt member is named before the walk calls a required one missing.
	for _, k := range sortedKeys(form) {
		top, _, _ := strings.Cut(k, ".")
		if !seen[k] && op.input.queryMember(top) == nil {
			return Call{}, fmt.Errorf("%s: unknown member %q", op.name, k)
		}
	}
	in, _, err := readQuery(op.input, nil, "", form, seen, "")
	if err != nil {
		return Call{}, fmt.Errorf("%s: %w", op.name, err)
	}
	for _, k := range sortedKeys(form) {
		if !seen[k] {
			return Call{}, fmt.Errorf("%s: unknown member %q", op.name, k)
		}
	}
	return Call{Operation: op.name, Input: in.(map[string]any)}, nil
}

// queryMember finds a structure's member by its name in a form key.
func (s *shape) queryMember(key string) *member {
	for _, m := range s.members {
		if key == queryName(m) {
			return m
		}
	}
	return nil
}

func queryName(m *member) string {
	if m.xmlName != "" {
		return m.xmlName
	}
	return m.name
}

// readQuery reads the value of shape s at form key k (the member m's),
// marking the keys it reads in seen; found is false when nothing is there.
func readQuery(s *shape, m *member, k string, form url.Values, seen map[string]bool, at string) (v any, found bool, err error) {
	dot := func(name string) string {
		if k == "" {
			return name
		}
		return k + "." + name
	}
	if at != "" && !sent(form, k) {
		return nil, false, nil // and a shape that holds itself ends here
	}
	flattened := m != nil && m.flattened
	switch s.typ {
	case "structure", "union":
		out := map[string]any{}
		for _, mb := range s.sortedMembers() {
			v, ok, err := readQuery(mb.shape, mb, dot(queryName(mb)), form, seen, join(at, mb.name))
			if err != nil {
				return nil, false, err
			}
			if ok {
				out[mb.name] = v
			}
		}
		if len(out) == 0 && at != "" { // absent; the input itself is always there
			return nil, false, nil
		}
		return out, true, missingRequired(s, out, at)
	case "list", "set", "map":
		if v, ok := form[k]; ok && v[0] == "" { // an empty list is sent as "Key="
			seen[k] = true
			return []any{}, true, nil
		}
		base := k // flattened: Key.1, else Key.member.1 (Key.entry.1 for a map)
		if !flattened && s.typ == "map" {
			base = dot("entry")
		} else if !flattened {
			base = dot(cmp.Or(s.item.xmlName, "member"))
		}
		if s.typ == "map" {
			return readQueryMap(s, base, form, seen, at)
		}
		var out []any
		for i := 1; ; i++ {
			v, ok, err := readQuery(s.item.shape, s.item, base+"."+strconv.Itoa(i), form, seen, fmt.Sprintf("%s[%d]", at, i-1))
			if err != nil || !ok {
				return out, len(out) > 0, err
			}
			out = append(out, v)
		}
	}
	raw, ok := form[k]
	if !ok {
		return nil, false, nil
	}
	seen[k] = true
	format := ""
	if m != nil {
		format = m.timestamp
	}
	v, err = fromText(s, format, raw[0], at)
	return v, err == nil, err
}

// sent says whether the form has key k or keys under it (k.member.1...).
func sent(form url.Values, k string) bool {
	for key := range form {
		if key == k || strings.HasPrefix(key, k+".") {
			return true
		}
	}
	return false
}

// readQueryMap reads a map's entries: base.1.key, base.1.value...
func readQueryMap(s *shape, base string, form url.Values, seen map[string]bool, at string) (any, bool, error) {
	out := map[string]any{}
	for i := 1; ; i++ {
		entry := base + "." + strconv.Itoa(i) + "."
		key, ok, err := readQuery(s.key.shape, s.key, entry+cmp.Or(s.key.xmlName, "key"), form, seen, at)
		if err != nil || !ok {
			return out, len(out) > 0, err
		}
		kat := fmt.Sprintf("%s[%q]", at, key)
		v, ok, err := readQuery(s.value.shape, s.value, entry+cmp.Or(s.value.xmlName, "value"), form, seen, kat)
		if err == nil && !ok {
			err = fmt.Errorf("%s: a map key without a value", kat)
		}
		if err != nil {
			return nil, false, err
		}
		out[key.(string)] = v
	}
}

// writeQuery answers an operation's output (already checked) in awsQuery's XML.
func (m *Model) writeQuery(w http.ResponseWriter, op *operation, out map[string]any) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<%sResponse xmlns="%s">`, op.name, m.xmlNamespace)
	if len(op.output.members) > 0 {
		writeXML(&b, op.name+"Result", op.output, nil, out)
	}
	fmt.Fprintf(&b, `<ResponseMetadata><RequestId>%s</RequestId></ResponseMetadata></%sResponse>`, requestID, op.name)
	w.Header().Set("Content-Type", "text/xml")
	w.Write(b.Bytes())
}

// writeQueryError answers an error as awsQuery does.
func writeQueryError(w http.ResponseWriter, status int, code, message string) {
	var b bytes.Buffer
	kind := "Sender"
	if status >= 500 {
		kind = "Receiver"
	}
	fmt.Fprintf(&b, `<ErrorResponse><Error><Type>%s</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>%s</RequestId></ErrorResponse>`,
		kind, escape(code), escape(message), requestID)
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// writeXML writes value v of shape s as element name; m is the member
// that holds it (nil at the top).
func writeXML(b *bytes.Buffer, name string, s *shape, m *member, v any) {
	switch s.typ {
	case "structure", "union":
		fmt.Fprintf(b, "<%s>", name)
		got := v.(map[string]any)
		for _, mb := range s.sortedMembers() {
			if v, ok := got[mb.name]; ok {
				writeXML(b, queryName(mb), mb.shape, mb, v)
			}
		}
		fmt.Fprintf(b, "</%s>", name)
		return
	case "list", "set", "map":
		// <Name><member>..</member></Name>, <Name><entry><key>..; flattened:
		// the items (entries) repeat as <Name> themselves.
		item := cmp.Or(s.item, s.value)
		each := cmp.Or(item.xmlName, "member")
		if s.typ == "map" {
			each = "entry"
		}
		flat := m != nil && m.flattened
		if flat {
			each = name
		} else {
			fmt.Fprintf(b, "<%s>", name)
		}
		if s.typ != "map" {
			for _, v := range v.([]any) {
				writeXML(b, each, item.shape, item, v)
			}
		}
		entries, _ := v.(map[string]any)
		for _, k := range sortedKeys(entries) {
			fmt.Fprintf(b, "<%s>", each)
			writeXML(b, cmp.Or(s.key.xmlName, "key"), s.key.shape, s.key, k)
			writeXML(b, cmp.Or(s.value.xmlName, "value"), s.value.shape, s.value, entries[k])
			fmt.Fprintf(b, "</%s>", each)
		}
		if !flat {
			fmt.Fprintf(b, "</%s>", name)
		}
		return
	}
	var text string
	switch x := v.(type) {
	case time.Time:
		text = formatTime(x, m.timestamp)
	case []byte:
		text = base64.StdEncoding.EncodeToString(x)
	case float64:
		text = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		text = fmt.Sprint(x)
	}
	fmt.Fprintf(b, "<%s>%s</%s>", name, escape(text), name)
}

func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
