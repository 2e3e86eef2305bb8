package airflow

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// pageSpec is one limit/offset listing.
type pageSpec[T any] struct {
	what     string // names the listing in errors and notes
	limit    int    // the limit asked per page
	maxPages int
	// par is how many pages may be read at once once the listing's size
	// is known; the calls themselves also wait for the source's limit.
	par  int
	key  func(T) string
	keep func(T) bool // nil keeps every item; the rest are dropped as their page arrives
	// fetch returns one page and the total_entries the server reported.
	fetch func(ctx context.Context, offset, limit int) ([]T, int, error)
	// first, when set, hears the pages the first page's total_entries
	// projects; note hears what the collection should say about the
	// listing (it changed while read).
	first func(pages int)
	note  func(string)
}

// page is one page read: its kept items and every item's key.
type page[T any] struct {
	offset, n, total int
	items            []T
	keys             []string
	err              error
}

// pageAll walks a limit/offset listing to its end under a remote.Pager of
// at most maxPages pages. The first two pages are read one after the
// other: the first says how many entries there are (total_entries), the
// second that the server honours the offset (a page holding only the
// items of the page before stops the listing). The rest are read par at
// a time, in offset order, each filtered as it arrives, so a listing
// holds only what it keeps. A total that grows while the listing is read
// has its new tail read too, and is noted; one that shrinks (entries went
// away, so one may have moved onto a page already read) is an error at
// the listing's unit, so nothing it held is concluded gone. A page holding an item
// without a key, reaching maxPages (a huge total_entries) or a server
// error ends the walk with an error: a listing that does not end is an
// error at its unit, never a loop.
func pageAll[T any](ctx context.Context, s pageSpec[T]) ([]T, error) {
	l := &lister[T]{s: &s, seen: map[string]bool{}}
	l.pager = remote.Pager{What: s.what, Max: s.maxPages, MaxKey: "max_pages"}
	if s.keep != nil {
		// Only the kept items are held; the repeat check looks at the
		// pages just before, which is where an offset-ignoring server
		// repeats itself.
		l.pager.Window = 2
	}
	out, err := l.walk(ctx)
	if err == nil && l.shrank {
		// An entry that moved to a page already read is missing, and
		// nothing says which: the unit did not answer fully this run.
		return nil, fmt.Errorf("%s: entries went away while the listing was read (%d at first, %d at the end): one may be missing, so this listing is not used this run",
			s.what, l.firstTotal, l.lastTotal)
	}
	if err == nil && l.changed && s.note != nil {
		s.note(fmt.Sprintf("%s: the listing changed while it was read (%d entries at first, %d at the end); an entry that moved between pages may be missing from this run",
			s.what, l.firstTotal, l.lastTotal))
	}
	return out, err
}

type lister[T any] struct {
	s     *pageSpec[T]
	pager remote.Pager
	seen  map[string]bool // keys of the kept items
	out   []T

	firstTotal, lastTotal, high int
	changed                     bool
	shrank                      bool // entries went away while read: one may have been skipped
}

func (l *lister[T]) fetch(ctx context.Context, offset, limit int) page[T] {
	items, total, err := l.s.fetch(ctx, offset, limit)
	p := page[T]{offset: offset, n: len(items), total: total, err: err}
	if err != nil {
		return p
	}
	p.keys = make([]string, len(items))
	for i, it := range items {
		if p.keys[i] = l.s.key(it); p.keys[i] == "" {
			p.err = fmt.Errorf("%s: page at offset %d holds an entry without its id", l.s.what, offset)
			return p
		}
		if l.s.keep == nil || l.s.keep(it) {
			p.items = append(p.items, it)
		}
	}
	return p
}

// take records a page read in order; next is the offset after it, "" when
// it is the last.
func (l *lister[T]) take(p page[T], next string) error {
	if p.err != nil {
		return p.err
	}
	if l.pager.Pages() == 0 {
		l.firstTotal, l.high = p.total, p.total
	} else if p.total != l.lastTotal {
		l.changed = true
		l.shrank = l.shrank || p.total < l.lastTotal
	}
	l.lastTotal, l.high = p.total, max(l.high, p.total)
	for _, it := range p.items {
		if k := l.s.key(it); !l.seen[k] {
			l.seen[k] = true
			l.out = append(l.out, it)
		}
	}
	return l.pager.Next(next, p.keys...)
}

