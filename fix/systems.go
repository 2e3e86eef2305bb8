package fix

import (
	"errors"
	"fmt"
	"io"

	"github.com/bfaudit/bfaudit/collectors"
)

// Systems builds, for each configured source of a system bfaudit can act
// on (one registered with RegisterSystem), what acts on it, by source
// name. The systems share the collectors' settings (addresses,
// credentials, TLS). close releases the clients of those that hold one
// (an io.Closer).
func Systems(instances []collectors.Instance) (systems map[string]System, close func() error, err error) {
	systems = map[string]System{}
	var closers []io.Closer
	for _, in := range instances {
		build, ok := systemFor(in.Type)
		if !ok {
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
