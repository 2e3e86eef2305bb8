package remote

import "fmt"

// DefaultMaxPages is the most pages one listing reads unless a source says
// otherwise: 10 million objects at 1000 a page, past any real estate.
const DefaultMaxPages = 10_000

// Pager watches one paged listing for a server that never stops paging:
// every listing bfaudit reads (page tokens, page numbers, offsets, Link
// headers) records each page with Next, which fails when the listing must
// stop. A page must advance: the same cursor again, or a page holding only
// items already listed while the server asks for more, stops the listing
// with an error naming it, and so does a page past the cap. The zero value
// (with What set) is ready.
type Pager struct {
	// What names the listing in errors: the method and URL, without
	// credentials (redact.URL), such as "GET https://api.github.com/repos/o/r/issues".
	What string
	// Max caps the pages read; DefaultMaxPages when 0.
	Max int
	// MaxKey is the config key that sets Max (max_pages), named in the
	// error of a listing that reaches it: a deployment may really be
	// that large.
	MaxKey string
	// Announced is the item count the API said the listing holds, when it
	// says one; 0 when unknown. Far more items than announced stops it.
	Announced int64
	// Window, when positive, remembers the items of only the last Window
	// pages for the repeat check, so that a listing which keeps few of
	// the items it reads (filtered as each page arrives) holds no memory
	// per item read. A server that ignores the offset or the page token
	// still repeats the page before. 0 remembers every item.
	Window int

	pages   int
	items   int64
	cursors map[string]bool
	seen    map[string]int // items remembered, by key: how many pages hold it
	recent  [][]string     // with Window: the keys of the last pages
}

// Pages is how many pages were recorded.
func (p *Pager) Pages() int { return p.pages }

// Next records a page: next is the cursor of the page after it (a token,
// a page number, an offset, a URL; "" when this was the last), ids are
// the keys of the items it held ("" keys are not checked for repeats).
// It returns an error when the listing must stop, naming p.What; the
// caller then reports the listing incomplete, never short.
func (p *Pager) Next(next string, ids ...string) error {
	if p.cursors == nil {
		p.cursors, p.seen = map[string]bool{}, map[string]int{}
	}
	p.pages++
	p.items += int64(len(ids))
	fresh, keyed := 0, 0
	for _, id := range ids {
		if id == "" {
			continue
		}
		keyed++
		if p.seen[id] == 0 {
			fresh++
		}
	}
	p.remember(ids)
	if next == "" {
		return nil
	}
	max := p.Max
	if max <= 0 {
		max = DefaultMaxPages
	}
	switch {
	case keyed > 0 && fresh == 0:
		return p.stop("page %d repeats items already listed and the server asks for more", p.pages)
	case p.cursors[next]:
		// The cursor itself is not shown: a page token can be as long, and
		// as opaque, as a credential.
		return p.stop("page %d names a next page that was already read: the listing does not advance", p.pages)
	case p.pages >= max && p.MaxKey != "":
		return p.stop("still paging after %d pages (the most read from one listing; raise %s if it is that large)", p.pages, p.MaxKey)
	case p.pages >= max:
		return p.stop("still paging after %d pages (the most read from one listing)", p.pages)
	case p.Announced > 0 && p.items > 2*p.Announced+1000:
		return p.stop("%d items read, the server announced %d, and it keeps paging", p.items, p.Announced)
	}
	p.cursors[next] = true
	return nil
}

// remember records a page's keys, forgetting the oldest page's past Window.
func (p *Pager) remember(ids []string) {
	kept := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" {
			p.seen[id]++
			kept = append(kept, id)
		}
	}
	if p.Window <= 0 {
		return
	}
	p.recent = append(p.recent, kept)
	if len(p.recent) > p.Window {
		for _, id := range p.recent[0] {
			if p.seen[id]--; p.seen[id] <= 0 {
				delete(p.seen, id)
			}
		}
		p.recent[0] = nil
		p.recent = p.recent[1:]
	}
}

func (p *Pager) stop(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...) + ": stopped, the listing is incomplete"
	if p.What != "" {
		msg = p.What + ": " + msg
	}
	return &PagingError{msg: msg}
}

// PagingError is a listing stopped by its Pager.
type PagingError struct{ msg string }

func (e *PagingError) Error() string { return e.msg }
