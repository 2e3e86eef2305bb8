package remedy

import (
	"net/url"
	"path"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

func init() {
	registerSystem("flagd", commands{remove: flagdRemoval, infer: inferFlagd})
}

// flagdFileAttr is the attribute the flagd collector keeps the file's path
// in, as it read it (joined to the config file's directory).
const flagdFileAttr = "file"

// FlagdEntry is one flag of a flagd definition file.
type FlagdEntry struct {
	File, Flag string
}

// ParseFlagd reads a flagd artifact: the file from its file attribute
// (the path the collector read) or else from its URI,
// flagd://<source>/<path>#<flag>, every segment path-escaped (the path is
// then relative to the config file's directory, or absolute).
func ParseFlagd(a *model.Artifact) (FlagdEntry, bool) {
	rest, ok := strings.CutPrefix(a.URI, "flagd://")
	if !ok {
		return FlagdEntry{}, false
	}
	_, rest, ok = strings.Cut(rest, "/")
	if !ok {
		return FlagdEntry{}, false
	}
	p, frag, ok := strings.Cut(rest, "#")
	if !ok {
		return FlagdEntry{}, false
	}
	flag, err := url.PathUnescape(frag)
	if err != nil || flag == "" {
		return FlagdEntry{}, false
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if segs[i], err = url.PathUnescape(s); err != nil {
			return FlagdEntry{}, false
		}
	}
	file := strings.Join(segs, "/")
	if f := a.Attr(flagdFileAttr); f != "" {
		file = f
	}
	if file == "" {
		return FlagdEntry{}, false
	}
	return FlagdEntry{File: file, Flag: flag}, true
}

// flagdRemoval prints the command that deletes the flag's entry from its
// file: jq for a JSON file (through a temporary file, jq cannot edit in
// place), yq (v4) in place for YAML. The flag name reaches the program as
// a variable, never inside its expression, so no name can change what
// it deletes. fix never applies it: the file is usually in a repository,
// and the change goes through review there.
func flagdRemoval(r *Remedy, a *model.Artifact) {
	e, ok := ParseFlagd(a)
	if !ok || a.Kind != model.KindFeatureFlag {
		return
	}
	file := e.File
	if strings.HasPrefix(file, "-") {
		file = "./" + file // never read as an option
	}
	var sh string
	if strings.EqualFold(path.Ext(file), ".json") {
		tmp := file + ".tmp"
		sh = "jq --arg flag " + Quote(e.Flag) + " 'del(.flags[$flag])' " + Quote(file) + " > " + Quote(tmp) +
			" && mv " + Quote(tmp) + " " + Quote(file)
	} else {
		sh = "FLAG=" + Quote(e.Flag) + " yq -i 'del(.flags[strenv(FLAG)])' " + Quote(file)
	}
	r.Actions = append(r.Actions, Action{Name: DeleteFlag, Step: model.StepNormalized, Resolves: true,
		Summary: "delete flag " + e.Flag + " from " + e.File, Shell: sh})
	r.Notes = append(r.Notes, "the flag file is edited, not a server: commit the change where the file is kept, and flagd reloads it")
}

// inferFlagd: a flagd URI with a fragment names a flag.
func inferFlagd(a *model.Artifact) {
	if _, ok := ParseFlagd(a); ok {
		a.Kind = model.KindFeatureFlag
		if i := strings.LastIndex(a.URI, "#"); i >= 0 {
			a.Name, _ = url.PathUnescape(a.URI[i+1:])
		}
	}
}
