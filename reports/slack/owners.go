package slack

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/slack-go/slack"
)

// ownerItems is one owner's open findings and how to reach them.
type ownerItems struct {
	owner    string
	email    string
	userID   string
	reason   string // why the owner falls back to the channel
	findings []model.Finding
}

// ownerGroups groups unwaived findings by owner, with each owner's e-mail
// from the owners map. Unowned findings are in the digest already.
func ownerGroups(r *model.Report, owners model.Owners) []ownerItems {
	idx := map[string]int{}
	var out []ownerItems
	for _, f := range r.Findings {
		o := ownerOf(f)
		if f.Waived() || o == "" {
			continue
		}
		k := strings.ToLower(o)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			it := ownerItems{owner: o}
			if c, ok := owners.Lookup(o); !ok {
				it.reason = "not in the owners map"
			} else if c.Email == "" {
				it.reason = "no e-mail in the owners map"
			} else {
				it.email = c.Email
			}
			out = append(out, it)
		}
		out[i].findings = append(out[i].findings, f)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].owner) < strings.ToLower(out[j].owner) })
	return out
}

// dmKey is the once-per-period claim of an owner's message.
func dmKey(owner, period string) history.DigestKey {
	return history.DigestKey{Sink: "slack-dm:" + strings.ToLower(owner), Period: period}
}

// ownersDue drops the owners whose message went out this period already, so
// a rerun neither looks them up nor messages them again. Owners without an
// e-mail stay: they are listed in the digest's thread when it is posted.
func (s *Sink) ownersDue(ctx context.Context, period string, groups []ownerItems) []ownerItems {
	if s.store == nil {
		return groups
	}
	var due []ownerItems
	for _, g := range groups {
		if g.email != "" {
			// An unreadable state counts as due: the claim decides later.
			if posted, err := s.store.DigestPosted(ctx, dmKey(g.owner, period)); err == nil && posted {
				continue
			}
		}
		due = append(due, g)
	}
	return due
}

// resolveOwners looks each owner up by e-mail; those Slack does not know,
// or that cannot be looked up, fall back to the channel.
func (s *Sink) resolveOwners(ctx context.Context, groups []ownerItems) (dms, fallbacks []ownerItems) {
	for _, g := range groups {
		if g.email != "" {
			var id string
			err := s.retrying(ctx, func() error {
				var err error
				id, err = s.poster.lookup(ctx, g.email)
				return err
			})
			switch {
			case err == nil && id != "":
				g.userID = id
				dms = append(dms, g)
				continue
			case isSlackError(err, "users_not_found"):
				g.reason = "no Slack user with the owners map e-mail"
			default:
				// Say what Slack answered (e.g. missing_scope: the token lacks
				// users:read.email), never more than the error code.
				g.reason = "Slack user lookup failed"
				var se slack.SlackErrorResponse
				if errors.As(err, &se) && se.Err != "" {
					g.reason += ": " + esc(se.Err, 60)
				}
			}
		}
		fallbacks = append(fallbacks, g)
	}
	return dms, fallbacks
}

func isSlackError(err error, code string) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && se.Err == code
}

// fallbackMessages lists, in the digest's thread, the items of owners who
// get no direct message.
func fallbackMessages(d *digest, fallbacks []ownerItems) []message {
	if len(fallbacks) == 0 {
		return nil
	}
	var blocks []slack.Block
	blocks = append(blocks, section("*Owners without a direct message:* their items are listed here."))
	for _, o := range fallbacks {
		title := fmt.Sprintf("*%s* (%s): %d open", esc(o.owner, 60), o.reason, len(o.findings))
		blocks = append(blocks, sections(title, d.lines(o.findings, true))...)
	}
	return paginate("Backfill items for owners without a direct message", blocks)
}

// directMessages renders one owner's message: their backfills and items,
// each backfill linked to its issue.
func directMessages(d *digest, o ownerItems) []message {
	own := *d.r
	own.Findings = o.findings
	od := newDigest(&own, d.period, changes{}, 0)
	od.commands = true
	title := "Your backfill cleanup items"
	if d.period != "" {
		title += " · " + d.period
	}
	blocks := []slack.Block{header(title),
		section("You own " + spread(o.findings, "in") + ". Close them in the order the checklist gives: verify, normalize, revoke access, archive the record, retire.")}
	blocks = append(blocks, od.backfillBlocks()...)
	return paginate(title+": "+plural(len(o.findings), "open finding"), blocks)
}

// postDirect sends one owner their message, once per period: each owner's
// message has its own claim, so a rerun sends only those that failed. Force
// is for the channel digest only: a forced digest does not message every
// owner again.
func (s *Sink) postDirect(ctx context.Context, key history.DigestKey, d *digest, o ownerItems, res *Result) error {
	dk := dmKey(o.owner, key.Period)
	what := fmt.Sprintf("%s message to owner %s for %s", s.cfg.Period, o.owner, key.Period)
	got, err := s.deliverOnce(ctx, dk, EventOwnerDM, what, false, o.userID, directMessages(d, o), &res.DirectMessages)
	if got.recovered != "" {
		res.Recovered = append(res.Recovered, got.recovered)
	}
	if err != nil {
		return fmt.Errorf("owner %s: %w", o.owner, err)
	}
	return s.recordListed(ctx, o)
}

// recordListed records that the owner has seen each finding of their
// message (stage listed, channel slack): `fix --apply --due` counts the
// notice period from the first such notice. A finding already recorded
// keeps its first time.
func (s *Sink) recordListed(ctx context.Context, o ownerItems) error {
	if s.store == nil {
		return nil
	}
	at := s.runAt
	if at.IsZero() {
		at = s.now()
	}
	var errs []error
	for _, f := range o.findings {
		if f.Fingerprint == "" {
			continue
		}
		if _, err := s.store.RecordNotice(ctx, history.Notice{Fingerprint: f.Fingerprint, Stage: history.StageListed,
			Channel: "slack", Recipient: o.owner, SentAt: at}); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("owner %s: message sent, but %w", o.owner, errors.Join(errs...))
	}
	return nil
}

// LookupUser finds the Slack user id of an e-mail (users.lookupByEmail,
// scope users:read.email), for a direct message through SendOnce.
func (s *Sink) LookupUser(ctx context.Context, email string) (string, error) {
	if s.cfg.DryRun {
		return "", fmt.Errorf("slack: lookup %s: not in a dry run", email)
	}
	if s.waitLeft <= 0 {
		s.waitLeft = retryBudget
	}
	var id string
	err := s.retrying(ctx, func() error {
		var err error
		id, err = s.poster.lookup(ctx, email)
		return err
	})
	return id, err
}
