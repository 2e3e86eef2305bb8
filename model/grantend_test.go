package model

import (
	"errors"
	"testing"
	"time"
)

func TestSetEnd(t *testing.T) {
	end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

	var bounded Artifact
	bounded.SetEnd(end, true, nil)
	if !bounded.ExpiresAt.Time().Equal(end) || bounded.Attr(AttrTimeBound) != "true" || bounded.Attr(AttrConditionError) != "" {
		t.Errorf("bounded: ExpiresAt %v, attributes %v", bounded.ExpiresAt, bounded.Attributes)
	}

	unbounded := Artifact{Attributes: Attrs(AttrTimeBound, "false")}
	unbounded.SetEnd(time.Time{}, false, nil)
	if !unbounded.ExpiresAt.IsZero() || unbounded.Attr(AttrTimeBound) != "false" || unbounded.Attr(AttrConditionError) != "" {
		t.Errorf("unbounded: ExpiresAt %v, attributes %v", unbounded.ExpiresAt, unbounded.Attributes)
	}

	broken := Artifact{Attributes: Attrs(AttrTimeBound, "false")}
	broken.SetEnd(end, true, errors.New("line 1, column 9: not a timestamp"))
	if !broken.ExpiresAt.IsZero() || broken.Attr(AttrTimeBound) != "false" || broken.Attr(AttrConditionError) != "line 1, column 9: not a timestamp" {
		t.Errorf("unreadable condition: ExpiresAt %v, attributes %v", broken.ExpiresAt, broken.Attributes)
	}
}
