package remote

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/internal/redact"
)

// ParseAddress reads a configured server address (key names it in the
// error): an http or https URL with a host, and no query or fragment,
// which have no place in a base address. The path is kept without its
// trailing "/" (a prefix, as behind a proxy). Credentials in it are
// returned in User for the caller to refuse or take. The error shows the
// address with any credentials masked. It is the one check of an address
// for every source, sink and endpoint setting.
func ParseAddress(key, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: %q is not an http(s) address such as https://host:port", key, redact.URL(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, fmt.Errorf("%s: %q: a query or fragment has no place in a base address", key, redact.URL(raw))
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}
