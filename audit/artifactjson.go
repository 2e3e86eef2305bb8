package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/bfaudit/bfaudit/model"
)

// Artifacts are nearly all of a large estate, so they are read by hand:
// fastArtifact takes the common shape (an object of plain strings, string
// maps and times) straight from the bytes, interning as it goes, and
// leaves anything else (a value of another type, a key in another case
// than ASCII, a map given twice, a syntax error) to encoding/json, which
// then reads the whole entry with its usual rules and errors. The fuzz
// test FuzzArtifactMatchesUnmarshal holds the two to the same result.

// artifactField is a json field of model.Artifact.
type artifactField int

const (
	fUnknown artifactField = iota
	fKind
	fSystem
	fSource
	fScope
	fURI
	fName
	fBackfillID
	fOwner
	fLabels
	fCreatedAt
	fLastUsedAt
	fModifiedAt
	fExpiresAt
	fState
	fAttributes
	fCorrelation
)

var artifactFields = map[string]artifactField{
	"kind": fKind, "system": fSystem, "source": fSource, "scope": fScope, "uri": fURI, "name": fName,
	"backfill_id": fBackfillID, "owner": fOwner, "labels": fLabels, "created_at": fCreatedAt,
	"last_used_at": fLastUsedAt, "modified_at": fModifiedAt, "expires_at": fExpiresAt, "state": fState,
	"attributes": fAttributes, "correlation": fCorrelation,
}

// fieldOf matches a key as encoding/json does for ASCII keys: exactly, or
// else without regard to case.
func fieldOf(key []byte) artifactField {
	if f, ok := artifactFields[string(key)]; ok {
		return f
	}
	if len(key) > len("last_used_at") {
		return fUnknown
	}
	var lower [16]byte
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return artifactFields[string(lower[:len(key)])]
}

// decodeArtifact reads one entry of the artifacts list.
func (in *interner) decodeArtifact(raw []byte, off int64, a *model.Artifact) error {
	if in.fastArtifact(raw, a) {
		return nil
	}
	*a = model.Artifact{}
	if err := unmarshalAt(raw, off, a); err != nil {
		return err
	}
	in.artifact(a)
	return nil
}

// cursor reads the bytes of one entry.
type cursor struct {
	b []byte
	i int
}

func (p *cursor) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *cursor) eat(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *cursor) literal(word string) bool {
	p.ws()
	if bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		p.i += len(word)
		return true
	}
	return false
}

// str reads a string token and returns its raw content (between the
// quotes) and whether that is already the string: no escape, no control
// character, valid UTF-8.
func (p *cursor) str() (content []byte, plain, ok bool) {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false, false
	}
	start := p.i + 1
	ascii := true
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			content = p.b[start:j]
			return content, ascii || utf8.Valid(content), true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return nil, false, false // not JSON: encoding/json says so
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false, false
}

// escaped finds the end of a string with escapes in it, for encoding/json
// to decode.
func (p *cursor) escaped(start int) ([]byte, bool, bool) {
	for j := start; j < len(p.b); j++ {
		switch p.b[j] {
		case '\\':
			j++
		case '"':
			p.i = j + 1
			return p.b[start:j], false, true
		}
	}
	return nil, false, false
}

// stringValue reads a string as encoding/json would decode it, interned
// when keep is set.
func (in *interner) stringValue(p *cursor, keep bool) (string, bool) {
	content, plain, ok := p.str()
	if !ok {
		return "", false
	}
	if !plain {
		var s string
		if json.Unmarshal(p.b[p.i-len(content)-2:p.i], &s) != nil {
			return "", false
		}
		if keep {
			in.s(&s)
		}
		return s, true
	}
	if !keep {
		return string(content), true
	}
	if s, ok := in.strs[string(content)]; ok {
		return s, true
	}
	s := string(content)
	in.strs[s] = s
	return s, true
}

// timeToken reads a time: a string or null, given to Time.UnmarshalJSON
// as encoding/json does.
func (p *cursor) timeToken() ([]byte, bool) {
	p.ws()
	start := p.i
	if p.literal("null") {
		return p.b[start:p.i], true
	}
	if _, _, ok := p.str(); !ok {
		return nil, false
	}
	return p.b[start:p.i], true
}

