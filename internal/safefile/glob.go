package safefile

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// HasMeta reports whether a configured path is a glob pattern (it holds
// *, ? or [, or the \ that escapes them outside Windows), as
// filepath.Match reads them.
func HasMeta(p string) bool {
	if filepath.Separator == '\\' {
		return strings.ContainsAny(p, `*?[`)
	}
	return strings.ContainsAny(p, `*?[\`)
}

// FixedDir is the directory above a glob's first pattern segment: the
// unit a glob that cannot be listed, or matches nothing, is reported at.
func FixedDir(pattern string) string {
	dir := pattern
	for HasMeta(dir) {
		dir = filepath.Dir(dir)
	}
	return dir
}

// PlainError drops the resolved (often absolute) path from a file error,
// so the message names the file by its unit instead of where this machine
// keeps it.
func PlainError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	if msg, ok := strings.CutPrefix(err.Error(), path+": "); ok {
		return errors.New(msg)
	}
	return err
}

// Glob is filepath.Glob read as a shell reads a pattern: a wildcard does
// not match a name starting with "." unless the pattern's own segment
// starts with "." (rules/*.yaml leaves out rules/.yamllint.yaml,
// rules/.*.yaml takes it). It is the rule Walk follows for folders;
// hidden keeps every match (notebooks read .ipynb_checkpoints).
func Glob(pattern string, hidden bool) ([]string, error) {
	pattern = filepath.Clean(pattern)
	matches, err := filepath.Glob(pattern)
	if err != nil || hidden {
		return matches, err
	}
	sep := string(filepath.Separator)
	pat := strings.Split(pattern, sep)
	out := matches[:0]
	for _, m := range matches {
		if !wildcardHidden(pat, strings.Split(m, sep)) {
			out = append(out, m)
		}
	}
	return out, nil
}

// wildcardHidden reports whether a wildcard segment of pat matched a
// hidden name in match, segment by segment.
func wildcardHidden(pat, match []string) bool {
	if len(pat) != len(match) {
		return false // not segment for segment: keep it
	}
	for i, p := range pat {
		if HasMeta(p) && !strings.HasPrefix(p, ".") && strings.HasPrefix(match[i], ".") {
			return true
		}
	}
	return false
}
