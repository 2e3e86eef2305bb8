package remedy

import (
	"regexp"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// shellSafe are words a POSIX shell reads as themselves: no quoting,
// globbing, expansion, word splitting or redirection can happen to them.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// Quote makes s one word for a POSIX shell, as it is. Names come from
// the systems audited and are not trusted: a quote, a space, ';', '$(' or
// a newline in them stays inside the word. Inside single quotes nothing is
// special but the single quote itself, which closes the quotes, is
// written escaped and opens them again.
func Quote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Flag renders --name=value with the value quoted.
func Flag(name, value string) string { return name + "=" + Quote(value) }

// Command builds one shell command line: the program and its fixed words
// (never from the estate), then flags (rendered with Flag), then
// positional arguments, quoted. A positional argument that starts with '-'
// would be read as an option, so "--" ends the options just before it.
func Command(words []string, flags []string, args ...string) string {
	parts := append([]string{}, words...)
	parts = append(parts, flags...)
	ended := false
	for _, a := range args {
		if !ended && strings.HasPrefix(a, "-") {
			parts = append(parts, "--")
			ended = true
		}
		parts = append(parts, Quote(a))
	}
	return strings.Join(parts, " ")
}

// APITarget is where a curl command sends path: the API the artifact was
// read from (its api_url), quoted; or, for a finding read back from a
// report, the address in the environment variable urlVar, which the
// command then needs. what names that address for the message the shell
// stops with when the variable is unset; "" writes the bare "$VAR".
func APITarget(a *model.Artifact, path, urlVar, what string) (target string, needs []string) {
	if u := strings.TrimRight(a.Attr(model.AttrAPIURL), "/"); u != "" {
		return Quote(u + path), nil
	}
	ref := `"$` + urlVar + `"`
	if what != "" {
		ref = `"${` + urlVar + `:?set ` + urlVar + ` to ` + what + `}"`
	}
	return ref + Quote(path), []string{urlVar}
}

// InAWSAccount runs cmd only with credentials of the AWS account: names
// (an IAM role, a schedule) repeat in every account of an organisation,
// and a command that names no account would change another account's
// object of the same name with that account's credentials. It fails
// instead, saying which of the two it is: no account could be told (no
// aws CLI, no credentials: aws sts get-caller-identity failed), or the
// credentials are another account's, named.
func InAWSAccount(account, cmd string) string {
	return `bf_account=$(aws sts get-caller-identity --query Account --output text) || ` +
		`{ echo ` + Quote("bfaudit fix: cannot tell which AWS account these credentials are (aws sts get-caller-identity failed: no aws CLI, or no credentials): run this with account "+account+"'s") + ` >&2; exit 1; }` + "\n" +
		`[ "$bf_account" = ` + Quote(account) + ` ] || ` +
		`{ printf ` + Quote("bfaudit fix: these AWS credentials are account %s's, not "+account+"'s: run this with them\\n") + ` "$bf_account" >&2; exit 1; }` + "\n" + cmd
}

// Comment turns text into shell comment lines: every line of it, so that a
// name holding a newline cannot put a live line into a commented-out
// command.
func Comment(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = "#"
			continue
		}
		lines[i] = "# " + l
	}
	return strings.Join(lines, "\n")
}

// heredocDelimiter picks a here-document delimiter that no line of body
// equals: a quoted delimiter turns off expansion in the body, and only a
// line equal to it could end the document early and run what follows.
func heredocDelimiter(base, body string) string {
	lines := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		lines[l] = true
	}
	d := base
	for i := 1; lines[d]; i++ {
		d = base + "_" + itoa(i)
	}
	return d
}
