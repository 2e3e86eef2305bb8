package prometheus

import (
	"context"
	"fmt"

	"github.com/bfaudit/bfaudit/collectors"
)

// Collect reads the server's rule listing (a failure fails the source; a
// malformed group is an error at its group), each rule file (a file that
// cannot be read or parsed is an error at that file; if none can, the
// source fails) or a cluster's PrometheusRules (see collectCluster), and
// reports the rules tied to a backfill.
func (p *Prometheus) Collect(ctx context.Context, sink collectors.Sink) error {
	if p.promql == nil {
		return fmt.Errorf("prometheus source %s: not initialised (Init was not called)", p.sourceName())
	}
	p.notes = nil
	if p.Kubernetes != nil {
		return p.collectCluster(ctx, sink)
	}
	if p.client != nil {
		list, err := p.listRules(ctx)
		for _, g := range p.apiGroups(list, sink.AddError) {
			p.emit(g, sink.AddArtifact)
		}
		if err != nil {
			return fmt.Errorf("prometheus source %s: list rules: %w", p.sourceName(), err)
		}
		return nil
	}
	var firstErr error
	files := p.files(func(scope string, err error) {
		if firstErr == nil {
			firstErr = err
		}
		sink.AddError(scope, err)
	})
	read := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		groups, err := p.readFile(f)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			sink.AddError(f.unit, err)
			continue
		}
		read++
		for _, g := range groups {
			p.emit(g, sink.AddArtifact)
		}
	}
	if read == 0 && firstErr != nil {
		return firstErr
	}
	return nil
}
