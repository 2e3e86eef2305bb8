package notebooks

import (
	"context"
	"slices"
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

// ref names one notebook read: path is how the source names it (the path
// as the config writes it for files, the server path for Jupyter), its
// artifact's Name and unit; rel is its path below the source's root, its
// identity.
type ref struct{ path, rel string }

// emit parses one notebook, scans it, says it was read, and reports it
// when it is tied to a backfill, with the credentials it holds (none is
// news too: a notebook whose secret was removed resolves its finding, and
// a finished backfill's notebook still lingers), or when it is tied to
// none but holds a credential (a secret is a secret whoever forgot the
// id; untied: ignore leaves such notebooks unscanned). A notebook that
// does not parse is an error at its unit.
func (n *Notebooks) emit(ctx context.Context, sink collectors.Sink, nbRef ref, raw []byte, modified time.Time) error {
	nb, err := parse(raw)
	if err != nil {
		return err
	}
	u := uri(nbRef.rel)
	id, how, tied := n.tie(u, nbRef.path, nb.labels)
	if !tied && n.Untied == UntiedIgnore {
		sink.AddRead(scope(nbRef.path), "notebooks", 1, 0)
		return nil
	}
	found, total, err := scan(ctx, nb)
	if err != nil {
		return err
	}
	partial := 0
	if nb.unscanned > 0 {
		partial = 1
	}
	sink.AddRead(scope(nbRef.path), "notebooks", 1, partial)
	if !tied && len(found) == 0 {
		return nil // not backfill machinery, and no secret in it
	}
	art := model.Artifact{Kind: model.KindNotebook, System: "notebooks", URI: u, Name: nbRef.path, Scope: scope(nbRef.path),
		BackfillID: id, Correlation: how, State: model.StateActive, ModifiedAt: model.At(modified)}
	lines := make([]string, 0, len(found))
	var keys, awsKeys []string
	for _, s := range found {
		lines = append(lines, s.line())
		if s.keyID != "" && !slices.Contains(keys, s.keyID) {
			keys = append(keys, s.keyID)
		}
		if s.rule == RuleAWSKeyPair {
			awsKeys = append(awsKeys, s.hash) // a pair is named by its id's hash, once
		}
	}
	if len(lines) > 0 {
		art.SetAttr(model.AttrSecrets, strings.Join(lines, "\n"))
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		art.SetAttr(model.AttrKeyIDs, strings.Join(keys, ","))
	}
	if len(awsKeys) > 0 {
		sort.Strings(awsKeys)
		art.SetAttr(model.AttrAWSKeys, strings.Join(awsKeys, ","))
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

// tie says which backfill a notebook belongs to, the most deliberate
// statement first: its metadata (a backfill_id key), the plans' declared
// assets (by URI), its file name (bf_1234_fix.ipynb), then each directory
// of its path, the nearest first (bf-1234/fix.ipynb). A token that is not
// an id (BF16, bfloat16) is no statement at all, so bf-1234/BF16_eval.ipynb
// is BF-1234's by its folder. The text of its cells ties nothing: a
// notebook that mentions a backfill is not that backfill's machinery.
func (n *Notebooks) tie(uri, path string, labels map[string]string) (id, how string, ok bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if id, how, ok := n.env.Selector.Match(uri, segs[len(segs)-1], labels); ok {
		return id, how, true
	}
	for i := len(segs) - 2; i >= 0; i-- {
		if id, ok := n.env.Selector.FromName(segs[i]); ok {
			return id, "path", true
		}
	}
	return "", "", false
}
