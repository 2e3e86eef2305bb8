package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// scopeRoles is the coverage scope of cluster-wide objects: roles and role
// memberships.
const scopeRoles = "roles"

// role is one row of pg_roles, with what the selector said of it.
type role struct {
	oid        uint32
	name       string
	login      bool
	super      bool
	validUntil time.Time // zero: no VALID UNTIL (or infinity)
	comment    parsedComment
	match      match
}

// match is how an object was tied to a backfill; zero when it was not.
type match struct{ id, how string }

func (m match) ok() bool { return m.id != "" }

// roleSet holds every role by oid (grants name grantees by oid) and the
// oids of backfill roles.
type roleSet struct {
	byOID   map[uint32]*role
	matched []uint32
}

// name returns a grantee's name; oid 0 is PUBLIC in an ACL.
func (rs *roleSet) name(oid uint32) string {
	if oid == 0 {
		return "PUBLIC"
	}
	if rs != nil {
		if r, ok := rs.byOID[oid]; ok {
			return r.name
		}
	}
	return strconv.FormatUint(uint64(oid), 10)
}

func (rs *roleSet) matchOf(oid uint32) match {
	if rs != nil {
		if r, ok := rs.byOID[oid]; ok {
			return r.match
		}
	}
	return match{}
}

// pg_roles is readable by every role (the password column is masked), and
// shobj_description reads pg_shdescription, also public: no privilege
// beyond CONNECT is needed. Built-in pg_* roles are never backfill roles.
const rolesQuery = `
SELECT r.oid, r.rolname, r.rolcanlogin, r.rolsuper, r.rolvaliduntil,
       coalesce(shobj_description(r.oid, 'pg_authid'), '')
FROM pg_roles r
WHERE r.rolname !~ '^pg_'`

// readRoles lists every role and marks the ones made for a backfill, by
// name or by a backfill id in COMMENT ON ROLE.
func (p *Postgres) readRoles(ctx context.Context, conn *pgx.Conn) (*roleSet, error) {
	rows, done, err := p.query(ctx, conn, rolesQuery)
	if err != nil {
		return nil, fmt.Errorf("postgres source %s: list roles: %w", p.sourceName(), err)
	}
	defer done()
	rs := &roleSet{byOID: map[uint32]*role{}}
	for rows.Next() {
		var (
			r       role
			until   pgtype.Timestamptz
			comment string
		)
		if err := rows.Scan(&r.oid, &r.name, &r.login, &r.super, &until, &comment); err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgres source %s: read roles: %w", p.sourceName(), err)
		}
		if until.Valid && until.InfinityModifier == pgtype.Finite {
			r.validUntil = until.Time.UTC()
		}
		r.comment = parseComment(comment)
		if id, how, ok := p.env.Selector.Match(p.roleURI(r.name), r.name, r.comment.Labels); ok {
			r.match = match{id, how}
			rs.matched = append(rs.matched, r.oid)
		}
		rs.byOID[r.oid] = &r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres source %s: list roles: %w", p.sourceName(), err)
	}
	return rs, nil
}

// emitRoles emits each backfill role as a credential. A role that can log
// in with no VALID UNTIL is not time-bound (BF102); one still valid after
// the backfill completed is BF004 evidence.
func (p *Postgres) emitRoles(rs *roleSet, sink collectors.Sink) {
	now := p.env.Now()
	for _, oid := range rs.matched {
		r := rs.byOID[oid]
		a := model.Artifact{
			Kind:        model.KindCredential,
			Scope:       scopeRoles,
			URI:         p.roleURI(r.name),
			Name:        r.name,
			BackfillID:  r.match.id,
			Correlation: r.match.how,
			Owner:       r.comment.Owner,
			Labels:      model.TagsOf(r.comment.Labels),
			ExpiresAt:   model.At(r.validUntil),
			State:       model.StateActive,
		}
		a.SetAttr(model.AttrPrincipal, r.name)
		a.SetAttr(model.AttrLogin, strconv.FormatBool(r.login))
		if !r.validUntil.IsZero() {
			a.SetAttr(model.AttrValidUntil, r.validUntil.Format(time.RFC3339))
		}
		if r.login {
			a.SetAttr(model.AttrTimeBound, strconv.FormatBool(!r.validUntil.IsZero()))
		}
		if r.super {
			a.SetAttr(attrSuperuser, "true")
		}
		if !r.comment.Expires.IsZero() {
			a.SetAttr(attrDeclaredExpires, r.comment.Expires.Format(time.RFC3339))
		}
		if r.comment.Problem != "" {
			a.SetAttr(attrCommentProblem, r.comment.Problem)
		}
		r.comment.keepOn(&a)
		switch {
		case !r.login:
			a.State = model.StateDisabled
		case !r.validUntil.IsZero() && !r.validUntil.After(now):
			a.State = model.StateExpired
		}
		sink.AddArtifact(a)
	}
}

// Membership in a backfill role, or of a backfill role in another, is a
// grant like any other: GRANT prod_writer TO bf_1234_loader lingers too.
const membershipsQuery = `
SELECT m.roleid, m.member, m.admin_option
FROM pg_auth_members m
WHERE m.member = ANY($1::oid[]) OR m.roleid = ANY($1::oid[])`

// collectMemberships emits role memberships that involve a backfill role.
func (p *Postgres) collectMemberships(ctx context.Context, conn *pgx.Conn, rs *roleSet, sink collectors.Sink) error {
	if len(rs.matched) == 0 {
		sink.AddRead(scopeRoles, "role memberships", 0, 0)
		return nil
	}
	rows, done, err := p.query(ctx, conn, membershipsQuery, rs.matched)
	if err != nil {
		return fmt.Errorf("postgres source %s: list role memberships: %w", p.sourceName(), err)
	}
	defer done()
	n := 0
	for rows.Next() {
		n++
		var granted, member uint32
		var admin bool
		if err := rows.Scan(&granted, &member, &admin); err != nil {
			return fmt.Errorf("postgres source %s: read role memberships: %w", p.sourceName(), err)
		}
		m := rs.matchOf(member)
		if !m.ok() {
			m = rs.matchOf(granted)
		}
		memberName, roleName := rs.name(member), rs.name(granted)
		a := model.Artifact{
			Kind:        model.KindGrant,
			Scope:       scopeRoles,
			URI:         p.membershipURI(memberName, roleName),
			Name:        roleName + " to " + memberName,
			BackfillID:  m.id,
			Correlation: m.how,
			State:       model.StateActive,
		}
		a.SetAttr(model.AttrPrincipal, memberName)
		a.SetAttr(model.AttrRole, roleName)
		// PostgreSQL grants carry no expiry of their own.
		a.SetAttr(model.AttrTimeBound, "false")
		if admin {
			a.SetAttr(attrGrantable, roleName)
		}
		sink.AddArtifact(a)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres source %s: list role memberships: %w", p.sourceName(), err)
	}
	sink.AddRead(scopeRoles, "role memberships", n, 0)
	return nil
}
