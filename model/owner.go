package model

import "strings"

// Contact is how to reach an owner: their GitHub login and the e-mail Slack
// knows them by.
type Contact struct {
	GitHub string `json:"github,omitempty" mapstructure:"github"`
	Email  string `json:"email,omitempty" mapstructure:"email"`
}

// Owners maps an owner, as written in plans and labels, to their contact.
// Keys are matched case-insensitively.
type Owners map[string]Contact

// Lookup finds an owner's contact.
func (o Owners) Lookup(owner string) (Contact, bool) {
	if c, ok := o[owner]; ok {
		return c, true
	}
	for k, c := range o {
		if strings.EqualFold(k, owner) {
			return c, true
		}
	}
	return Contact{}, false
}
