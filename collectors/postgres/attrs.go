package postgres

// PostgreSQL-specific attribute keys, next to the model.Attr* ones.
const (
	// attrObject says what a table-kind artifact is: table,
	// partitioned_table, view, materialized_view, foreign_table or schema.
	attrObject = "object"
	// attrDBOwner is the role that owns the object in the database. It is
	// not Artifact.Owner: that is a person to notify, taken from the
	// comment's owner=, so ownership can fall back to the plan's owner.
	attrDBOwner = "db_owner"
	// attrUnlogged is "true" for an UNLOGGED table.
	attrUnlogged = "unlogged"
	// attrLastAnalyzed and attrLastVacuumed are RFC 3339 times from
	// pg_stat_all_tables (manual or automatic, whichever is later).
	attrLastAnalyzed = "last_analyzed"
	attrLastVacuumed = "last_vacuumed"
	// attrModsSinceAnalyze counts rows changed since the last analyze: a
	// table still being written to after its backfill completed shows it.
	attrModsSinceAnalyze = "modifications_since_analyze"
	// attrGrantable lists privileges held WITH GRANT OPTION (or ADMIN
	// OPTION for a membership).
	attrGrantable = "grantable"
	// attrSuperuser is "true" for a superuser role.
	attrSuperuser = "superuser"
	// attrCommentProblem says why part of a COMMENT could not be read.
	attrCommentProblem = "comment_problem"
	// attrDeclaredExpires is the comment's expires= on a role, which
	// PostgreSQL does not enforce (VALID UNTIL does).
	attrDeclaredExpires = "declared_expires"
)
