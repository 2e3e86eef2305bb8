package cloudasset

import (
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/correlate/iamcond"
)

// The searches run on the server, so what they leave out is never seen:
// they are a wide net, and every result is judged again here by the same
// selector the per-project collectors use. A query is a list of terms
// joined with OR, in Cloud Asset Inventory's query language:
//
//	labels.backfill_id:*   has the label
//	bf*                    a word of any searchable field starts with bf
//	"text"                 any searchable field holds the phrase
//	name=//full/name       that resource exactly
//	parentFullResourceName:"//full/name"   a child of that resource
//	policy:bf*  policy:"e-mail"            a binding naming it (member,
//	                                       role, condition title/text)
//	resource=//full/name   the policy set on that resource

// resourceQueries are the resource searches of one scope: the filter, then
// the assets plans declare by URI (which may carry no label and no telling
// name), batchSize a query.
func (c *Collector) resourceQueries() []string {
	base := c.Query
	if base == "" {
		var terms []string
		for _, k := range c.sel.LabelKeys {
			terms = append(terms, "labels."+k+":*")
		}
		for _, p := range c.NamePrefixes {
			terms = append(terms, p+"*")
		}
		base = strings.Join(terms, " OR ")
	}
	var declared []string
	for uri := range c.sel.Assets {
		if t := declaredResourceTerm(uri); t != "" {
			declared = append(declared, t)
		}
	}
	return withBase(base, batches(declared))
}

// policyQueries are the IAM policy searches of one scope: bindings naming
// a word starting with a name prefix (a backfill account, a condition
// titled for a backfill), then the principals config and plans declare.
func (c *Collector) policyQueries() []string {
	base := c.IAMQuery
	if base == "" {
		var terms []string
		for _, p := range c.NamePrefixes {
			terms = append(terms, "policy:"+p+"*")
		}
		base = strings.Join(terms, " OR ")
	}
	members := map[string]bool{}
	for _, p := range c.Principals {
		members[iamcond.MemberEmail(iamcond.NormalizeMember(p.Member))] = true
	}
	for m := range c.sel.Principals {
		members[m] = true
	}
	for uri := range c.sel.Assets {
		if m := declaredGrantMember(uri); m != "" {
			members[m] = true
		}
	}
	var terms []string
	for m := range members {
		if m != "" && !strings.ContainsAny(m, `" `) {
			terms = append(terms, `policy:"`+m+`"`)
		}
	}
	return withBase(base, batches(terms))
}

// withBase puts the filter first. An empty filter is left out: an empty
// query searches everything in the scope.
func withBase(base string, rest []string) []string {
	if strings.TrimSpace(base) == "" {
		return rest
	}
	return append([]string{base}, rest...)
}

// batches sorts terms and joins them batchSize a query.
func batches(terms []string) []string {
	sort.Strings(terms)
	var out []string
	for len(terms) > 0 {
		n := min(batchSize, len(terms))
		out = append(out, strings.Join(terms[:n], " OR "))
		terms = terms[n:]
	}
	return out
}

// declaredResourceTerm is the search term that finds a declared asset of
// the bigquery, pubsub or gcpiam collectors by its URI; "" for URIs of
// other systems and for grants (found by policyQueries).
func declaredResourceTerm(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok || strings.ContainsAny(rest, `" `) {
		return ""
	}
	parts := strings.Split(strings.SplitN(rest, "?", 2)[0], "/")
	switch {
	case scheme == "bigquery" && len(parts) == 2:
		return "name=//bigquery.googleapis.com/projects/" + parts[0] + "/datasets/" + parts[1]
	case scheme == "bigquery" && len(parts) == 3:
		return "name=//bigquery.googleapis.com/projects/" + parts[0] + "/datasets/" + parts[1] + "/tables/" + parts[2]
	case scheme == "pubsub" && len(parts) == 3 && (parts[1] == "topics" || parts[1] == "subscriptions"):
		return "name=//pubsub.googleapis.com/projects/" + parts[0] + "/" + parts[1] + "/" + parts[2]
	case scheme == "gcpiam" && len(parts) >= 3 && parts[1] == "serviceAccounts":
		// Asset names may spell the account by its unique id; its
		// e-mail is in every searchable field that matters.
		return `"` + parts[2] + `"`
	}
	return ""
}

// declaredGrantMember is the member's e-mail in a declared grant URI of
// gcpiam (gcpiam://p/bindings/<role>/<member>) or of a BigQuery ACL entry
// (bigquery://p/d/acl/<role>/<member>).
func declaredGrantMember(uri string) string {
	path := strings.SplitN(uri, "?", 2)[0]
	isGrant := strings.HasPrefix(path, "gcpiam://") && strings.Contains(path, "/bindings/") ||
		strings.HasPrefix(path, "bigquery://") && strings.Contains(path, "/acl/")
	if !isGrant {
		return ""
	}
	member := path[strings.LastIndexByte(path, '/')+1:]
	return strings.ToLower(iamcond.MemberEmail(member))
}

// Follow-up searches complete what the filter cannot see: everything in a
// backfill dataset, on a backfill topic, of a backfill account.

func tablesOf(datasets []string) []string {
	return batches(mapTerms(datasets, func(n string) string { return `parentFullResourceName:"` + n + `"` }))
}

func policiesOf(datasets []string) []string {
	return batches(mapTerms(datasets, func(n string) string { return "resource=" + n }))
}

func subscriptionsOf(topics []string) []string {
	return batches(mapTerms(topics, func(n string) string { return `"` + n + `"` }))
}

func keysOf(emails []string) []string {
	return batches(mapTerms(emails, func(e string) string { return `"` + e + `"` }))
}

func mapTerms(in []string, f func(string) string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s != "" && !strings.ContainsAny(s, `" `) {
			out = append(out, f(s))
		}
	}
	return out
}