// fastArtifact reads a on its common shape, reporting false (a then
// undefined) when encoding/json must read it instead.
func (in *interner) fastArtifact(raw []byte, a *model.Artifact) bool {
	*a = model.Artifact{}
	p := &cursor{b: raw}
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		p.ws()
		return p.i == len(p.b)
	}
	for {
		key, plain, ok := p.str()
		if !ok || !plain || !isASCII(key) || !p.eat(':') {
			return false
		}
		f := fieldOf(key)
		var s *string
		switch f {
		case fKind, fState:
			// Named string types: read below into a string.
		case fSystem:
			s = &a.System
		case fSource:
			s = &a.Source
		case fScope:
			s = &a.Scope
		case fURI:
			s = &a.URI
		case fName:
			s = &a.Name
		case fBackfillID:
			s = &a.BackfillID
		case fOwner:
			s = &a.Owner
		case fCorrelation:
			s = &a.Correlation
		}
		switch f {
		case fUnknown:
			if !skip(p) {
				return false
			}
		case fLabels, fAttributes:
			m := &a.Labels
			if f == fAttributes {
				m = &a.Attributes
			}
			if *m != nil || !in.stringMap(p, m) {
				return false // a map given twice is merged by encoding/json
			}
		case fCreatedAt, fLastUsedAt, fModifiedAt, fExpiresAt:
			tok, ok := p.timeToken()
			if !ok {
				return false
			}
			var err error
			switch f {
			case fCreatedAt:
				err = a.CreatedAt.UnmarshalJSON(tok)
			case fLastUsedAt:
				err = a.LastUsedAt.UnmarshalJSON(tok)
			case fModifiedAt:
				err = a.ModifiedAt.UnmarshalJSON(tok)
			case fExpiresAt:
				err = a.ExpiresAt.UnmarshalJSON(tok)
			}
			if err != nil {
				return false
			}
		default:
			if p.literal("null") {
				break // encoding/json leaves a string as it was
			}
			// Only URIs and names are one per artifact; the rest repeat.
			v, ok := in.stringValue(p, f != fURI && f != fName)
			if !ok {
				return false
			}
			switch f {
			case fKind:
				a.Kind = model.Kind(v)
			case fState:
				a.State = model.State(v)
			default:
				*s = v
			}
		}
		if p.eat(',') {
			continue
		}
		if !p.eat('}') {
			return false
		}
		p.ws()
		if p.i != len(p.b) {
			return false
		}
		// A name is often the end of the URI: then it shares its bytes.
		if a.Name != "" && strings.HasSuffix(a.URI, a.Name) {
			a.Name = a.URI[len(a.URI)-len(a.Name):]
		}
		return true
	}
}

// stringMap reads an object of strings (or null) into *m, sharing the
// interner's copy of a map with the same content.
func (in *interner) stringMap(p *cursor, m **model.Tags) bool {
	if p.literal("null") {
		*m = nil
		return true
	}
	if !p.eat('{') {
		return false
	}
	in.pairs = in.pairs[:0]
	if !p.eat('}') {
		for {
			k, ok := in.rawString(p)
			if !ok || !p.eat(':') {
				return false
			}
			v, ok := in.rawString(p)
			if !ok {
				return false // null or another type: encoding/json's rules
			}
			in.pairs = append(in.pairs, pair{k, v})
			if p.eat(',') {
				continue
			}
			if !p.eat('}') {
				return false
			}
			break
		}
	}
	shared, ok := in.sharedMap(in.pairs)
	*m = shared
	return ok
}

// rawString reads a string as encoding/json decodes it, as bytes: a slice
// of the entry when it has nothing to decode.
func (in *interner) rawString(p *cursor) ([]byte, bool) {
	content, plain, ok := p.str()
	if !ok {
		return nil, false
	}
	if plain {
		return content, true
	}
	var s string
	if json.Unmarshal(p.b[p.i-len(content)-2:p.i], &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// skip steps over a value of a key model.Artifact does not have, which
// must still be JSON.
func skip(p *cursor) bool {
	p.ws()
	start := p.i
	depth := 0
	for p.i < len(p.b) {
		switch c := p.b[p.i]; c {
		case '"':
			if _, _, ok := p.str(); !ok {
				return false
			}
			if depth == 0 {
				return json.Valid(p.b[start:p.i])
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return json.Valid(p.b[start:p.i])
			}
			depth--
			if depth == 0 {
				p.i++
				return json.Valid(p.b[start:p.i])
			}
		case ',':
			if depth == 0 {
				return json.Valid(p.b[start:p.i])
			}
		}
		p.i++
	}
	return false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
