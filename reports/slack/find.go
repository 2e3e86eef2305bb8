package slack

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/slack-go/slack"
)

// Paging limits for reading a channel back: 200 a page, as Slack advises,
// and at most historyPages pages (10,000 messages since the claim).
const (
	historyPage  = 200
	historyPages = 50
)

// find reads channel back from oldest on (conversations.history with the
// metadata) for the head of k, then its thread (conversations.replies) for
// the other parts. A channel given by name is resolved to its id first
// (conversations.list), a user to the direct message channel
// (conversations.open): the history methods take ids only.
func (b botPoster) find(ctx context.Context, channel string, k msgKey, oldest time.Time) (landed, error) {
	id, err := b.channelID(ctx, channel)
	if err != nil {
		return landed{}, err
	}
	out := landed{channel: id, ts: map[int]string{}}
	from := fmt.Sprintf("%d.000000", oldest.Unix())
	pager := remote.Pager{What: "conversations.history of " + channel, Max: historyPages}
	p := &slack.GetConversationHistoryParameters{ChannelID: id, Oldest: from, Limit: historyPage, IncludeAllMetadata: true}
	for {
		var resp *slack.GetConversationHistoryResponse
		err := b.call(ctx, "conversations.history", func(call context.Context) (err error) {
			resp, err = b.api.GetConversationHistoryContext(call, p)
			return err
		})
		if err != nil {
			return landed{}, err
		}
		ids := make([]string, len(resp.Messages))
		for i, m := range resp.Messages {
			ids[i] = m.Timestamp
			if partOf(m, k) == 1 && out.ts[1] == "" {
				out.ts[1] = m.Timestamp
			}
		}
		next := ""
		if resp.HasMore {
			next = resp.ResponseMetaData.NextCursor
		}
		if err := pager.Next(next, ids...); err != nil {
			return landed{}, err
		}
		if next == "" {
			break
		}
		p.Cursor = next
	}
	if out.ts[1] == "" {
		return out, nil
	}
	return out, b.findReplies(ctx, channel, k, from, &out)
}

// findReplies adds the parts threaded under the head found.
func (b botPoster) findReplies(ctx context.Context, channel string, k msgKey, from string, out *landed) error {
	pager := remote.Pager{What: "conversations.replies of " + channel, Max: historyPages}
	p := &slack.GetConversationRepliesParameters{ChannelID: out.channel, Timestamp: out.ts[1], Oldest: from, Limit: historyPage, IncludeAllMetadata: true}
	for {
		var msgs []slack.Message
		var more bool
		var cursor string
		err := b.call(ctx, "conversations.replies", func(call context.Context) (err error) {
			msgs, more, cursor, err = b.api.GetConversationRepliesContext(call, p)
			return err
		})
		if err != nil {
			return err
		}
		ids := make([]string, len(msgs))
		for i, m := range msgs {
			ids[i] = m.Timestamp
			if n := partOf(m, k); n > 1 && out.ts[n] == "" {
				out.ts[n] = m.Timestamp
			}
		}
		next := ""
		if more {
			next = cursor
		}
		if err := pager.Next(next, ids...); err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		p.Cursor = next
	}
}

// channelID resolves what chat.postMessage accepts (an id, a #name, a
// user id) to the conversation id the history methods need.
func (b botPoster) channelID(ctx context.Context, channel string) (string, error) {
	switch {
	case channel == "":
		return "", fmt.Errorf("no channel")
	case strings.HasPrefix(channel, "U") || strings.HasPrefix(channel, "W"):
		var ch *slack.Channel
		err := b.call(ctx, "conversations.open", func(call context.Context) (err error) {
			ch, _, _, err = b.api.OpenConversationContext(call, &slack.OpenConversationParameters{Users: []string{channel}, ReturnIM: true})
			return err
		})
		if err != nil {
			return "", err
		}
		return ch.ID, nil
	case !strings.HasPrefix(channel, "#") && channel == strings.ToUpper(channel):
		return channel, nil // C..., G..., D...: already an id
	}
	name := strings.TrimPrefix(channel, "#")
	pager := remote.Pager{What: "conversations.list", Max: historyPages}
	p := &slack.GetConversationsParameters{ExcludeArchived: true, Limit: historyPage, Types: []string{"public_channel", "private_channel"}}
	for {
		var chans []slack.Channel
		var cursor string
		err := b.call(ctx, "conversations.list", func(call context.Context) (err error) {
			chans, cursor, err = b.api.GetConversationsContext(call, p)
			return err
		})
		if err != nil {
			return "", err
		}
		ids := make([]string, len(chans))
		for i, c := range chans {
			ids[i] = c.ID
			if c.Name == name {
				return c.ID, nil
			}
		}
		if err := pager.Next(cursor, ids...); err != nil {
			return "", err
		}
		if cursor == "" {
			return "", fmt.Errorf("conversations.list: no channel named %s that the bot can see", esc(channel, 80))
		}
		p.Cursor = cursor
	}
}

// call runs one Web API call under the call deadline, its errors named
// like post's.
func (b botPoster) call(ctx context.Context, method string, fn func(context.Context) error) error {
	call, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.fail(ctx, call, method, fn(call))
}
