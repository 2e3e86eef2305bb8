package audit

import (
	"errors"
	"fmt"
	"io"
)

// scanner reads a JSON document a value at a time from a stream, with a
// buffer of its own: it finds where each value ends (strings, brackets
// and nesting) and hands out its bytes, which encoding/json or the
// artifact decoder then read. It does not check values itself: whoever
// reads them does, and a value they refuse is reported by its offset.
type scanner struct {
	r   io.Reader
	buf []byte
	pos int   // next byte to read in buf
	off int64 // offset in the stream of buf[0]
	eof bool
	err error // from r, other than io.EOF
}

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, 0, 256<<10)}
}

// syntaxError is a place in the document that is not JSON.
type syntaxError struct {
	msg    string
	offset int64
}

func (e *syntaxError) Error() string { return e.msg }

func (s *scanner) errorf(format string, args ...any) error {
	return &syntaxError{msg: fmt.Sprintf(format, args...), offset: s.off + int64(s.pos)}
}

// fill reads more input, keeping buf[keep:]; it reports whether there is
// more.
func (s *scanner) fill(keep int) bool {
	if s.eof || s.err != nil {
		return false
	}
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:])
		s.buf = s.buf[:n]
		s.pos -= keep
		s.off += int64(keep)
	}
	if len(s.buf) == cap(s.buf) {
		s.buf = append(s.buf, make([]byte, cap(s.buf))...)[:len(s.buf)]
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	switch {
	case errors.Is(err, io.EOF):
		s.eof = true
	case err != nil:
		s.err = err
	}
	return n > 0 || (!s.eof && s.err == nil)
}

// peek returns the next byte that is not white space, without reading
// it; false at the end of the input.
func (s *scanner) peek() (byte, bool) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, true
			}
		}
		if !s.fill(s.pos) {
			return 0, false
		}
	}
}

// expect reads the next byte, which must be c.
func (s *scanner) expect(c byte, what string) error {
	switch got, ok := s.peek(); {
	case !ok:
		return s.end()
	case got == c:
		s.pos++
		return nil
	default:
		return s.errorf("invalid character %q %s", got, what)
	}
}

// end is the error for input that stops too early.
func (s *scanner) end() error {
	if s.err != nil {
		return s.err
	}
	return io.ErrUnexpectedEOF
}

// value reads the next value and returns its bytes, good until the next
// call, and its offset in the stream. It finds where the value ends:
// the closing quote or bracket, or for a number or literal the next
// delimiter.
func (s *scanner) value() ([]byte, int64, error) {
	first, ok := s.peek()
	if !ok {
		return nil, 0, s.end()
	}
	switch first {
	case ',', ':', ']', '}':
		return nil, 0, s.errorf("invalid character %q looking for beginning of value", first)
	}
	start, i := s.pos, s.pos
	depth, inString := 0, false
scan:
	for {
		if i+1 >= len(s.buf) && !s.eof {
			// Room to look one byte ahead (an escape), and more input.
			// fill moves the value to the front of the buffer.
			n := i - start
			more := s.fill(start)
			start, i = 0, n
			if more {
				continue
			}
		}
		if i >= len(s.buf) {
			if depth == 0 && !inString && first != '"' && i > start {
				break scan // a number or literal at the end of the input
			}
			return nil, 0, s.end()
		}
		c := s.buf[i]
		if inString {
			switch c {
			case '\\':
				i += 2
				continue
			case '"':
				inString = false
				i++
				if depth == 0 {
					s.pos = i
					return s.buf[start:i], s.off + int64(start), nil
				}
				continue
			}
			i++
			continue
		}
		switch c {
		case '"':
			if i > start && depth == 0 {
				break scan // after a number or literal: not part of it
			}
			inString = true
			i++
			continue
		case '{', '[':
			if i > start && depth == 0 {
				break scan
			}
			depth++
			i++
			continue
		case '}', ']':
			if depth == 0 {
				break scan
			}
			depth--
			i++
			if depth == 0 {
				s.pos = i
				return s.buf[start:i], s.off + int64(start), nil
			}
			continue
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				break scan // the end of a number or literal
			}
		}
		i++
	}
	s.pos = i
	return s.buf[start:i], s.off + int64(start), nil
}
