package remote

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestPagerStops(t *testing.T) {
	const what = "GET https://api.example.com/items"
	tests := []struct {
		name string
		walk func(p *Pager) error
		want string // "" for a walk that ends normally
	}{
		{"ends on the last page", func(p *Pager) error {
			for i := 1; i <= 3; i++ {
				next := strconv.Itoa(i + 1)
				if i == 3 {
					next = ""
				}
				if err := p.Next(next, "a"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			return nil
		}, ""},
		{"a next page that never changes", func(p *Pager) error {
			for i := 0; i < 5; i++ {
				if err := p.Next("2", "item"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			return nil
		}, "names a next page that was already read"},
		{"the same items again", func(p *Pager) error {
			for i := 0; i < 5; i++ {
				if err := p.Next(strconv.Itoa(i+2), "x", "y"); err != nil {
					return err
				}
			}
			return nil
		}, "repeats items already listed"},
		{"past the cap", func(p *Pager) error {
			p.Max = 10
			for i := 0; ; i++ {
				if err := p.Next(strconv.Itoa(i+2), strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}, "still paging after 10 pages"},
		{"far past the announced count", func(p *Pager) error {
			p.Announced = 1
			for i := 0; ; i++ {
				if err := p.Next(strconv.Itoa(i+2), strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}, "the server announced 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Pager{What: what}
			err := tt.walk(p)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("walk = %v", err)
				}
				return
			}
			var pe *PagingError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), what+": ") || !strings.Contains(err.Error(), "incomplete") {
				t.Fatalf("walk = %v, want a PagingError naming %q and saying %q", err, what, tt.want)
			}
		})
	}
}

// A listing that reaches its cap names the setting that raises it.
func TestPagerCapNamesItsKey(t *testing.T) {
	p := Pager{What: "GET /dags", Max: 2, MaxKey: "max_pages"}
	err := p.Next("2", "a")
	if err == nil {
		err = p.Next("3", "b")
	}
	want := "GET /dags: still paging after 2 pages (the most read from one listing; raise max_pages if it is that large): stopped, the listing is incomplete"
	if err == nil || err.Error() != want {
		t.Errorf("Next = %v, want %q", err, want)
	}
}

// With a window the pager forgets old pages' items, so memory does not
// grow with the listing, and still stops a server repeating its last page.
func TestPagerWindow(t *testing.T) {
	p := &Pager{What: "GET /runs", Window: 1}
	for i := range 1000 {
		if err := p.Next(strconv.Itoa(i+1), "a"+strconv.Itoa(i), "b"+strconv.Itoa(i)); err != nil {
			t.Fatalf("page %d: %v", i+1, err)
		}
	}
	if n := len(p.seen); n > 2 {
		t.Errorf("a window of one page remembers %d items", n)
	}
	// An item of the page before and one from long ago: fresh enough.
	if err := p.Next("x1", "a999", "a0"); err != nil {
		t.Errorf("a page with a forgotten item stopped: %v", err)
	}
	if err := p.Next("x2", "a999", "a0"); err == nil || !strings.Contains(err.Error(), "repeats items") {
		t.Errorf("the page before, again: %v", err)
	}
}
