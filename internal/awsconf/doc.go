// Package awsconf holds what the AWS collectors and fix actions share:
// the settings every AWS source takes (regions, profile, endpoint, the
// accounts to read and the role assumed in each), the SDK configuration
// built from them (the default credential chain, answers capped and
// logged, retries bounded), the accounts of a run (listed, read from AWS
// Organizations, or the caller's own), and one way to make a call (a
// deadline per call, errors summarised to operation, code and message).
//
// It is the AWS-specific part of talking to a server, as package gcp is
// Google's: paging bounds, answer caps and masking stay package remote's
// and redact's. No credential is ever part of an error or a log line:
// errors carry the operation, AWS's error code and message, and the
// account and role by their public names.
package awsconf
