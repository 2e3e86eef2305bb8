package slack

import (
	"encoding/json"
	"fmt"

	"github.com/slack-go/slack"
)

// A message in several parts is one rendered document cut at block
// boundaries (paginate). The parts are stored with the message's claim as
// rendered, so a run that finishes a message another run began posts
// exactly the parts that did not land, byte for byte: rendering again
// (a later audit time, a changed estate, another comparison base) could
// cut at other blocks and repeat or drop entries at the seam.

// storedPart is one part as kept in the history store; the metadata is
// not kept, keyed derives it again.
type storedPart struct {
	Text   string       `json:"text"`
	Blocks slack.Blocks `json:"blocks"`
}

func encodeParts(msgs []message) (string, error) {
	ps := make([]storedPart, len(msgs))
	for i, m := range msgs {
		ps[i] = storedPart{Text: m.Text, Blocks: slack.Blocks{BlockSet: m.Blocks}}
	}
	b, err := json.Marshal(ps)
	if err != nil {
		return "", fmt.Errorf("store the rendered parts: %w", err)
	}
	return string(b), nil
}

func decodeParts(s string) ([]message, error) {
	var ps []storedPart
	if err := json.Unmarshal([]byte(s), &ps); err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("no parts")
	}
	msgs := make([]message, len(ps))
	for i, p := range ps {
		msgs[i] = message{Text: p.Text, Blocks: p.Blocks.BlockSet}
	}
	return msgs, nil
}
