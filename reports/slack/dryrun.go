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
}

// dryRun prints every payload a real run would send, as JSON values one
// after another (jq reads the stream), and posts nothing. It makes no
// network call: a direct message's channel names the e-mail a real run
// would look up, and a reply's thread_ts stands for the first message's ts.
// When the period's digest was already posted, res.Skipped says a real run
// would post nothing.
func (s *Sink) dryRun(ctx context.Context, key history.DigestKey, d *digest, groups []ownerItems, res *Result) error {
	if s.store != nil && !s.cfg.Force {
		if posted, err := s.store.DigestPosted(ctx, key); err == nil && posted {
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
	if err := s.print(s.cfg.Channel, append(d.messages(), fallbackMessages(d, fallbacks)...)); err != nil {
		return err
	}
	for _, o := range dms {
		if err := s.print("(users.lookupByEmail "+o.email+")", directMessages(d, o)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sink) print(channel string, msgs []message) error {
	enc := json.NewEncoder(s.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // print the text exactly as sent
	for i, m := range msgs {
		var v any
		if _, ok := s.poster.(webhookPoster); ok {
			v = webhookMessage(m)
		} else {
			p := postPayload{Channel: channel, Text: m.Text, Blocks: m.Blocks}
			if i > 0 {
				p.ThreadTS = "(ts of the first message)"
			}
			v = p
		}
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("slack: dry run: print payload: %w", err)
		}
	}
	return nil
}
