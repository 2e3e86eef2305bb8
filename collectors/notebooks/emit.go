package notebooks

import (
	"context"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a notebook besides the model's (secrets, key_ids).
const (
	AttrNBFormat  = "nbformat"  // 3 or 4
	AttrUnscanned = "unscanned" // cells, outputs or texts past the bounds, left unscanned
	// AttrSecretsTotal counts the credentials found when more than the
	// 100 that secrets lists.
	AttrSecretsTotal = "secrets_total"
)

// scope is a notebook's (or directory's) unit: its path, one segment a
// directory, so a directory that cannot be read covers its notebooks.
func scope(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	return model.JoinScope(segs...)
}

// uri is notebooks://<source>/<path>, each path segment escaped.
func (n *Notebooks) uri(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "notebooks://" + n.sourceName() + "/" + strings.Join(segs, "/")
}

// emit parses one notebook and, when it is tied to a backfill, scans it
// and reports it, with the credentials it holds (none is news too: a
// notebook whose secret was removed resolves its finding, and a finished
// backfill's notebook still lingers). Untied notebooks are not scanned. A
// notebook that does not parse is an error at its unit.
func (n *Notebooks) emit(ctx context.Context, sink collectors.Sink, path string, raw []byte, modified time.Time) error {
	nb, err := parse(raw)
	if err != nil {
		return err
	}
	uri := n.uri(path)
	id, how, ok := n.tie(uri, path, nb.labels)
	if !ok {
		return nil
	}
	found, total, err := scan(ctx, nb)
	if err != nil {
		return err
	}
	art := model.Artifact{Kind: model.KindNotebook, System: "notebooks", URI: uri, Name: path, Scope: scope(path),
		BackfillID: id, Correlation: how, State: model.StateActive, ModifiedAt: modified}
	lines := make([]string, 0, len(found))
	var keys []string
	for _, s := range found {
		lines = append(lines, s.line())
		if s.keyID != "" && !contains(keys, s.keyID) {
			keys = append(keys, s.keyID)
		}
	}
	if len(lines) > 0 {
		art.SetAttr(model.AttrSecrets, strings.Join(lines, "\n"))
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		art.SetAttr(model.AttrKeyIDs, strings.Join(keys, ","))
	}
	art.SetAttr(AttrNBFormat, strconv.Itoa(nb.format))
	if total > len(found) {
		art.SetAttr(AttrSecretsTotal, strconv.Itoa(total))
	}
	if nb.unscanned > 0 {
		art.SetAttr(AttrUnscanned, strconv.Itoa(nb.unscanned))
	}
	sink.AddArtifact(art)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tie says which backfill a notebook belongs to: its metadata (a
// backfill_id key), the plans' declared assets, its path as a whole
// (corrections/bf_1234_fix.ipynb), then each directory of its path, the
// nearest first (bf-1234/fix.ipynb).
func (n *Notebooks) tie(uri, path string, labels map[string]string) (id, how string, ok bool) {
	if id, how, ok := n.sel.Match(uri, path, labels); ok {
		return id, how, true
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if id, ok := n.sel.FromName(segs[i]); ok {
			return id, "path", true
		}
	}
	return "", "", false
}
