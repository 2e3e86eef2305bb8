package slack

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/slack-go/slack"
)

// Exactly once. Every message bfaudit posts carries Slack message metadata
// naming it: an event type and a key (the digest's sink and period, an
// owner and the period, or a caller's key such as a finding fingerprint
// and a stage). Before posting, a run claims the key in the history store
// as a short lease, renewed before each call to Slack; when done it
// confirms. A run that died between Slack accepting a message and the
// store confirming it leaves the claim unconfirmed: the next run takes it
// over once the lease has run out and, before posting, reads the channel
// back (conversations.history with the metadata, from the first claim on)
// and adopts what landed instead of posting it again.

// Event types of the metadata on bfaudit's messages.
const (
	EventDigest  = "bfaudit_digest"
	EventOwnerDM = "bfaudit_owner_dm"
)

// clockSkew is how far before its claim a message is looked for: the
// store's clock and Slack's may disagree a little.
const clockSkew = time.Minute

// msgKey names a keyed message in Slack's metadata.
type msgKey struct {
	event, key string
}

// keyed marks each part of msgs with k, numbered from 1.
func keyed(k msgKey, msgs []message) []message {
	out := make([]message, len(msgs))
	for i, m := range msgs {
		m.Meta = &slack.SlackMetadata{EventType: k.event, EventPayload: map[string]any{"key": k.key, "part": i + 1, "parts": len(msgs)}}
		out[i] = m
	}
	return out
}

// partOf says which part of k a message found in Slack is (0: not one).
func partOf(m slack.Message, k msgKey) int {
	md := m.Metadata
	if md.EventType != k.event || md.EventPayload["key"] != k.key {
		return 0
	}
	if n, ok := md.EventPayload["part"].(float64); ok && n >= 1 && n == float64(int(n)) {
		return int(n)
	}
	return 0
}

// landed is what of a keyed message was found in Slack: the channel and
// the ts of each part by number (1 is the head the rest thread under).
type landed struct {
	channel string
	ts      map[int]string
}

// delivery is what deliverOnce did.
type delivery struct {
	posted    bool   // every part is in Slack now, confirmed
	already   bool   // confirmed by an earlier run: nothing done
	recovered string // an unconfirmed claim was taken over: what was found
}

// UnconfirmedError is a message another run claimed and has not
// confirmed, still renewing its lease after this run waited two leases
// for it. The CLI exits 3 on it (it wraps ErrIncomplete); a run after
// Until finishes the job without posting anything twice.
type UnconfirmedError struct {
	What        string // "weekly digest for 2026-W48"
	FirstClaim  time.Time
	LastRenewed time.Time
	Until       time.Time
}

