package flagd

import (
	"fmt"
	"path"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("flagd", remedy.System{Remove: flagdRemoval, Manual: flagdManual, Infer: inferFlagd})
}

// flagdRemoval prints the command that deletes the flag's entry from its
// file: jq for a JSON file (through a temporary file, jq cannot edit in
// place), yq (v4) in place for YAML. The flag name reaches the program as
// a variable, never inside its expression, so no name can change what
// it deletes. fix never applies it: the file is usually in a repository,
// and the change goes through review there.
// A flag of flagd's list form is the entry whose key it is. A flag an
// Operator resource holds gets no command (manual says what to edit).
func flagdRemoval(r *remedy.Remedy, a *model.Artifact) {
	e, ok := ParseFlagd(a)
	if !ok || a.Kind != model.KindFeatureFlag || e.Resource != "" {
		return
	}
	file := e.File
	if strings.HasPrefix(file, "-") {
		file = "./" + file // never read as an option
	}
	jqExpr, yqExpr := "'del(.flags[$flag])'", "'del(.flags[strenv(FLAG)])'"
	if a.Attr(AttrShape) == "array" {
		jqExpr, yqExpr = "'del(.flags[] | select(.key == $flag))'", "'del(.flags[] | select(.key == strenv(FLAG)))'"
	}
	var sh string
	if strings.EqualFold(path.Ext(file), ".json") {
		tmp := file + ".tmp"
		sh = "jq --arg flag " + remedy.Quote(e.Flag) + " " + jqExpr + " " + remedy.Quote(file) + " > " + remedy.Quote(tmp) +
			" && mv " + remedy.Quote(tmp) + " " + remedy.Quote(file)
	} else {
		sh = "FLAG=" + remedy.Quote(e.Flag) + " yq -i " + yqExpr + " " + remedy.Quote(file)
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteFlag, Step: model.StepNormalized, Resolves: true,
		Summary: "delete flag " + e.Flag + " from " + e.File, Shell: sh})
	r.Notes = append(r.Notes, "the flag file is edited, not a server: commit the change where the file is kept, and flagd reloads it")
}

// flagdManual says where to remove a flag that an Operator resource
// holds in a file: the resource is edited (or deleted when the flag is
// its only one) in the file, and the file applied where it is kept.
func flagdManual(a *model.Artifact, step model.Step) *remedy.Human {
	e, ok := ParseFlagd(a)
	if !ok || e.Resource == "" {
		return &remedy.Human{Step: step, Where: a.URI,
			What: fmt.Sprintf("Delete the %s %s from its flag file.", a.Kind, a.NameOrURI())}
	}
	var what string
	switch kind, res := a.Attr(AttrShape), a.Attr(AttrResource); kind {
	case "ConfigMap":
		what = fmt.Sprintf("Remove flag %s from the definition in data.%s of the ConfigMap %s in %s; then apply the file where it is kept (kubectl apply -f), and flagd reloads it.",
			e.Flag, a.Attr(AttrEntry), res, e.File)
	case "FeatureFlag", "FeatureFlagConfiguration":
		spec := "spec.flagSpec.flags"
		if kind == "FeatureFlagConfiguration" {
			spec = "spec.featureFlagSpec"
		}
		what = fmt.Sprintf("Remove flag %s from the %s %s in %s (%s), or delete the resource if it holds no other flag; then apply the file where it is kept (kubectl apply -f).",
			e.Flag, kind, res, e.File, spec)
	default: // from a report: the URI names the resource, not its kind
		what = fmt.Sprintf("Remove flag %s from the resource %s in %s (a FeatureFlag's spec.flagSpec.flags, or a ConfigMap's data), or delete the resource if it holds no other flag; then apply the file where it is kept (kubectl apply -f).",
			e.Flag, e.Resource, e.File)
	}
	return &remedy.Human{Step: step, Where: e.File, What: what}
}

// inferFlagd: a flagd URI with a fragment names a flag.
func inferFlagd(a *model.Artifact) {
	if e, ok := ParseFlagd(a); ok {
		a.Kind = model.KindFeatureFlag
		a.Name = e.Flag
	}
}
