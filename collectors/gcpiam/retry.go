package gcpiam

import "github.com/bfaudit/bfaudit/internal/gcp"

// retryable marks errors worth another try (429, 5xx, network); the
// generated REST clients do not retry by themselves.
func retryable(err error) error { return gcp.Retryable(err) }
