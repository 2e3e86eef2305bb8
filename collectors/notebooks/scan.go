package notebooks

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/model"
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// Rules of bfaudit's own, beside gitleaks' rule ids.
const (
	// RuleServiceAccountKey is a Google service-account key JSON ("type":
	// "service_account" with a private_key_id and a private_key) pasted
	// into a cell or printed by one.
	RuleServiceAccountKey = "gcp-service-account-key"
	// RuleAWSKeyPair is an AWS access key id and its secret access key,
	// found near each other: one credential, both parts named.
	RuleAWSKeyPair = "aws-key-pair"
	// RuleAWSSecretKey is an AWS secret access key with no access key id
	// near it.
	RuleAWSSecretKey = "aws-secret-access-key"
	// ruleAWSKeyID is gitleaks' rule for an AWS access key id.
	ruleAWSKeyID = "aws-access-token"
	// ruleGeneric is gitleaks' catch-all, the least telling name.
	ruleGeneric = "generic-api-key"
)

// secret is one credential as AttrSecrets lists it: the rule that names
// it best, every place it is (joined), and a short hash of its value
// (never the value). keyID is the cloud key id a service-account key
// names, when known.
type secret struct {
	rule, where, hash, keyID string
}

// line is how AttrSecrets writes a secret.
func (s secret) line() string { return s.rule + "\t" + s.where + "\t" + s.hash }

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

// Bounds of what is listed: a notebook that printed keys in a loop is
// reported with its first credentials, each with its first places.
const (
	maxSecrets = 100 // credentials listed per notebook
	maxPlaces  = 10  // places listed per credential (or per part of a key pair)
)

// place is where a credential was seen: a piece (its index in the
// notebook's pieces, document order) and a line of it.
type place struct{ piece, line int }

// places are the places of one credential (or one part of a key pair),
// in the order found, at most maxPlaces of them kept.
type places struct {
	list []place
	more int
}

func (ps *places) add(p place) {
	for _, q := range ps.list {
		if q == p {
			return
		}
	}
	if len(ps.list) < maxPlaces {
		ps.list = append(ps.list, p)
		return
	}
	ps.more++
}

// first is the place nearest the notebook's top.
func (ps places) first() place {
	f := ps.list[0]
	for _, p := range ps.list[1:] {
		if p.piece < f.piece || p.piece == f.piece && p.line < f.line {
			f = p
		}
	}
	return f
}

// where lists the places in document order, the lines of one text
// together: "cell 2 source line 1, cell 3 output 1 stdout lines 4, 5".
func (ps places) where(nb *notebook) string {
	sorted := slices.Clone(ps.list)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		return a.piece < b.piece || a.piece == b.piece && a.line < b.line
	})
	var ws []string
	for i := 0; i < len(sorted); {
		j := i
		var lines []int
		for ; j < len(sorted) && sorted[j].piece == sorted[i].piece; j++ {
			lines = append(lines, sorted[j].line)
		}
		ws = append(ws, nb.pieces[sorted[i].piece].where(lines...))
		i = j
	}
	w := strings.Join(ws, ", ")
	if ps.more > 0 {
		w += fmt.Sprintf(" and %d more", ps.more)
	}
	return w
}

// credential is one secret value, however often and by however many
// rules it was found: gitleaks' private-key and the service-account check
// find one key, a key printed twice (two outputs, or the text/plain and
// text/html of one) is one key.
type credential struct {
	rule, hash, keyID string
	at                places
	// secretAt is where the secret access key of an AWS key pair is; the
	// pair is named by its access key id (hash, at).
	secretAt *places
}

func (c *credential) secret(nb *notebook) secret {
	where := c.at.where(nb)
	if c.secretAt != nil {
		where += " (access key id); " + c.secretAt.where(nb) + " (secret access key)"
	}
	return secret{rule: c.rule, where: where, hash: c.hash, keyID: c.keyID}
}

// rank orders rules by how much their name tells: bfaudit's own checks,
// then gitleaks' specific rules, then its generic one.
func rank(rule string) int {
	switch rule {
	case RuleServiceAccountKey, RuleAWSKeyPair, RuleAWSSecretKey:
		return 0
	case ruleGeneric:
		return 2
	}
	return 1
}

