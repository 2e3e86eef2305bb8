package config

import (
	"github.com/bfaudit/bfaudit/reports/github"
)

// Sinks are the optional sections for reporting to the world; a section
// left out of the file is off.
type Sinks struct {
	GitHub *github.Config `mapstructure:"github"`
}

func (s *Sinks) validate() error {
	if s.GitHub != nil {
		if err := s.GitHub.Validate(); err != nil {
			return err
		}
	}
	return nil
}
