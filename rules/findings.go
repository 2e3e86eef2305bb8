package rules

import (
	"encoding/binary"
	"encoding/hex"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/bfaudit/bfaudit/model"
)

// findingBlocks holds what the built-in rules report until the engine
// moves it into the report's one slice of findings. Two things keep that
// cheap with millions of findings:
//   - blocks are never moved: a slice grown by append copies every finding
//     several times on the way (about five times over with the 1.25 growth
//     of large slices) and leaves up to a quarter of it unused;
//   - a block holds only what varies between a rule's findings (staged),
//     half a finding's size, since the blocks and the final slice exist
//     together for a moment.
type findingBlocks struct {
	full [][]staged
	cur  []staged
	n    int
	// texts keeps one copy of each evidence line: lines repeat ("tied by
	// label", "plan plans/bf-1.yaml lists 1 asset(s)", the state of an
	// artifact that several rules flag), and are built for each finding.
	// On the bench estate 404,000 lines are 78,000 different ones. The
	// map holds no more than the findings do, and goes with the blocks
	// once the precedence has folded them (its lines repeat more: 54,000
	// folds of the bench estate write 2,700 different lines).
	texts map[string]string
	// folds keeps one copy of each list of folded rules, by the rules
	// joined: the bench estate's 51,000 folded findings hold two lists.
	// A list is shared, so it is never appended to in place (foldInto
	// clips it).
	folds map[string][]string
	// kept holds the staged findings' messages, fingerprints and
	// evidence, copied out of the rules' garbage (chunks).
	kept chunks
	// foldable are the rules another running rule supersedes (the
	// precedence). Their findings' texts are kept apart, in doubt (with
	// doubtTexts as their texts), until the precedence has folded them:
	// most are folded (51,000 of the bench estate's 65,000 findings of
	// BF014), and a fold leaves a dead finding's texts in the chunks for
	// the rest of the run. close copies the survivors' texts into kept
	// and lets the rest go (10 MB at 100,000 artifacts).
	foldable   precedence
	doubt      chunks
	doubtTexts map[string]string
	// origins keeps one copy of each origin, and last the latest (the
	// findings of a rule on one artifact come together).
	origins map[origin]*origin
	last    *origin
	// line and ids are the fold's scratch space (foldInto).
	line []byte
	ids  []string
	// big says the drain hands memory back as it goes (releaseFrom),
	// decided on what was staged, before close drops the dead.
	big bool
}

// staged is a finding without what its rule gives every finding (id,
// name, title, step, remediation) and without what only later stages set
// (waiver, history), which Context.Report leaves zero. It is packed: the
// staged findings are the rules' whole live set beside the index (1.5
// million of them for a million artifacts), so the source, scope and
// location a finding shares with the other findings on its artifact are
// one kept origin, and its evidence and folded rules are a pointer and a
// length instead of a slice, and its fingerprint a number instead of a
// string and its 16 bytes of text (128 bytes instead of 200).
type staged struct {
	rule        *Rule
	backfillID  string
	key         model.BackfillID
	artifactURI string
	owner       string
	message     string
	origin      *origin
	fingerprint uint64  // its 16 hex digits (model.Fingerprint) read as a number
	ev          *string // evidence: nev lines from here (evidence, setEvidence)
	fold        *string // folded rules: nfold ids from here, set by the precedence
	nev         uint32
	nfold       uint16
	severity    model.Severity
}

// origin is where findings rest: their source, scope and location.
type origin struct {
	source, scope string
	location      *model.Location
}

func (s *staged) evidence() []string {
	if s.ev == nil {
		return nil
	}
	return unsafe.Slice(s.ev, s.nev)
}

func (s *staged) setEvidence(l []string) {
	s.ev, s.nev = unsafe.SliceData(l), uint32(len(l))
}

func (s *staged) folded() []string {
	if s.fold == nil {
		return nil
	}
	return unsafe.Slice(s.fold, s.nfold)
}

func (s *staged) setFolded(l []string) {
	s.fold, s.nfold = unsafe.SliceData(l), uint16(len(l))
}

const blockLen = 4096

// releaseFrom is how many staged findings make a drain big enough to hand
// memory back to the system as it goes. The findings slice the drain
// fills is one allocation the size of every finding (450 MB for the 1.5
// million of a million-artifact estate), made while the staged blocks
// (240 MB) and the loading's garbage still hold their pages: the run's
// peak. Collecting before the slice is made, and after each quarter of the
// blocks is copied, keeps that peak near what is live, at one collection
// per quarter: for the 148,000 findings of the 100,000-artifact bench
// estate, 230 MiB peak RSS instead of 285 MiB for about 0.15 s; for a
// million artifacts, 1.76 GiB instead of 2.1 GiB. Smaller drains are left
// to the runtime. A variable so that tests can run the path.
var releaseFrom = 100_000

