// Package jsonstream writes a large JSON document a piece at a time, with
// the bytes json.MarshalIndent(v, "", "  ") would give for the whole
// value, so reports and saved estates of a million entries never sit in
// memory twice (once marshalled, once re-indented). The caller walks its
// value: objects and arrays it opens here, everything else it hands to
// Value, which encoding/json marshals and indents at the right depth.
package jsonstream

import (
	"bufio"
	"encoding/json"
	"io"
	"reflect"
	"strings"
)

// Writer writes one JSON document through a buffer. The first error sticks
// and is returned by Flush.
type Writer struct {
	w      *bufio.Writer
	enc    *json.Encoder // compact, into indenter
	depth  int           // of the value being encoded
	buf    []byte
	custom map[reflect.Type]func(dst []byte, v any, depth int) ([]byte, error)
	err    error
}

// New returns a Writer on w.
func New(w io.Writer) *Writer {
	s := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	s.enc = json.NewEncoder(indenter{s})
	return s
}

// Flush writes what is buffered and returns the first error met.
func (s *Writer) Flush() error {
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

func (s *Writer) raw(str string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(str)
	}
}

func (s *Writer) bytes(b []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

const indents = "\n                                                                "

// newline starts a line at depth.
func (s *Writer) newline(depth int) {
	s.buf = AppendNewline(s.buf[:0], depth)
	s.bytes(s.buf)
}

// AppendNewline appends a line break and the indent of depth.
func AppendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for n := 2 * depth; n > 0; n -= len(indents) - 1 {
		dst = append(dst, indents[1:1+min(n, len(indents)-1)]...)
	}
	return dst
}

// value writes v marshalled and indented as if it sat at depth.
func (s *Writer) value(depth int, v any) {
	if s.err != nil {
		return
	}
	s.depth = depth
	if err := s.enc.Encode(v); err != nil && s.err == nil {
		s.err = err
	}
}

// indenter receives a value json.Encoder marshalled (compact, with a
// newline after it) and writes it indented.
type indenter struct{ s *Writer }

func (in indenter) Write(b []byte) (int, error) {
	s := in.s
	s.buf = appendIndent(s.buf[:0], b[:len(b)-1], s.depth)
	s.bytes(s.buf)
	return len(b), s.err
}

// AppendValue appends v marshalled by encoding/json and indented as if it
// sat at depth, for a caller writing an element by hand.
func AppendValue(dst []byte, v any, depth int) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return appendIndent(dst, b, depth), nil
}

