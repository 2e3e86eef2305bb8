# Keeps, from GitHub's OpenAPI 3 description of its REST API (as the npm
# package @octokit/openapi republishes it, generated/api.github.com.json),
# the header, the seven operations the github sink calls, and every
# component they reference, transitively, but for the few left out below. Run:
#   jq -f extract.jq api.github.com.json > github-api-extract.json

# The operations the sink calls, by path.
def kept: {
  "/repos/{owner}/{repo}/issues": ["get", "post"],
  "/repos/{owner}/{repo}/issues/{issue_number}": ["patch"],
  "/repos/{owner}/{repo}/issues/{issue_number}/comments": ["get", "post"],
  "/repos/{owner}/{repo}/issues/{issue_number}/events": ["get"],
  "/orgs/{org}/teams/{team_slug}/memberships/{username}": ["get"]
};

# References the extract leaves unresolved (testkit/swagger reads them as
# "any value"): examples are documentation, and a repository (an issue's
# `repository`, an issue reference's) is a third of the whole and the sink
# reads none of it.
def left_out: ["examples"], ["schemas", "repository"], ["schemas", "simple-repository"];

# The local references in a value, as paths ("#/components/schemas/x" is
# ["components", "schemas", "x"]).
def refs: [.. | objects | .["$ref"]? | strings | ltrimstr("#/") | split("/")
  | select(. as $r | [left_out] | any(. as $l | $r[1:1 + ($l | length)] == $l) | not)] | unique;

. as $doc
| (.paths | with_entries(select(.key | in(kept))
    | .key as $p | .value |= with_entries(select(.key as $m | kept[$p] | index($m))))) as $paths
# every component reachable from the kept paths
| ({paths: $paths} | refs)
| until(. as $s | ([$s[] as $r | $doc | getpath($r) | refs[]] + $s | unique) == $s;
        . as $s | [$s[] as $r | $doc | getpath($r) | refs[]] + $s | unique)
| reduce .[] as $r ({openapi: $doc.openapi, info: $doc.info, paths: $paths};
    setpath($r; $doc | getpath($r)))
