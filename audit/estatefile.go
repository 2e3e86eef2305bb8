package audit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/jsonstream"
	"github.com/bfaudit/bfaudit/internal/safefile"
	"github.com/bfaudit/bfaudit/model"
)

// SaveEstate writes an estate as JSON, so it can be audited elsewhere.
// Empty lists are written as [] (never null), which LoadEstate requires.
// Entries are written one at a time through a buffer: an estate of a
// million artifacts is never held as text.
func SaveEstate(path string, est *model.Estate) error {
	out := *est
	out.Backfills = orEmpty(out.Backfills)
	out.Artifacts = orEmpty(out.Artifacts)
	out.Records = orEmpty(out.Records)
	out.Coverage = orEmpty(out.Coverage)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write estate: %w", err)
	}
	err = jsonstream.Encode(f, &out)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write estate %s: %w", path, err)
	}
	return nil
}

// syntaxLine returns ":LINE" for a JSON syntax error, counting the line
// breaks before its offset in the file: the error path only.
func syntaxLine(path string, err error) string {
	var se *syntaxError
	if !errors.As(err, &se) {
		return ""
	}
	f, oerr := os.Open(path)
	if oerr != nil {
		return ""
	}
	defer f.Close()
	line := 1
	r := bufio.NewReader(io.LimitReader(f, se.offset))
	for {
		_, rerr := r.ReadSlice('\n')
		if rerr == nil {
			line++
		} else if !errors.Is(rerr, bufio.ErrBufferFull) {
			break
		}
	}
	return fmt.Sprintf(":%d", line)
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// MaxEstateSize caps the estate file LoadEstate reads. The file is decoded
// as it is read, so this bounds the estate, not a buffer: a million
// artifacts take about 500 MB of indented JSON.
const MaxEstateSize = 4 << 30

// LoadEstate reads an estate saved by SaveEstate; errors name the file and
// what is wrong with it. Only a regular file is read, and an estate that
// says nothing (an empty file, a list that is null or missing) is an
// error, not an empty estate: audited, it would resolve every finding.
func LoadEstate(path string) (*model.Estate, error) { return loadEstate(path, nil) }

// loadEstate is LoadEstate with an interner shared by estates read
// together (nil for one of its own).
func loadEstate(path string, in *interner) (*model.Estate, error) {
	f, err := safefile.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("estate %s: file not found", path)
	case err != nil:
		return nil, fmt.Errorf("estate: %w", err) // safefile names the path
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("estate %s: %w", path, err)
	}
	if st.Size() > MaxEstateSize {
		return nil, fmt.Errorf("estate %s: %w (%d bytes, limit %d)", path, safefile.ErrTooLarge, st.Size(), int64(MaxEstateSize))
	}
	// The size can change after Stat; never read past the limit.
	est, err := decodeEstateWith(bufio.NewReaderSize(io.LimitReader(f, MaxEstateSize+1), 256<<10), in)
	switch {
	case errors.Is(err, errEmpty):
		return nil, fmt.Errorf("estate %s: the file is empty (save it again with `bfaudit collect --out`)", path)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("estate %s: the file ends before the estate does: it was cut short (save it again with `bfaudit collect --out`)", path)
	case err != nil:
		return nil, fmt.Errorf("estate %s%s: %v", path, syntaxLine(path, err), err)
	}
	if est.Version != model.EstateVersion {
		return nil, fmt.Errorf("estate %s: version: got %d, this bfaudit reads version %d (save it again with `bfaudit collect`)", path, est.Version, model.EstateVersion)
	}
	// A list is nil when it was null or missing, and [] makes an empty
	// non-nil slice.
	for _, l := range []struct {
		key     string
		missing bool
	}{
		{"backfills", est.Backfills == nil}, {"artifacts", est.Artifacts == nil},
		{"records", est.Records == nil}, {"coverage", est.Coverage == nil},
	} {
		if l.missing {
			return nil, fmt.Errorf("estate %s: %s: null or missing where a list is expected (write [] for none)", path, l.key)
		}
	}
	if err := checkEntries(est); err != nil {
		return nil, fmt.Errorf("estate %s: %w", path, err)
	}
	collectors.Sort(est)
	return est, nil
}

// checkEntries refuses entries that are null or lack what identifies them.
func checkEntries(est *model.Estate) error {
	for i, a := range est.Artifacts {
		if a.URI == "" || !a.Kind.IsValid() {
			return fmt.Errorf("artifacts[%d]: needs a uri and a known kind (got kind %q)", i, a.Kind)
		}
	}
	for i, b := range est.Backfills {
		if b.ID == "" {
			return fmt.Errorf("backfills[%d]: needs an id", i)
		}
	}
	for i, r := range est.Records {
		if r.BackfillID == "" {
			return fmt.Errorf("records[%d]: needs a backfill_id", i)
		}
	}
	for i, c := range est.Coverage {
		if c.Source == "" {
			return fmt.Errorf("coverage[%d]: needs a source", i)
		}
	}
	return nil
}
