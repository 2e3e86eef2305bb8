package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// A fix reads an object again before it acts and after, and deletes it:
// for both, an object that is not there (404) is an answer, not an error.

// Lookup reads one object for a fix: GET base+path, its JSON answer
// decoded into out (at most remote.MaxObjectAnswer), within the call
// timeout. A 404 is found false and no error: the object is gone. Errors
// name the address, as Get's do.
func (c *Client) Lookup(ctx context.Context, path string, out any) (found bool, err error) {
	where := c.base.String() + path
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.Do(ctx, http.MethodGet, path, nil)
	if remote.IsStatus(err, http.StatusNotFound) {
		return false, nil
	}
	if err != nil {
		return false, named(http.MethodGet, where, err)
	}
	defer resp.Body.Close()
	if err := remote.DecodeJSON(resp.Body, remote.MaxObjectAnswer, out); err != nil {
		return false, fmt.Errorf("GET %s: %w", where, err)
	}
	return true, nil
}

// Remove deletes one object for a fix: DELETE base+path?query within the
// call timeout. A 404 is done (gone in between, by the fix or someone
// else). Errors name the address.
func (c *Client) Remove(ctx context.Context, path string, query url.Values) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.Do(ctx, http.MethodDelete, path, query)
	if remote.IsStatus(err, http.StatusNotFound) {
		return nil
	}
	if err != nil {
		return named(http.MethodDelete, c.base.String()+path, err)
	}
	remote.Drain(resp.Body)
	return nil
}
