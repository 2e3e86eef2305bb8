// Package github files and maintains one GitHub issue per backfill.
package github

import gh "github.com/google/go-github/v60/github"

var _ = gh.NewClient
