package awsconf

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// Settings is the part of every AWS source's entry that says where to
// read: embed it with `mapstructure:",squash"`.
type Settings struct {
	// Regions are read one by one (units account/region); required.
	Regions []string `mapstructure:"regions"`
	// Profile names a shared config profile (~/.aws/config); empty: the
	// default credential chain (environment, web identity for EKS and
	// GitHub OIDC, the shared files' default, instance metadata).
	Profile string `mapstructure:"profile"`
	// Endpoint overrides every service's address (a LocalStack, MinIO or
	// a test server); empty: AWS's own.
	Endpoint string `mapstructure:"endpoint"`
	// Accounts are the accounts to read, each reached by assuming its
	// role; empty with no Organization: the caller's own account.
	Accounts []Account `mapstructure:"accounts"`
	// Organization reads the accounts from AWS Organizations instead.
	Organization *Organization `mapstructure:"organization"`
	// Timeout bounds each call, the SDK's own retries of it included.
	Timeout time.Duration `mapstructure:"timeout"`
	// ExportDir reads answers saved by SaveAnswers instead of calling
	// AWS (saved.go); relative to the config file.
	ExportDir string `mapstructure:"export_dir"`
	// SaveAnswers writes every answer of the accounts read into this
	// folder, for an audit elsewhere with export_dir.
	SaveAnswers string `mapstructure:"save_answers"`
	// BaseDir is the config file's folder, which the two folders above
	// are relative to; set by the source's Init.
	BaseDir string `mapstructure:"-"`
}

// Exported is whether the source reads saved answers: a fix has nothing
// to act through.
func (s Settings) Exported() bool { return s.ExportDir != "" }

// Account is one account of an estate and the role bfaudit assumes in it.
type Account struct {
	ID string `mapstructure:"id"`
	// Role is the role's name (or full ARN) assumed in the account;
	// empty: the caller's credentials reach it as they are.
	Role string `mapstructure:"role"`
}

// Organization lists the accounts of an AWS organization (the caller
// must be allowed organizations:ListAccounts, as in the management or a
// delegated administrator account) and assumes Role, by name, in each:
// the pattern of c7n-org and of the organization's own access role.
type Organization struct {
	Role string `mapstructure:"role"`
	// Exclude names accounts (ids) not to read.
	Exclude []string `mapstructure:"exclude"`
}

var (
	regionPattern  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d+$`)
	accountPattern = regexp.MustCompile(`^\d{12}$`)
	// A role name: IAM's own character set, up to 64 characters.
	rolePattern = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
)

// Check validates the settings, the call timeout included; errors name
// the key.
func (s Settings) Check() error {
	if len(s.Regions) == 0 {
		return errors.New("regions: missing; list the regions to read, e.g. [eu-west-1]")
	}
	for i, r := range s.Regions {
		if !regionPattern.MatchString(r) {
			return fmt.Errorf("regions[%d]: %q is not an AWS region (expected e.g. eu-west-1)", i, r)
		}
	}
	if s.Endpoint != "" {
		if u, err := remote.ParseAddress("endpoint", s.Endpoint); err != nil {
			return err
		} else if u.User != nil {
			return errors.New("endpoint: must not carry credentials; set them as the SDK reads them (profile, environment)")
		}
	}
	if s.ExportDir != "" {
		for _, k := range []struct {
			key string
			set bool
		}{{"endpoint", s.Endpoint != ""}, {"profile", s.Profile != ""}, {"organization", s.Organization != nil}, {"save_answers", s.SaveAnswers != ""}} {
			if k.set {
				return fmt.Errorf("%s: does not apply with export_dir, which reads saved answers instead of AWS", k.key)
			}
		}
		if len(s.Accounts) == 0 {
			// Declared, so that an account whose answers are missing
			// fails its units rather than being read as having nothing.
			return errors.New("accounts: missing; with export_dir list the accounts whose answers were saved, e.g. [{id: \"123456789012\"}]")
		}
	}
	if len(s.Accounts) > 0 && s.Organization != nil {
		return errors.New("accounts, organization: set one: accounts lists them, organization reads them from AWS Organizations")
	}
	for i, a := range s.Accounts {
		if !accountPattern.MatchString(a.ID) {
			return fmt.Errorf("accounts[%d].id: %q is not an account id (expected 12 digits)", i, a.ID)
		}
		if err := checkRole(a.Role, a.ID); err != nil {
			return fmt.Errorf("accounts[%d].role: %w", i, err)
		}
	}
	if o := s.Organization; o != nil {
		if o.Role == "" {
			return errors.New("organization.role: missing; name the role to assume in each account, e.g. bfaudit-read")
		}
		if !rolePattern.MatchString(o.Role) {
			return fmt.Errorf("organization.role: %q is not a role name (the name only, assumed in every account)", o.Role)
		}
		for i, id := range o.Exclude {
			if !accountPattern.MatchString(id) {
				return fmt.Errorf("organization.exclude[%d]: %q is not an account id (expected 12 digits)", i, id)
			}
		}
	}
	return remote.CheckTimeout("timeout", s.Timeout)
}

// checkRole accepts a role name or the ARN of a role in account id.
func checkRole(role, id string) error {
	if role == "" || rolePattern.MatchString(role) {
		return nil
	}
	if arn, ok := strings.CutPrefix(role, "arn:"); ok {
		parts := strings.SplitN(arn, ":", 5)
		if len(parts) == 5 && parts[1] == "iam" && parts[3] == id && strings.HasPrefix(parts[4], "role/") {
			return nil
		}
		return fmt.Errorf("%q is not the ARN of a role in account %s", role, id)
	}
	return fmt.Errorf("%q is not a role name or ARN", role)
}

// RoleARN is the ARN of role (a name or an ARN) in account id, in the
// partition of region (aws, aws-cn, aws-us-gov).
func RoleARN(role, id, region string) string {
	if strings.HasPrefix(role, "arn:") {
		return role
	}
	return "arn:" + Partition(region) + ":iam::" + id + ":role/" + role
}

// Partition is the ARN partition a region belongs to.
func Partition(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}
