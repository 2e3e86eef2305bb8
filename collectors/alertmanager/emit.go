package alertmanager

import (
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a silence besides the model's (matchers, created_by,
// mutes_critical, api_url).
const (
	AttrSilenceState   = "silence_state" // active, pending or expired, as Alertmanager says
	AttrStartsAt       = "starts_at"     // RFC 3339
	AttrComment        = "comment"       // the silence's comment, on one line, at most 500 characters
	AttrMutedAlerts    = "muted_alerts"  // alerts it mutes now (when check_alerts read them)
	AttrMutedCritical  = "muted_critical_alerts"
	AttrOtherBackfills = model.AttrOtherBackfills // further backfill ids its matchers or comment name
)

// maxCommentChars caps the comment kept: it is free text, shown in reports.
const maxCommentChars = 500

// artifact turns a tied silence into a silence artifact. muted is nil
// when the alerts were not read: whether it mutes a critical alert is then
// known only from its own matchers.
func (a *Alertmanager) artifact(t tiedSilence, muted map[string]mutedCount) model.Artifact {
	s := t.silence
	art := model.Artifact{
		Kind: model.KindSilence, System: "alertmanager", Scope: ScopeSilences, URI: t.uri,
		Name: s.ID, BackfillID: t.backfillID, Correlation: t.how, Labels: model.TagsOf(equalities(s.Matchers)),
		ModifiedAt: model.At(s.updated), ExpiresAt: model.At(s.ends), State: state(s.Status.State),
	}
	art.SetAttr(model.AttrMatchers, matchersText(s.Matchers))
	art.SetAttr(AttrSilenceState, s.Status.State)
	art.SetAttr(AttrStartsAt, s.starts.Format(time.RFC3339))
	art.SetAttr(model.AttrAPIURL, a.client.Base())
	if s.CreatedBy != "" {
		art.SetAttr(model.AttrCreatedBy, redact.Clip(s.CreatedBy, 200))
	}
	if s.Comment != "" {
		art.SetAttr(AttrComment, redact.Clip(s.Comment, maxCommentChars))
	}
	if len(t.others) > 0 {
		art.SetAttr(AttrOtherBackfills, strings.Join(sortedCopy(t.others), ","))
	}
	critical := selectsCritical(s.Matchers)
	if muted != nil {
		c := muted[s.ID]
		art.SetAttr(AttrMutedAlerts, strconv.Itoa(c.all))
		art.SetAttr(AttrMutedCritical, strconv.Itoa(c.critical))
		critical = critical || c.critical > 0
	}
	if critical || muted != nil {
		art.SetAttr(model.AttrMutesCritical, strconv.FormatBool(critical))
	}
	return art
}

// state maps a silence's state onto the model's: a pending silence is set
// but not yet in force.
func state(s string) model.State {
	switch s {
	case stateActive:
		return model.StateActive
	case statePending:
		return model.StateEnabled
	}
	return model.StateExpired
}
