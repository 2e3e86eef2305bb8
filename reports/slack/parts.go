package slack

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/slack-go/slack"
)

// A message in several parts is one rendered document cut at block
// boundaries (paginate). The parts are stored with the message's claim as
// rendered, so a run that finishes a message another run began posts
// exactly the parts that did not land, byte for byte: rendering again
// (a later audit time, a changed estate, another comparison base) could
// cut at other blocks and repeat or drop entries at the seam.

// rendering is a message as kept in the history store: the audit time it
// was rendered for, and its parts. The time is what the message is
// recorded as posted for, so "since the last digest" counts from what the
// digest showed, not from the run that finished posting it.
type rendering struct {
	RunAt time.Time    `json:"run_at"`
	Parts []storedPart `json:"parts"`
}

// storedPart is one part; the metadata is not kept, keyed derives it
// again.
type storedPart struct {
	Text   string       `json:"text"`
	Blocks slack.Blocks `json:"blocks"`
}

func encodeParts(runAt time.Time, msgs []message) (string, error) {
	r := rendering{RunAt: runAt.UTC(), Parts: make([]storedPart, len(msgs))}
	for i, m := range msgs {
		r.Parts[i] = storedPart{Text: m.Text, Blocks: slack.Blocks{BlockSet: m.Blocks}}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("store the rendered parts: %w", err)
	}
	return string(b), nil
}

func decodeParts(s string) (time.Time, []message, error) {
	var r rendering
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return time.Time{}, nil, err
	}
	if len(r.Parts) == 0 {
		return time.Time{}, nil, fmt.Errorf("no parts")
	}
	msgs := make([]message, len(r.Parts))
	for i, p := range r.Parts {
		msgs[i] = message{Text: p.Text, Blocks: p.Blocks.BlockSet}
	}
	return r.RunAt, msgs, nil
}
