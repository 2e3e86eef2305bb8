package slack

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/slack-go/slack"
)

// postPayload is a chat.postMessage request as JSON, the body Slack accepts
// for the same call slack-go sends form-encoded.
type postPayload struct {
	Channel     string        `json:"channel"`
	ThreadTS    string        `json:"thread_ts,omitempty"`
	Text        string        `json:"text"`
	Blocks      []slack.Block `json:"blocks"`
	UnfurlLinks bool          `json:"unfurl_links"`
	UnfurlMedia bool          `json:"unfurl_media"`
	// Metadata names the message so a rerun can find it (once.go).
	Metadata *slack.SlackMetadata `json:"metadata,omitempty"`
}

// plannedCall is one line of a dry run's plan: a call a real run would
// make. Method is the Web API method, or "webhook".
type plannedCall struct {
	Sink    string `json:"sink"`
	Method  string `json:"method"`
	Channel string `json:"channel,omitempty"`
	Body    any    `json:"body"`
}

// dryRun writes the plan of a real run as JSON Lines, one compact object
// per call it would make, in its order (jq reads it line by line), and
// calls nothing. Only what is due is planned: no digest when the period's
// went out (res.Skipped says so), no owner whose message went out. It makes
// no network call: a direct message's channel names the e-mail a real run
// would look up, and a reply's thread_ts stands for the first message's ts.
func (s *Sink) dryRun(ctx context.Context, key history.DigestKey, d *digest, groups []ownerItems, res *Result) error {
	due := true
	if s.store != nil && !s.cfg.Force {
		if posted, err := s.store.DigestPosted(ctx, key); err == nil && posted {
			due = false
			res.Skipped = "the digest for " + key.Period + " was already posted: a real run would skip it (use force to post again)"
		}
	}
	var dms, fallbacks []ownerItems
	for _, g := range groups {
		if g.email == "" {
			fallbacks = append(fallbacks, g)
		} else {
			dms = append(dms, g)
		}
	}
	enc := json.NewEncoder(s.out) // one compact value a line
	enc.SetEscapeHTML(false)      // print the text exactly as sent
	plan := func(c plannedCall) error {
		c.Sink = "slack"
		if err := enc.Encode(c); err != nil {
			return fmt.Errorf("slack: dry run: write the plan: %w", err)
		}
		return nil
	}
	for _, o := range dms {
		if err := plan(plannedCall{Method: "users.lookupByEmail", Body: map[string]string{"email": o.email}}); err != nil {
			return err
		}
	}
	if due {
		msgs := s.plannedParts(ctx, key, append(d.messages(), fallbackMessages(d, fallbacks)...))
		if err := s.planThread(plan, s.cfg.Channel, keyed(msgKey{EventDigest, key.String()}, msgs)); err != nil {
			return err
		}
	}
	for _, o := range dms {
		dk := dmKey(o.owner, key.Period)
		if err := s.planThread(plan, "(users.lookupByEmail "+o.email+")", keyed(msgKey{EventOwnerDM, dk.String()}, s.plannedParts(ctx, dk, directMessages(d, o)))); err != nil {
			return err
		}
	}
	return nil
}

// plannedParts is what a real run would post for k: the parts stored with
// a claim never confirmed (a real run finishes that rendering, see
// parts.go), else msgs. The plan lists every part; a real run posts only
// those not found in Slack.
func (s *Sink) plannedParts(ctx context.Context, k history.DigestKey, msgs []message) []message {
	if s.store == nil || s.cfg.Force && k.Sink == s.sink {
		return msgs
	}
	stored, err := s.store.UnconfirmedParts(ctx, k)
	if err != nil || stored == "" {
		return msgs
	}
	if _, ps, err := decodeParts(stored); err == nil {
		return ps
	}
	return msgs
}

// planThread plans the calls that post msgs, the later ones as replies to
// the first.
func (s *Sink) planThread(plan func(plannedCall) error, channel string, msgs []message) error {
	for i, m := range msgs {
		c := plannedCall{Method: "chat.postMessage", Channel: channel}
		if _, ok := s.poster.(webhookPoster); ok {
			c = plannedCall{Method: "webhook", Body: webhookMessage(m)}
		} else {
			p := postPayload{Channel: channel, Text: m.Text, Blocks: m.Blocks, Metadata: m.Meta}
			if i > 0 {
				p.ThreadTS = "(ts of the first message)"
			}
			c.Body = p
		}
		if err := plan(c); err != nil {
			return err
		}
	}
	return nil
}
