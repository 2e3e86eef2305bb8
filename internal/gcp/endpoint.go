package gcp

import (
	"fmt"

	"google.golang.org/api/option"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// Endpoint is the client option of an endpoint setting (key names it: a
// private endpoint, a proxy, an emulator) for a Google API's generated REST client:
// the address as remote.ParseAddress checks it, with the API's base path
// (basePath, such as "/bigquery/v2/") when the address names none, and the
// trailing "/" the generated clients join paths to. "" is Google's own
// endpoint: no option.
func Endpoint(key, raw, basePath string) ([]option.ClientOption, error) {
	if raw == "" {
		return nil, nil
	}
	u, err := remote.ParseAddress(key, raw)
	if err != nil {
		return nil, err
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s: must not carry credentials; the client authenticates with Application Default Credentials", key)
	}
	if u.Path == "" {
		u.Path = basePath
	}
	if u.Path == "" || u.Path[len(u.Path)-1] != '/' {
		u.Path += "/"
	}
	return []option.ClientOption{option.WithEndpoint(u.String())}, nil
}
