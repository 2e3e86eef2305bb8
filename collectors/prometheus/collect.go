package prometheus

import (
	"context"
	"fmt"
	"strings"

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
			partial := 0
			if g.partial {
				partial = 1
			}
			addGroupReads(sink, g.scope, []group{g}, partial)
			p.emit(g, sink.AddArtifact)
		}
		if err != nil {
			return fmt.Errorf("prometheus source %s: list rules: %w", p.sourceName(), err)
		}
		return nil
	}
	return p.collectFiles(ctx, sink)
}

// Read kinds: what each unit says it read (collectors.Sink.AddRead).
const (
	readRuleFiles = "rule files"
	readSkipped   = "skipped files" // YAML that holds no rules (a promtool test, a config), skipped with a note
	readObjects   = "PrometheusRule objects"
	readGroups    = "rule groups"
	readAlerting  = "alert rules"
	readRecording = "recording rules"
)

// collectFiles reads each rule file: one that cannot be read or parsed is
// an error at that file; if none can, the source fails. Files that hold
// no rules are skipped, with one note for each kind of file.
func (p *Prometheus) collectFiles(ctx context.Context, sink collectors.Sink) error {
	var firstErr error
	firstUnit := ""
	files := p.files(func(scope string, err error) {
		if firstErr == nil {
			firstErr, firstUnit = err, scope
		}
		sink.AddError(scope, err)
	})
	read := 0
	skipped := map[string][]string{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		fr, err := p.readFile(f)
		if err != nil {
			if firstErr == nil {
				firstErr, firstUnit = err, f.unit
			}
			sink.AddError(f.unit, err)
			continue
		}
		read++
		if fr.skipped != "" {
			skipped[fr.skipped] = append(skipped[fr.skipped], f.unit)
			sink.AddRead(f.unit, readSkipped, 1, 0)
			continue
		}
		sink.AddRead(f.unit, readRuleFiles, 1, 0)
		if fr.objects > 0 {
			sink.AddRead(f.unit, readObjects, fr.objects, 0)
		}
		addGroupReads(sink, f.unit, fr.groups, 0)
		for _, g := range fr.groups {
			p.emit(g, sink.AddArtifact)
		}
	}
	p.notes = append(p.notes, skippedNotes(skipped)...)
	if read == 0 && firstErr != nil {
		// The source fails with its first error, which names its unit
		// (the unit's own error does not repeat it).
		msg := strings.TrimPrefix(firstErr.Error(), "prometheus source "+p.sourceName()+": ")
		return fmt.Errorf("prometheus source %s: no rule file could be read; %s: %s", p.sourceName(), firstUnit, msg)
	}
	return nil
}

// addGroupReads says what one unit read: its rule groups (partial of
// them only in part) and their alerting and recording rules.
func addGroupReads(sink collectors.Sink, scope string, groups []group, partial int) {
	alerting, recording := 0, 0
	for _, g := range groups {
		for _, r := range g.rules {
			if r.kind == typeRecording {
				recording++
			} else {
				alerting++
			}
		}
	}
	sink.AddRead(scope, readGroups, len(groups), partial)
	sink.AddRead(scope, readAlerting, alerting, 0)
	sink.AddRead(scope, readRecording, recording, 0)
}