// AppendString appends s as encoding/json writes a string (HTML
// characters escaped). Quotes and backslashes are escaped here; a string
// with anything else to escape (control characters, <, >, &, non-ASCII)
// is left to encoding/json.
func AppendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	for {
		i := strings.IndexAny(s, `"\`)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, '\\', s[i])
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendIndent appends compact JSON src indented as json.Indent would,
// with two spaces a level, starting at depth. encoding/json's own
// indenting runs its validating scanner over every byte and cost more than
// the marshalling; this needs only to find strings and the brackets,
// commas and colons between them, since what encoding/json marshalled is
// valid JSON without any spaces.
func appendIndent(dst, src []byte, depth int) []byte {
	start, open := 0, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			// The first thing in an object or array starts a line;
			// an empty one stays {} or [].
			dst = append(dst, src[start:i]...)
			dst = AppendNewline(dst, depth)
			start, open = i, false
		}
		switch c {
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			open = true
		case '}', ']':
			depth--
			if open {
				open = false
				continue
			}
			dst = append(dst, src[start:i]...)
			dst = AppendNewline(dst, depth)
			start = i
		case ',':
			dst = append(dst, src[start:i+1]...)
			dst = AppendNewline(dst, depth)
			start = i + 1
		case ':':
			dst = append(dst, src[start:i+1]...)
			dst = append(dst, ' ')
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}

// Object opens the document's top-level object.
func (s *Writer) Object() *Object {
	s.raw("{")
	return &Object{s: s}
}

// Object is an object being written, one field at a time.
type Object struct {
	s      *Writer
	depth  int
	fields int
}

// key starts a field. Names are the caller's own field names, plain
// ASCII that JSON needs no escape for.
func (o *Object) key(name string) {
	if o.fields > 0 {
		o.s.raw(",")
	}
	o.fields++
	o.s.newline(o.depth + 1)
	o.s.raw(`"`)
	o.s.raw(name)
	o.s.raw(`": `)
}

// Field writes a field whose value encoding/json marshals.
func (o *Object) Field(name string, v any) {
	o.key(name)
	o.s.value(o.depth+1, v)
}

// Object opens a field that is an object.
func (o *Object) Object(name string) *Object {
	o.key(name)
	o.s.raw("{")
	return &Object{s: o.s, depth: o.depth + 1}
}

// Array opens a field that is an array.
func (o *Object) Array(name string) *Array {
	o.key(name)
	o.s.raw("[")
	return &Array{s: o.s, depth: o.depth + 1}
}

// End closes the object.
func (o *Object) End() {
	if o.fields > 0 {
		o.s.newline(o.depth)
	}
	o.s.raw("}")
	if o.depth == 0 {
		o.s.raw("\n") // as json.Encoder ends a document
	}
}

// Array is an array being written, one element at a time.
type Array struct {
	s     *Writer
	depth int
	elems int
}

func (a *Array) next() {
	if a.elems > 0 {
		a.s.raw(",")
	}
	a.elems++
	a.s.newline(a.depth + 1)
}

// Elem writes an element that encoding/json marshals. Pass a pointer to a
// large struct: it marshals the same and is not copied.
func (a *Array) Elem(v any) {
	a.next()
	a.s.value(a.depth+1, v)
}

// Object opens an element that is an object.
func (a *Array) Object() *Object {
	a.next()
	a.s.raw("{")
	return &Object{s: a.s, depth: a.depth + 1}
}

// End closes the array.
func (a *Array) End() {
	if a.elems > 0 {
		a.s.newline(a.depth)
	}
	a.s.raw("]")
}

// Encode writes the struct v points to as a whole document, field by field
// in the order and with the names, omitempty and omitzero of its json tags;
// a field that is a slice of structs or of pointers is written element by
// element, everything else is marshalled whole. A new field of the struct
// is written without any change here. A value this does not handle (not a
// pointer to a struct, a custom marshaller, an embedded field or the
// string option) is marshalled whole, the ordinary way.
func Encode(w io.Writer, v any, opts ...Option) error {
	s := New(w)
	for _, o := range opts {
		o(s)
	}
	if !fieldwise(v) {
		s.value(0, v)
		s.raw("\n")
		return s.Flush()
	}
	o := s.Object()
	o.writeFields(v)
	o.End()
	return s.Flush()
}

func fieldwise(v any) bool {
	if _, ok := v.(json.Marshaler); ok {
		return false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	t := rv.Elem().Type()
	for i := range t.NumField() {
		f := t.Field(i)
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous || hasOpt(opts, "string") {
			return false
		}
	}
	return true
}

func (o *Object) writeFields(v any) {
	rv := reflect.ValueOf(v).Elem()
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fv := rv.Field(i)
		if hasOpt(opts, "omitempty") && isEmpty(fv) || hasOpt(opts, "omitzero") && isZero(fv) {
			continue
		}
		if fv.Kind() == reflect.Slice && !fv.IsNil() && streamable(fv.Type().Elem().Kind()) {
			a := o.Array(name)
			write := o.s.custom[fv.Type().Elem()]
			for j := range fv.Len() {
				if write == nil {
					a.Elem(fv.Index(j).Addr().Interface())
					continue
				}
				a.next()
				var err error
				if o.s.buf, err = write(o.s.buf[:0], fv.Index(j).Addr().Interface(), a.depth+1); err != nil && o.s.err == nil {
					o.s.err = err
				}
				o.s.bytes(o.s.buf)
			}
			a.End()
			continue
		}
		o.Field(name, fv.Interface())
	}
}

// Option changes how Encode writes.
type Option func(*Writer)

// Elem makes Encode write every element of a []T field with write, which
// appends the element *v as json.MarshalIndent would at depth (its first
// line not indented). A hand-written writer for the one type a large
// document is made of is several times faster than encoding/json's
// reflection; test it against json.Marshal.
func Elem[T any](write func(dst []byte, v *T, depth int) ([]byte, error)) Option {
	return func(s *Writer) {
		if s.custom == nil {
			s.custom = map[reflect.Type]func([]byte, any, int) ([]byte, error){}
		}
		s.custom[reflect.TypeFor[T]()] = func(dst []byte, v any, depth int) ([]byte, error) { return write(dst, v.(*T), depth) }
	}
}

func streamable(k reflect.Kind) bool { return k == reflect.Struct || k == reflect.Pointer }

func hasOpt(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// isZero is encoding/json's omitzero test: an IsZero method, or the zero value.
func isZero(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	if v.CanAddr() {
		if z, ok := v.Addr().Interface().(interface{ IsZero() bool }); ok {
			return z.IsZero()
		}
	}
	return v.IsZero()
}
