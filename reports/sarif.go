package reports

import (
	"context"
	"encoding/json"
	"io"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// SARIF writes findings as SARIF 2.1.0 so code-scanning tools can show plan
// findings on the plan file's line. Fingerprints go into
// partialFingerprints so tools track a finding across runs.
type SARIF struct{}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

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
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Suppressions        []sarifSuppress   `json:"suppressions,omitempty"`
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

// Write implements Writer.
func (SARIF) Write(_ context.Context, w io.Writer, r *model.Report) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "bfaudit"}}, Results: []sarifResult{}}
	for _, rule := range rules.All() {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID: rule.ID, Name: rule.Name, ShortDescription: sarifText{rule.Title},
			FullDescription: sarifText{rule.Rationale}, Help: sarifText{rule.Remediation},
			Properties: map[string]any{"severity": rule.Severity.String(), "seed": rule.Seed},
		})
	}
	for _, f := range r.Findings {
		res := sarifResult{RuleID: f.RuleID, Level: sarifLevel(f.Severity), Message: sarifText{f.Message},
			PartialFingerprints: map[string]string{"bfaudit/v1": f.Fingerprint}}
		var loc sarifLocation
		if f.Location != nil && f.Location.Path != "" {
			loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: f.Location.Path}}
			if f.Location.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Location.Line}
			}
		}
		if f.ArtifactURI != "" {
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: f.ArtifactURI, Kind: "resource"}}
		}
		if loc.PhysicalLocation != nil || loc.LogicalLocations != nil {
			res.Locations = []sarifLocation{loc}
		}
		if f.Waived() {
			res.Suppressions = []sarifSuppress{{Kind: "external", Justification: f.Waiver.Reason}}
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
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
