package reports

import (
	"context"
	"io"
	"time"

	"github.com/bfaudit/bfaudit/internal/jsonstream"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// SARIF writes findings as SARIF 2.1.0 so code-scanning tools can show plan
// findings on the plan file's line. Fingerprints go into
// partialFingerprints so tools track a finding across runs.
type SARIF struct{}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string         `json:"id"`
	Name             string         `json:"name"`
	ShortDescription sarifText      `json:"shortDescription"`
	FullDescription  sarifText      `json:"fullDescription"`
	Help             sarifText      `json:"help"`
	Properties       map[string]any `json:"properties,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints sarifFingerprints `json:"partialFingerprints"`
	Suppressions        []sarifSuppress   `json:"suppressions,omitempty"`
	Properties          *sarifDue         `json:"properties,omitempty"`
}

// sarifDue is a result's due date, in its property bag.
type sarifDue struct {
	DueAt   string `json:"due_at"`
	Overdue bool   `json:"overdue"`
}

// sarifFingerprints is the one partial fingerprint bfaudit gives: the
// same JSON as a map with that key, without a map per result.
type sarifFingerprints struct {
	V1 string `json:"bfaudit/v1"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

type sarifSuppress struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// Write implements Writer. Results are built and written one finding at a
// time, so a large report is never held as SARIF values or text.
func (SARIF) Write(_ context.Context, w io.Writer, r *model.Report) error {
	driver := sarifDriver{Name: "bfaudit"}
	for _, rule := range rules.All() {
		driver.Rules = append(driver.Rules, sarifRule{
			ID: rule.ID, Name: rule.Name, ShortDescription: sarifText{rule.Title},
			FullDescription: sarifText{rule.Rationale}, Help: sarifText{rule.Remediation},
			Properties: map[string]any{"severity": rule.Severity.String(), "practice": rule.Practice},
		})
	}
	// {"$schema", "version", "runs": [{"tool", "results": [...]}]}
	s := jsonstream.New(w)
	doc := s.Object()
	doc.Field("$schema", "https://json.schemastore.org/sarif-2.1.0.json")
	doc.Field("version", "2.1.0")
	runs := doc.Array("runs")
	run := runs.Object()
	run.Field("tool", sarifTool{Driver: driver})
	results := run.Array("results")
	var res resultBuf
	for i := range r.Findings {
		results.Elem(res.of(&r.Findings[i]))
	}
	results.End()
	run.End()
	runs.End()
	doc.End()
	return s.Flush()
}

// resultBuf builds one result at a time in the same storage: each is
// written before the next is built.
type resultBuf struct {
	res      sarifResult
	loc      [1]sarifLocation
	physical sarifPhysical
	region   sarifRegion
	logical  [1]sarifLogical
	suppress [1]sarifSuppress
	due      sarifDue
}

// of returns a finding's result.
func (b *resultBuf) of(f *model.Finding) *sarifResult {
	b.res = sarifResult{RuleID: f.RuleID, Level: sarifLevel(f.Severity), Message: sarifText{f.Message},
		PartialFingerprints: sarifFingerprints{f.Fingerprint}}
	loc := sarifLocation{}
	if f.Location != nil && f.Location.Path != "" {
		b.physical = sarifPhysical{ArtifactLocation: sarifArtifact{URI: f.Location.Path}}
		if f.Location.Line > 0 {
			b.region = sarifRegion{StartLine: f.Location.Line}
			b.physical.Region = &b.region
		}
		loc.PhysicalLocation = &b.physical
	}
	if f.ArtifactURI != "" {
		b.logical[0] = sarifLogical{FullyQualifiedName: f.ArtifactURI, Kind: "resource"}
		loc.LogicalLocations = b.logical[:]
	}
	if loc.PhysicalLocation != nil || loc.LogicalLocations != nil {
		b.loc[0] = loc
		b.res.Locations = b.loc[:]
	}
	if !f.DueAt.IsZero() {
		b.due = sarifDue{DueAt: f.DueAt.UTC().Format(time.RFC3339), Overdue: f.Overdue}
		b.res.Properties = &b.due
	}
	if f.Waived() {
		b.suppress[0] = sarifSuppress{Kind: "external", Justification: f.Waiver.Reason}
		b.res.Suppressions = b.suppress[:]
	}
	return &b.res
}

func sarifLevel(s model.Severity) string {
	switch {
	case s >= model.SeverityHigh:
		return "error"
	case s == model.SeverityMedium:
		return "warning"
	}
	return "note"
}