// close ends reporting, once the precedence folded the findings: the
// maps of kept copies go, the dead findings leave the blocks, and a big
// drain hands memory back before the engine makes the findings slice
// (releaseFrom).
func (b *findingBlocks) close(dead []bool) {
	b.big = b.n >= releaseFrom
	b.compact(dead)
	b.settleDoubt()
	b.texts, b.folds, b.origins, b.last, b.line, b.ids = nil, nil, nil, nil, nil, nil
	if b.big {
		release()
	}
}

// compact moves the findings not dead to the front of the blocks, in
// order, and lets go of the blocks left empty: the blocks and the
// report's slice exist together during the drain (the run's peak), and a
// third of the bench estate's staged findings are folded or duplicates
// (11 MB at 100,000 artifacts, 110 MB at a million).
func (b *findingBlocks) compact(dead []bool) {
	w := int32(0)
	for r := range int32(b.n) {
		if !dead[r] {
			if w != r {
				*b.at(w) = *b.at(r)
			}
			w++
		}
	}
	all := b.full
	if len(b.cur) > 0 {
		all = append(all, b.cur)
	}
	full, rest := int(w)/blockLen, int(w)%blockLen
	var cur []staged
	if rest > 0 {
		blk := all[full][:cap(all[full])]
		clear(blk[rest:]) // what was moved from there holds texts
		cur = blk[:rest]
	}
	clear(all[full:])
	b.full, b.cur, b.n = all[:full], cur, int(w)
}

// settleDoubt copies into kept the texts of the findings of foldable
// rules that the precedence left standing (their evidence list too: a
// fold may have given one a list of its own), and lets go of the texts in
// doubt, which then nothing refers to: a fold copies what it takes of a
// folded finding into kept (foldInto), and no finding of another rule
// shares a text in doubt (add).
func (b *findingBlocks) settleDoubt() {
	if len(b.foldable) == 0 {
		return
	}
	for i := range int32(b.n) {
		s := b.at(i)
		if b.foldable[s.rule.ID] == nil {
			continue
		}
		s.message = b.kept.keep(s.message)
		ev := s.evidence()
		if len(ev) == 0 {
			continue
		}
		l := make([]string, len(ev))
		for j, e := range ev {
			l[j] = b.text(e)
		}
		s.setEvidence(b.kept.keepList(l))
	}
	b.doubt, b.doubtTexts = chunks{}, nil
}

// release collects garbage and returns the freed memory to the system (a
// variable for tests to count calls).
var release = debug.FreeOSMemory

// add stores a finding of rule r.
func (b *findingBlocks) add(r *Rule, f *model.Finding) {
	if len(b.cur) == cap(b.cur) {
		if b.cur != nil {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]staged, 0, blockLen)
	}
	kept, text := &b.kept, b.text
	if b.foldable[r.ID] != nil {
		kept, text = &b.doubt, b.doubtful
	}
	for i, e := range f.Evidence {
		f.Evidence[i] = text(e)
	}
	s := staged{rule: r, severity: f.Severity, backfillID: f.BackfillID, key: f.Key, artifactURI: f.ArtifactURI,
		owner: f.Owner, message: kept.keep(f.Message), fingerprint: fingerprintNumber(f.Fingerprint),
		origin: b.origin(origin{f.Source, f.Scope, f.Location})}
	s.setEvidence(kept.keepList(f.Evidence))
	b.cur = append(b.cur, s)
	b.n++
}

// origin returns the kept copy of o.
func (b *findingBlocks) origin(o origin) *origin {
	if b.last != nil && *b.last == o {
		return b.last
	}
	k, ok := b.origins[o]
	if !ok {
		if b.origins == nil {
			b.origins = map[origin]*origin{}
		}
		k = &o
		b.origins[o] = k
	}
	b.last = k
	return k
}

// at returns the i-th finding added.
func (b *findingBlocks) at(i int32) *staged {
	if f := int(i) / blockLen; f < len(b.full) {
		return &b.full[f][int(i)%blockLen]
	}
	return &b.cur[int(i)-len(b.full)*blockLen]
}

// settle marks dead each finding added twice (same fingerprint: the first
// stays) and each finding the precedence folds into another, and returns
// how many survive. It also drops from user (findings made outside the
// blocks, which come after them) each whose fingerprint came before, and
// returns what is left of it: the set of fingerprints (4.7 MB at 100,000
// artifacts, 38 MB at a million) is garbage before the drain makes the
// report's slice.
func (b *findingBlocks) settle(p precedence, user []model.Finding) ([]bool, int, []model.Finding) {
	seen := fingerprintSet{hex: make(map[uint64]struct{}, b.n+len(user))}
	dead := make([]bool, b.n)
	for i := range int32(b.n) {
		dead[i] = !seen.addNumber(b.at(i).fingerprint)
	}
	p.fold(b, dead)
	live := 0
	for _, d := range dead {
		if !d {
			live++
		}
	}
	kept := user[:0]
	for _, f := range user {
		if seen.add(f.Fingerprint) {
			kept = append(kept, f)
		}
	}
	return dead, live, kept
}

