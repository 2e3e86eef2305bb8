package gcp

import (
	"errors"
	"fmt"
	"strings"
)

// CheckProjects validates the `projects` key of a Google Cloud source;
// what says what is read from them, for the message when none is given.
func CheckProjects(projects []string, what string) error {
	if len(projects) == 0 {
		return errors.New("projects: missing; list the project ids whose " + what + " to read")
	}
	for i, p := range projects {
		if strings.TrimSpace(p) == "" || strings.Contains(p, "/") {
			return fmt.Errorf("projects[%d]: %q is not a project id (expected e.g. my-project, without projects/)", i, p)
		}
	}
	return nil
}