// scan finds the credentials in a notebook's texts with gitleaks' default
// rules and bfaudit's own checks, and counts each credential once, by the
// hash of its value: the places it was seen are listed together. An AWS
// access key id and the secret access key found next to it are one
// credential. At most maxSecrets are returned, sorted by where they are
// first seen; total counts them all.
func scan(ctx context.Context, nb *notebook) (found []secret, total int, err error) {
	d, err := gitleaks()
	if err != nil {
		return nil, 0, err
	}
	byHash := map[string]*credential{}
	var creds []*credential
	keep := func(rule, value, keyID string, at place) *credential {
		h := model.ShortHash(normalized(value))
		c := byHash[h]
		if c == nil {
			c = &credential{rule: rule, hash: h}
			byHash[h] = c
			creds = append(creds, c)
		} else if rank(rule) < rank(c.rule) || rank(rule) == rank(c.rule) && rule < c.rule {
			c.rule = rule
		}
		if c.keyID == "" {
			c.keyID = keyID
		}
		c.at.add(at)
		return c
	}
	var keyIDs, secrets []*credential
	for i, p := range nb.pieces {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		detectorMu.Lock()
		hits := d.DetectString(p.text) // a text is at most 256 KiB: ctx is checked between texts
		detectorMu.Unlock()
		for _, f := range hits {
			value := cmp.Or(f.Secret, f.Match)
			c := keep(f.RuleID, value, "", place{i, f.StartLine + 1})
			if f.RuleID == ruleAWSKeyID && !slices.Contains(keyIDs, c) {
				keyIDs = append(keyIDs, c)
			}
		}
		for _, k := range serviceAccountKeys(p.text) {
			keep(RuleServiceAccountKey, k.value, k.keyID, place{i, k.line})
		}
		for _, k := range awsSecretKeys(p.text) {
			if c := keep(RuleAWSSecretKey, k.value, "", place{i, k.line}); !slices.Contains(secrets, c) {
				secrets = append(secrets, c)
			}
		}
	}
	creds = pairAWSKeys(nb, creds, keyIDs, secrets)
	sort.SliceStable(creds, func(i, j int) bool {
		a, b := creds[i].at.first(), creds[j].at.first()
		if a != b {
			return a.piece < b.piece || a.piece == b.piece && a.line < b.line
		}
		return creds[i].rule < creds[j].rule
	})
	for _, c := range creds[:min(len(creds), maxSecrets)] {
		found = append(found, c.secret(nb))
	}
	return found, len(creds), nil
}

// pairAWSKeys makes each AWS secret access key one credential with the
// access key id found next to it: in the same text, the nearest line;
// else in the same cell; else the notebook's only key id, when it holds
// one id and one secret. The pair keeps the id's hash; the secret is no
// longer a credential of its own.
func pairAWSKeys(nb *notebook, creds, keyIDs, secrets []*credential) []*credential {
	paired := map[*credential]bool{}
	for _, s := range secrets {
		if s.rule != RuleAWSSecretKey {
			continue // the same value was found as something more telling
		}
		var best *credential
		bestScore := [2]int{3, 0}
		for _, id := range keyIDs {
			if paired[id] || id.rule != ruleAWSKeyID {
				continue
			}
			if score, ok := nearness(nb, id.at, s.at); ok && (score[0] < bestScore[0] || score[0] == bestScore[0] && score[1] < bestScore[1]) {
				best, bestScore = id, score
			}
		}
		if best == nil && len(keyIDs) == 1 && len(secrets) == 1 && keyIDs[0].rule == ruleAWSKeyID {
			best = keyIDs[0]
		}
		if best == nil {
			continue
		}
		paired[best], paired[s] = true, true
		at := s.at
		best.rule, best.secretAt = RuleAWSKeyPair, &at
	}
	out := creds[:0]
	for _, c := range creds {
		if !paired[c] || c.secretAt != nil {
			out = append(out, c)
		}
	}
	return out
}

