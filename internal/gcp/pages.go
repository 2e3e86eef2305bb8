package gcp

import "fmt"

// MaxPages is the most pages one listing reads: 10 million objects at
// 1000 a page. A listing past it, or one that hands back a page token it
// gave before, or a page holding only objects already listed, stops with
// an error at the listing's unit instead of looping.
const MaxPages = 10000

// Pages watches one paged listing for a server that never stops paging.
// The zero value is ready, with MaxPages as the bound.
type Pages struct {
	// Max overrides MaxPages (tests).
	Max int
	// Announced is the item count the API said the listing holds, when
	// it says one (tables.list's totalItems); 0 when unknown.
	Announced int64

	pages  int
	items  int64
	tokens map[string]bool
	seen   map[string]bool
}

// Next records a page of ids that came with next (the token for the page
// after it; "" when it was the last). It returns an error when the
// listing must stop: the same token again, a page of ids all listed
// before, more pages than the bound, or far more items than announced.
func (p *Pages) Next(next string, ids ...string) error {
	if p.tokens == nil {
		p.tokens, p.seen = map[string]bool{}, map[string]bool{}
	}
	p.pages++
	p.items += int64(len(ids))
	fresh := 0
	for _, id := range ids {
		if !p.seen[id] {
			p.seen[id] = true
			fresh++
		}
	}
	if next == "" {
		return nil
	}
	max := p.Max
	if max <= 0 {
		max = MaxPages
	}
	switch {
	case len(ids) > 0 && fresh == 0:
		return fmt.Errorf("page %d repeats items already listed and the server asks for more: stopped, the listing is incomplete", p.pages)
	case p.tokens[next]:
		return fmt.Errorf("page %d hands back a page token given before: stopped, the listing is incomplete", p.pages)
	case p.pages >= max:
		return fmt.Errorf("still paging after %d pages (the most read from one listing): stopped, the listing is incomplete", p.pages)
	case p.Announced > 0 && p.items > 2*p.Announced+1000:
		return fmt.Errorf("%d items read, the server announced %d, and it keeps paging: stopped, the listing is incomplete", p.items, p.Announced)
	}
	p.tokens[next] = true
	return nil
}
