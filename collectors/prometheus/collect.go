package prometheus

import (
	"context"
	"errors"
	"fmt"

	"github.com/bfaudit/bfaudit/collectors"
)

// Units declares what this run reads. A server's rule listing is one
// call: the whole source (a failure fails the source; a malformed group is
// an error at its group). Rule files are each a unit, found by expanding
// rule_files here (a folder or glob that cannot be listed is a unit that
// fails); a cluster's units are its namespaces (see clusterUnits).
func (p *Prometheus) Units(ctx context.Context) ([]string, error) {
	if p.promql == nil {
		return nil, fmt.Errorf("prometheus source %s: not initialised (Init was not called)", p.sourceName())
	}
	p.notes, p.skipped = nil, nil
	switch {
	case p.Kubernetes != nil:
		return p.clusterUnits(ctx)
	case p.client != nil:
		return []string{""}, nil
	}
	return p.fileUnits(ctx), nil
}

// CollectUnit reads one unit and reports the rules tied to a backfill.
func (p *Prometheus) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	switch {
	case p.Kubernetes != nil:
		return p.collectNamespace(ctx, unit, sink)
	case p.client != nil:
		return p.collectServer(ctx, sink)
	}
	return p.collectFile(unit, sink)
}

// collectServer reads the server's rule listing: each group is reported
// at its own scope under rules/, what was listed before a failure too.
func (p *Prometheus) collectServer(ctx context.Context, sink collectors.Sink) error {
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
	if len(list) == 0 {
		// A server without rules says so: it read no group.
		addGroupReads(sink, scopeRules, nil, 0)
	}
	return nil
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

// fileUnits expands rule_files into the units to read: each file, once,
// and each folder or glob that could not be listed. When there is nothing
// to read at all (globs that match nothing in folders that exist), the
// whole source is the unit: it answers that it read no rule file.
func (p *Prometheus) fileUnits(ctx context.Context) []string {
	var units []string // the framework reads a unit declared twice once
	p.ruleFiles, p.listErrs = map[string]ruleFile{}, map[string][]error{}
	files := p.files(ctx, func(scope string, err error) {
		units = append(units, scope)
		p.listErrs[scope] = append(p.listErrs[scope], err)
	})
	for _, f := range files {
		units = append(units, f.unit)
		p.ruleFiles[f.unit] = f
	}
	if len(units) == 0 {
		return []string{""}
	}
	return units
}

// collectFile reads one rule file: one that cannot be read or parsed is
// an error at that file. A file that holds no rules is skipped, with one
// note for each kind of file.
func (p *Prometheus) collectFile(unit string, sink collectors.Sink) error {
	f, ok := p.ruleFiles[unit]
	if !ok {
		if unit == "" {
			sink.AddRead(unit, readRuleFiles, 0, 0)
			return nil
		}
		return errors.Join(p.listErrs[unit]...)
	}
	for _, err := range p.listErrs[unit] {
		sink.AddError(unit, err)
	}
	fr, err := p.readFile(f)
	if err != nil {
		return err
	}
	if fr.skipped != "" {
		if p.skipped == nil {
			p.skipped = map[string][]string{}
		}
		p.skipped[fr.skipped] = append(p.skipped[fr.skipped], f.unit)
		sink.AddRead(f.unit, readSkipped, 1, 0)
		return nil
	}
	sink.AddRead(f.unit, readRuleFiles, 1, 0)
	if fr.objects > 0 {
		sink.AddRead(f.unit, readObjects, fr.objects, 0)
	}
	addGroupReads(sink, f.unit, fr.groups, 0)
	for _, g := range fr.groups {
		p.emit(g, sink.AddArtifact)
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