func (e *UnconfirmedError) Error() string {
	return fmt.Sprintf("%s was claimed at %s and never confirmed: the run holding it renewed its lease last at %s; "+
		"if that run is still posting, nothing is wrong; if it died, run again after %s and bfaudit looks in Slack for what went out before posting the rest",
		e.What, stamp(e.FirstClaim), stamp(e.LastRenewed), stamp(e.Until))
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// deliverOnce posts msgs to channel (threaded under the first) exactly
// once for dk: see the top of this file. what names it in errors, e.g.
// "weekly digest for 2026-W10". force posts again what was confirmed, and
// posts a claim never confirmed without looking in Slack first.
func (s *Sink) deliverOnce(ctx context.Context, dk history.DigestKey, event, what string, force bool, channel string, msgs []message, count *int) (delivery, error) {
	k := msgKey{event: event, key: dk.String()}
	if s.store == nil { // slack.period: every, nothing to repeat
		_, err := s.postThread(ctx, channel, what, keyed(k, msgs), landed{}, count, nil)
		return delivery{posted: err == nil}, err
	}
	runAt := s.runAt
	rendered, err := encodeParts(runAt, msgs)
	if err != nil {
		return delivery{}, fmt.Errorf("%s: %w", what, err)
	}
	c, err := s.claim(ctx, dk, force, rendered)
	switch {
	case err != nil:
		return delivery{}, err
	case c.Posted:
		return delivery{already: true}, nil
	case c.Busy:
		return delivery{}, &UnconfirmedError{What: what, FirstClaim: c.FirstClaimed, LastRenewed: c.ClaimedAt, Until: c.Until}
	}
	if c.Parts != "" {
		// The run that first claimed this message rendered it: post its
		// parts, not this run's, so the thread reads as one document.
		if runAt, msgs, err = decodeParts(c.Parts); err != nil {
			_ = s.store.ReleaseDigest(ctx, dk)
			return delivery{}, fmt.Errorf("%s was claimed at %s and never confirmed, and its stored parts cannot be read (%w); run with force to post it again", what, stamp(c.Since), err)
		}
		if runAt.IsZero() {
			runAt = s.runAt
		}
	}
	msgs = keyed(k, msgs)
	var d delivery
	var found landed
	if c.Unconfirmed && !force {
		found, err = s.poster.find(ctx, channel, k, c.Since.Add(-clockSkew))
		if err != nil {
			_ = s.store.ReleaseDigest(ctx, dk) // still unconfirmed: the next run looks again
			return d, fmt.Errorf("%s was claimed at %s and never confirmed, and bfaudit cannot check whether it went out (%w); "+
				"it is not posted again, so that it is not posted twice: look in %s, then run with force to post it", what, stamp(c.Since), err, channel)
		}
		d.recovered = fmt.Sprintf("%s was claimed at %s and never confirmed: %d of %d messages had gone out", what, stamp(c.Since), len(found.ts), len(msgs))
		if c.Parts != "" {
			d.recovered += "; the rest are posted as rendered for the audit of " + stamp(runAt)
		}
	}
	renew := func() error { return s.store.RenewDigest(ctx, dk) }
	if _, err := s.postThread(ctx, channel, what, msgs, found, count, renew); err != nil {
		if !errors.Is(err, history.ErrClaimLost) {
			if rerr := s.store.ReleaseDigest(ctx, dk); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		return d, err
	}
	d.posted = true
	if err := s.store.MarkDigestPosted(ctx, dk, runAt); err != nil {
		return d, fmt.Errorf("%s posted but not confirmed (the next run looks for it in Slack before posting): %w", what, err)
	}
	return d, nil
}

// Waiting for another run's claim: how often to look, and for how long at
// most (two leases: a run that renews past that is stuck, or very slow).
const (
	claimPoll    = 5 * time.Second
	claimPatient = 2 * history.DefaultDigestLease
)

// claim claims dk; while another run holds a live lease it waits for that
// run to confirm (then there is nothing to do) or for the lease to run out
// (then this run takes over), up to claimPatient. Still busy after that, c
// says so.
func (s *Sink) claim(ctx context.Context, dk history.DigestKey, force bool, parts string) (history.Claim, error) {
	for range int(claimPatient/claimPoll) + 1 {
		c, err := s.store.ClaimParts(ctx, dk, force, parts)
		if err != nil || !c.Busy {
			return c, err
		}
		if err := s.sleep(ctx, claimPoll); err != nil {
			return c, err
		}
	}
	return s.store.ClaimParts(ctx, dk, force, parts)
}

// Delivery says what SendOnce did.
type Delivery struct {
	// Sent: the message is in Slack, confirmed by this call.
	Sent bool
	// Already: an earlier run confirmed it; nothing was sent.
	Already bool
	// Recovered, when set, says an earlier run claimed the message and died
	// before confirming it, and what of it this call found in Slack.
	Recovered string
}

// SendOnce posts text (with blocks; split into threaded parts when over
// Slack's limits) to channel, a channel or a user id for a direct
// message, exactly once per (event, key), across reruns and crashes: e.g.
// event "bfaudit_reminder", key a finding's fingerprint and the stage.
// It needs the history store and a bot token (to read back what landed).
// An *UnconfirmedError (wrapped in ErrIncomplete) means another run holds
// the message's live claim.
func (s *Sink) SendOnce(ctx context.Context, event, key, channel, text string, blocks []slack.Block) (Delivery, error) {
	if s.store == nil {
		return Delivery{}, fmt.Errorf("slack: %s %s: sending once needs the history store", event, key)
	}
	if s.cfg.DryRun {
		return Delivery{}, fmt.Errorf("slack: %s %s: SendOnce does not plan dry runs", event, key)
	}
	if s.waitLeft <= 0 {
		s.waitLeft = retryBudget
	}
	if s.runAt.IsZero() {
		s.runAt = s.now()
	}
	dk := history.DigestKey{Sink: "slack-once:" + event, Period: key}
	var n int
	d, err := s.deliverOnce(ctx, dk, event, event+" "+key, false, channel, paginate(text, blocks), &n)
	if err != nil {
		return Delivery{Sent: d.posted, Recovered: d.recovered}, fmt.Errorf("%w: %w", ErrIncomplete, err)
	}
	return Delivery{Sent: d.posted, Already: d.already, Recovered: d.recovered}, nil
}