func (l *lister[T]) walk(ctx context.Context) ([]T, error) {
	var prev map[string]bool // the keys of the page before
	for offset := 0; ; {
		p := l.fetch(ctx, offset, l.s.limit)
		if p.err != nil {
			return l.out, p.err
		}
		fresh := 0
		for _, k := range p.keys {
			if !prev[k] {
				fresh++
			}
		}
		offset += p.n
		last := p.n == 0 || (p.total > 0 && offset >= p.total) || (p.total <= 0 && p.n < l.s.limit)
		next := ""
		if !last || (p.n > 0 && fresh == 0) {
			// A page of entries already read is never taken for the last
			// one: the server ignores offset, and its total would end the
			// listing short. The pager stops it.
			next = strconv.Itoa(offset)
		}
		if l.pager.Pages() == 0 && l.s.first != nil && p.total > 0 && p.n > 0 {
			l.s.first((p.total + p.n - 1) / p.n)
		}
		if err := l.take(p, next); err != nil {
			return l.out, err
		}
		if next == "" {
			return l.out, nil
		}
		if p.total > 0 && l.pager.Pages() >= 2 && l.s.par > 1 {
			return l.fanOut(ctx, offset, p.n)
		}
		prev = make(map[string]bool, len(p.keys))
		for _, k := range p.keys {
			prev[k] = true
		}
	}
}

// fanOut reads the listing from offset from to the most entries any page
// announced, step entries a page, in rounds: a total that grew while a
// round was read adds a round for the new tail.
func (l *lister[T]) fanOut(ctx context.Context, from, step int) ([]T, error) {
	for {
		left := l.s.maxPages - l.pager.Pages()
		var offsets []int
		for o := from; o < l.high && len(offsets) < max(left, 1); o += step {
			offsets = append(offsets, o)
		}
		capped := from+len(offsets)*step < l.high
		end, err := l.round(ctx, offsets, step, capped)
		if err != nil || end <= from || end >= l.high {
			return l.out, err
		}
		from = end
	}
}

// round reads the pages at offsets, at most par ahead of the first one
// not yet taken, and takes them in order. It returns the offset after the
// last page read.
func (l *lister[T]) round(ctx context.Context, offsets []int, step int, capped bool) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	res := make([]chan page[T], len(offsets))
	for i := range res {
		res[i] = make(chan page[T], 1)
	}
	// ahead bounds the pages read but not yet taken, so a slow page holds
	// back at most that many; inFlight the pages being read.
	ahead := make(chan struct{}, 2*l.s.par)
	inFlight := make(chan struct{}, l.s.par)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, o := range offsets {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case inFlight <- struct{}{}:
				case <-ctx.Done():
					res[i] <- page[T]{offset: o, err: context.Cause(ctx)}
					return
				}
				defer func() { <-inFlight }()
				res[i] <- l.fetch(ctx, o, l.s.limit)
			}()
		}
	}()
	end := 0
	for i, o := range offsets {
		var p page[T]
		select {
		case p = <-res[i]:
		case <-ctx.Done():
			return end, fmt.Errorf("%s: page at offset %d not read: %w", l.s.what, o, context.Cause(ctx))
		}
		<-ahead
		end = o + p.n
		next := ""
		switch {
		case i < len(offsets)-1:
			next = strconv.Itoa(offsets[i+1])
			if p.err == nil && p.n < step {
				l.changed, l.shrank = true, true // a short page in the middle: entries went away
			}
		case capped:
			// The pager stops the listing at max_pages.
			next = strconv.Itoa(o + step)
		case p.n > 0 && max(l.high, p.total) > end:
			// The total grew while the round was read: read its tail.
			next = strconv.Itoa(end)
		case p.err == nil && max(l.high, p.total) > end:
			l.changed, l.shrank = true, true // fewer entries served than announced
		}
		if err := l.take(p, next); err != nil {
			return end, err
		}
	}
	return end, nil
}
