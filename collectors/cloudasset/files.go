package cloudasset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"cloud.google.com/go/asset/apiv1/assetpb"
	"github.com/bfaudit/bfaudit/internal/safefile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Offline: the output of `gcloud asset search-all-resources --format=json`
// and `gcloud asset search-all-iam-policies --format=json` (a JSON array
// of results), of `gcloud asset list --format=json` (a JSON array of
// assets), or of `gcloud asset export` (one asset per line). What a file
// holds is read as a search would have answered it; follow-up searches do
// not run, so a file should hold everything of the scope it covers.

// readFile reads one file into inv. An unreadable or malformed file is
// returned (the whole source did not fully answer: which projects a file
// covers is what is unknown); an entry that cannot be read is recorded in
// inv and the rest are read.
func (c *Collector) readFile(configured string, inv *inventory) error {
	origin := filepath.ToSlash(filepath.Clean(configured))
	path := configured
	if !filepath.IsAbs(path) && c.baseDir != "" {
		path = filepath.Join(c.baseDir, path)
	}
	data, err := safefile.Read(path)
	if err != nil {
		return fmt.Errorf("cloudasset: %s: %w", origin, safefile.PlainError(path, err))
	}
	if err := parseFile(data, origin, inv); err != nil {
		return fmt.Errorf("cloudasset: %s: %w", origin, err)
	}
	return nil
}

// parseFile reads a JSON array, one JSON document, or JSON lines. Each
// entry is named path:line (and, in an array, its number), as every
// parser names the place of what is wrong.
func parseFile(data []byte, origin string, inv *inventory) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	// skipped keeps line numbers those of the file.
	skipped := bytes.Count(data[:len(data)-len(trimmed)], []byte("\n"))
	data = bytes.TrimSpace(trimmed)
	switch {
	case len(data) == 0:
		return errors.New("empty file; expected gcloud asset search or export output (JSON)")
	case bytes.Equal(data, []byte("null")):
		return errors.New("the file holds null; expected gcloud asset search or export output (JSON)")
	case data[0] == '[':
		items, lines, err := arrayItems(data)
		if err != nil {
			return fmt.Errorf("not a JSON array: %v", err)
		}
		for i, raw := range items {
			if err := parseItem(raw, fmt.Sprintf("%s:%d: entry %d", origin, skipped+lines[i], i+1), inv); err != nil {
				inv.fail("", err)
			}
		}
		return nil
	case data[0] != '{':
		return errors.New("not JSON; expected gcloud asset search output (--format=json) or export output")
	}
	if json.Valid(data) {
		if err := parseItem(data, fmt.Sprintf("%s:%d", origin, skipped+1), inv); err != nil {
			inv.fail("", err)
		}
		return nil
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := parseItem(line, fmt.Sprintf("%s:%d", origin, skipped+n+1), inv); err != nil {
			inv.fail("", err)
		}
	}
	return nil
}

// arrayItems splits a JSON array into its entries and the line each
// starts on (from 1).
func arrayItems(data []byte) (items []json.RawMessage, lines []int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		start := int(dec.InputOffset()) - len(raw)
		items = append(items, raw)
		lines = append(lines, 1+bytes.Count(data[:start], []byte("\n")))
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("more after the closing ]")
	}
	return items, lines, nil
}

// parseItem tells the three shapes apart by their keys: an asset has an
// asset type and a resource object or IAM policy; an IAM policy search
// result a policy and a resource name; a resource search result a name.
func parseItem(raw []byte, where string, inv *inventory) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return fmt.Errorf("cloudasset: %s: not a JSON object", where)
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	object := func(k string) bool { v := bytes.TrimSpace(keys[k]); return len(v) > 0 && v[0] == '{' }
	switch {
	case (has("assetType") || has("asset_type")) && (object("resource") || has("iamPolicy") || has("iam_policy")):
		a := &assetpb.Asset{}
		if err := unmarshal(raw, a); err != nil {
			return fmt.Errorf("cloudasset: %s: asset: %w", where, err)
		}
		inv.addExported(a, where)
	case has("policy") && has("resource"):
		p := &assetpb.IamPolicySearchResult{}
		if err := unmarshal(raw, p); err != nil {
			return fmt.Errorf("cloudasset: %s: IAM policy search result: %w", where, err)
		}
		inv.addPolicyResult(p, where)
	case has("name") && has("assetType"):
		r := &assetpb.ResourceSearchResult{}
		if err := unmarshal(raw, r); err != nil {
			return fmt.Errorf("cloudasset: %s: resource search result: %w", where, err)
		}
		inv.addSearchResult(r, where)
	default:
		return fmt.Errorf("cloudasset: %s: neither an asset (asset_type with resource or iam_policy), a resource search result (name, assetType) nor an IAM policy search result (resource, policy)", where)
	}
	return nil
}

func unmarshal(raw []byte, m proto.Message) error {
	return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(raw, m)
}