// text returns the kept copy of s.
func (b *findingBlocks) text(s string) string { return keepOnce(&b.kept, &b.texts, s) }

// doubtful returns the kept copy of s for a finding of a foldable rule:
// kept's when there is one, else one in doubt, so that no finding of
// another rule ever refers to a text in doubt.
func (b *findingBlocks) doubtful(s string) string {
	if t, ok := b.texts[s]; ok {
		return t
	}
	return keepOnce(&b.doubt, &b.doubtTexts, s)
}

// keepOnce returns the copy of s in c that *seen finds, made when it is
// the first.
func keepOnce(c *chunks, seen *map[string]string, s string) string {
	if t, ok := (*seen)[s]; ok {
		return t
	}
	if *seen == nil {
		*seen = map[string]string{}
	}
	s = c.keep(s)
	(*seen)[s] = s
	return s
}

// forgetTexts drops the maps that found the kept copy of each line the
// rules wrote (6 MB at 100,000 artifacts), once they are done: the fold
// writes lines of its own, which repeat among themselves (foldInto), and
// starts a map of those.
func (b *findingBlocks) forgetTexts() {
	b.texts, b.doubtTexts = nil, nil
}

// textOf returns the kept copy of line's text, made only when new.
func (b *findingBlocks) textOf(line []byte) string {
	if t, ok := b.texts[string(line)]; ok {
		return t
	}
	return b.text(string(line))
}

// foldedList returns the kept copy of the list ids, made only when new.
func (b *findingBlocks) foldedList(ids []string) []string {
	key := b.line[:0]
	for i, id := range ids {
		if i > 0 {
			key = append(key, ',')
		}
		key = append(key, id...)
	}
	b.line = key
	if l, ok := b.folds[string(key)]; ok {
		return l
	}
	if b.folds == nil {
		b.folds = map[string][]string{}
	}
	l := slices.Clone(ids)
	b.folds[string(key)] = l
	return l
}

// drain hands each finding left by close, whole again, to fn in the
// order they were added, letting each block go once it is done. f is
// only good during the call.
func (b *findingBlocks) drain(fn func(f *model.Finding)) {
	var quarter int
	if b.big {
		quarter = max(len(b.full)/4, 1)
	}
	var f model.Finding
	each := func(blk []staged) {
		for i := range blk {
			s := &blk[i]
			f = model.Finding{RuleID: s.rule.ID, RuleName: s.rule.Name, Title: s.rule.Title, Step: s.rule.Step,
				Severity: s.severity, BackfillID: s.backfillID, Key: s.key, ArtifactURI: s.artifactURI, Owner: s.owner,
				Message: s.message, Evidence: s.evidence(), Folded: s.folded(), Remediation: s.rule.Remediation, Fingerprint: b.fingerprint(s.fingerprint),
				Source: s.origin.source, Scope: s.origin.scope, Location: s.origin.location}
			fn(&f)
		}
	}
	for i := range b.full {
		blk := b.full[i]
		b.full[i] = nil
		each(blk)
		if quarter > 0 && (i+1)%quarter == 0 {
			release()
		}
	}
	each(b.cur)
	*b = findingBlocks{}
}

// addNumber adds a fingerprint read as a number and reports whether it
// was new.
func (s *fingerprintSet) addNumber(n uint64) bool {
	if _, dup := s.hex[n]; dup {
		return false
	}
	s.hex[n] = struct{}{}
	return true
}

// fingerprintNumber reads a fingerprint made by model.Fingerprint (16
// lowercase hex digits, as Context.Report makes every staged finding's)
// as a number.
func fingerprintNumber(fp string) uint64 {
	n, _ := strconv.ParseUint(fp, 16, 64)
	return n
}

// fingerprint returns the text of a fingerprint read as a number, kept.
func (b *findingBlocks) fingerprint(n uint64) string {
	var raw [8]byte
	var text [16]byte
	binary.BigEndian.PutUint64(raw[:], n)
	hex.Encode(text[:], raw[:])
	return b.kept.keep(unsafe.String(&text[0], len(text))) // keep copies it
}

// fingerprintSet holds the fingerprints seen. A fingerprint is 16 hex
// digits (model.Fingerprint), which read as a number make a key of 8
// bytes instead of a string's 16 and its pointer to follow; any other
// text is kept as a string.
type fingerprintSet struct {
	hex   map[uint64]struct{}
	other map[string]struct{}
}

// add adds fp and reports whether it was new.
func (s *fingerprintSet) add(fp string) bool {
	if n, err := strconv.ParseUint(fp, 16, 64); err == nil && len(fp) == 16 && fp == strings.ToLower(fp) {
		return s.addNumber(n)
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	if _, dup := s.other[fp]; dup {
		return false
	}
	s.other[fp] = struct{}{}
	return true
}
