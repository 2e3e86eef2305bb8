package fix

import (
	"errors"
	"fmt"
	"io"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/remedy"
)

// Systems builds, for each configured source of a system bfaudit can act
// on (one whose remedy.System has Acts), what acts on it, by source
// name. The systems share the collectors' settings (addresses,
// credentials, TLS). close releases the clients of those that hold one
// (an io.Closer).
func Systems(instances []collectors.Instance) (systems map[string]remedy.Actor, close func() error, err error) {
	systems = map[string]remedy.Actor{}
	var closers []io.Closer
	for _, in := range instances {
		build := remedy.SystemNamed(in.Type).Acts
		if build == nil {
			continue
		}
		s, err := build(in.Collector)
		if err != nil {
			return nil, nil, fmt.Errorf("source %s: %w", in.Name, err)
		}
		if s == nil {
			continue
		}
		systems[in.Name] = s
		if c, ok := s.(io.Closer); ok {
			closers = append(closers, c)
		}
	}
	return systems, func() error {
		var errs []error
		for _, c := range closers {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}, nil
}
