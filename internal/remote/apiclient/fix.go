package apiclient

import (
	"context"
	"net/http"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// A fix reads an object again before it acts and after, and deletes it:
// for both, an object that is not there (404) is an answer, not an error.

// Lookup reads one object for a fix: Get with the answer capped at
// remote.MaxObjectAnswer. A 404 is found false and no error: the object
// is gone.
func (c *Client) Lookup(ctx context.Context, path string, out any) (found bool, err error) {
	err = c.getJSON(ctx, path, nil, remote.MaxObjectAnswer, out)
	if remote.IsStatus(err, http.StatusNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Remove deletes one object for a fix: Send's DELETE, where a 404 is done
// (gone in between, by the fix or someone else).
func (c *Client) Remove(ctx context.Context, path string) error {
	if err := c.Send(ctx, http.MethodDelete, path, "", nil); err != nil && !remote.IsStatus(err, http.StatusNotFound) {
		return err
	}
	return nil
}