// nearness scores how close a key id's places are to a secret's: 0 in the
// same text (then by line distance), 1 in the same cell; false when
// further apart.
func nearness(nb *notebook, id, secret places) ([2]int, bool) {
	best, ok := [2]int{3, 0}, false
	for _, a := range id.list {
		for _, b := range secret.list {
			var s [2]int
			switch {
			case a.piece == b.piece:
				s = [2]int{0, abs(a.line - b.line)}
			case nb.pieces[a.piece].cell != 0 && nb.pieces[a.piece].cell == nb.pieces[b.piece].cell:
				s = [2]int{1, abs(a.piece - b.piece)}
			default:
				continue
			}
			if !ok || s[0] < best[0] || s[0] == best[0] && s[1] < best[1] {
				best, ok = s, true
			}
		}
	}
	return best, ok
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// privateKeyBody is the base64 body of a PEM private key, however it was
// written: with real or escaped newlines, quoted in JSON or Python.
var privateKeyBody = regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:(.*?))-----END [A-Z ]*PRIVATE KEY-----`)

// normalized is the form of a secret value that is hashed: a private key
// by its body alone, so that gitleaks' private-key match and the
// service-account check, or the key in a JSON file and in a printed
// dict, hash alike.
func normalized(value string) string {
	m := privateKeyBody.FindStringSubmatch(value)
	if m == nil {
		return strings.TrimSpace(value)
	}
	return strings.NewReplacer(`\n`, "", `\`, "", "\n", "", "\r", "", " ", "", "\t", "", `"`, "", "'", "").Replace(m[1])
}

// A service-account key JSON as pasted into code (quotes maybe escaped
// inside a Python string) or as printed by Python (single quotes).
var (
	saType = regexp.MustCompile(`\\?["']type\\?["']\s*:\s*\\?["']service_account\\?["']`)
	saID   = regexp.MustCompile(`\\?["']private_key_id\\?["']\s*:\s*\\?["']([0-9a-fA-F]{16,64})\\?["']`)
	saKey  = regexp.MustCompile(`\\?["']private_key\\?["']\s*:\s*\\?["'](-----BEGIN [A-Z ]*PRIVATE KEY-----[^"']+?-----END [A-Z ]*PRIVATE KEY-----(?:\\\\n|\\n)?)`)
)

// found is a value one of bfaudit's checks found in a text, and its line.
type found struct {
	value, keyID string
	line         int
}

// serviceAccountKeys finds the service-account keys in a text: each
// private_key_id with a private key in the same text whose type is
// service_account. The value is the private key.
func serviceAccountKeys(text string) []found {
	if !saType.MatchString(text) {
		return nil
	}
	keys := saKey.FindAllStringSubmatchIndex(text, 16)
	if len(keys) == 0 {
		return nil
	}
	var out []found
	for i, id := range saID.FindAllStringSubmatchIndex(text, 16) {
		k := keys[min(i, len(keys)-1)]
		out = append(out, found{value: text[k[2]:k[3]], keyID: strings.ToLower(text[id[2]:id[3]]),
			line: strings.Count(text[:id[0]], "\n") + 1})
	}
	return out
}

// awsSecret is an AWS secret access key assigned to a name that says so
// (aws_secret_access_key = ..., AWS_SECRET_ACCESS_KEY=...,
// os.environ['AWS_SECRET_ACCESS_KEY'] = ..., boto3's 'SecretAccessKey':
// '...'): 40 characters of base64. AWS's documentation
// example (...EXAMPLEKEY) is a placeholder, as gitleaks takes its key id.
var awsSecret = regexp.MustCompile(`(?i)(?:aws_?secret_?access_?key|secret_?access_?key|aws_?secret_?key)\\?["']?\]?\s*[:=]\s*\\?["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`)

// awsSecretKeys finds the AWS secret access keys in a text.
func awsSecretKeys(text string) []found {
	var out []found
	for _, m := range awsSecret.FindAllStringSubmatchIndex(text, 64) {
		v := text[m[2]:m[3]]
		if strings.Contains(v, "EXAMPLE") {
			continue
		}
		out = append(out, found{value: v, line: strings.Count(text[:m[2]], "\n") + 1})
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
				text = strings.ReplaceAll(text, v, "[credential "+model.ShortHash(v)+"]")
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
