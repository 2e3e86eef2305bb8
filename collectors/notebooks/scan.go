package notebooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// RuleServiceAccountKey names bfaudit's own check: a Google service-account
// key JSON ("type": "service_account" with a private_key_id and a
// private_key) pasted into a cell or printed by one.
const RuleServiceAccountKey = "gcp-service-account-key"

// secret is one credential found: the rule that found it, where, and a
// short hash of the value (never the value). keyID is the cloud key id a
// service-account key names, when known.
type secret struct {
	rule, where, hash, keyID string
}

// line is how AttrSecrets writes a secret.
func (s secret) line() string { return s.rule + "\t" + s.where + "\t" + s.hash }

// hashOf is the first 12 hex characters of the value's SHA-256: enough to
// tell two findings of one key apart from two keys, nothing of the value.
func hashOf(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])[:12]
}

var (
	detectorOnce sync.Once
	detector     *detect.Detector
	detectorErr  error
	detectorMu   sync.Mutex // Detect is not documented as safe for concurrent use
)

// gitleaks builds the detector with gitleaks' default rule set once. Its
// logger is silenced first: it would write to stderr, and its debug
// events carry the secret found.
func gitleaks() (*detect.Detector, error) {
	detectorOnce.Do(func() {
		logging.Logger = zerolog.Nop()
		detector, detectorErr = detect.NewDetectorDefaultConfig()
	})
	return detector, detectorErr
}

// maxSecrets bounds the credentials kept per notebook: a notebook that
// printed a key in a loop is reported once with its first findings.
const maxSecrets = 100

// scan finds the credentials in a notebook's texts: gitleaks' default
// rules, and the service-account key check. Findings are sorted and each
// (rule, where, hash) is kept once, at most maxSecrets of them; total
// counts them all.
func scan(ctx context.Context, nb *notebook) (found []secret, total int, err error) {
	d, err := gitleaks()
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{}
	var out []secret
	keep := func(s secret) {
		if !seen[s.line()] {
			seen[s.line()] = true
			total++
			if len(out) < maxSecrets {
				out = append(out, s)
			}
		}
	}
	for _, p := range nb.pieces {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		detectorMu.Lock()
		hits := d.DetectString(p.text) // a text is at most 256 KiB: ctx is checked between texts
		detectorMu.Unlock()
		for _, f := range hits {
			value := f.Secret
			if value == "" {
				value = f.Match
			}
			keep(secret{rule: f.RuleID, where: p.where(f.StartLine + 1), hash: hashOf(value)})
		}
		for _, s := range serviceAccountKeys(p) {
			keep(s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line() < out[j].line() })
	return out, total, nil
}

// A service-account key JSON as pasted into code (quotes maybe escaped
// inside a Python string) or as printed by Python (single quotes).
var (
	saType = regexp.MustCompile(`\\?["']type\\?["']\s*:\s*\\?["']service_account\\?["']`)
	saID   = regexp.MustCompile(`\\?["']private_key_id\\?["']\s*:\s*\\?["']([0-9a-fA-F]{16,64})\\?["']`)
	saKey  = regexp.MustCompile(`\\?["']private_key\\?["']\s*:\s*\\?["'](-----BEGIN [A-Z ]*PRIVATE KEY-----[^"']+?-----END [A-Z ]*PRIVATE KEY-----(?:\\\\n|\\n)?)`)
)

// serviceAccountKeys finds the service-account keys in a piece: each
// private_key_id with a private key in the same text whose type is
// service_account. The hash is of the private key.
func serviceAccountKeys(p piece) []secret {
	if !saType.MatchString(p.text) {
		return nil
	}
	keys := saKey.FindAllStringSubmatchIndex(p.text, 16)
	if len(keys) == 0 {
		return nil
	}
	var out []secret
	for i, id := range saID.FindAllStringSubmatchIndex(p.text, 16) {
		k := keys[min(i, len(keys)-1)]
		value := p.text[k[2]:k[3]]
		line := strings.Count(p.text[:id[0]], "\n") + 1
		out = append(out, secret{rule: RuleServiceAccountKey, where: p.where(line), hash: hashOf(value),
			keyID: strings.ToLower(p.text[id[2]:id[3]])})
	}
	return out
}

// scrubbed is err with any credential gitleaks finds in its text replaced:
// an error can quote a server's message, and Jupyter's message for an
// unreadable notebook quotes the notebook's first bytes.
func scrubbed(err error) error {
	if err == nil {
		return nil
	}
	d, derr := gitleaks()
	if derr != nil {
		return err
	}
	text := err.Error()
	detectorMu.Lock()
	found := d.DetectString(text)
	detectorMu.Unlock()
	if len(found) == 0 {
		return err
	}
	for _, f := range found {
		for _, v := range []string{f.Secret, f.Match} {
			if v != "" {
				text = strings.ReplaceAll(text, v, "[credential "+hashOf(v)+"]")
			}
		}
	}
	return scrubbedError{text: text, err: err}
}

type scrubbedError struct {
	text string
	err  error
}

func (e scrubbedError) Error() string { return e.text }
func (e scrubbedError) Unwrap() error { return e.err }
