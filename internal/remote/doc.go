// Package remote is how bfaudit talks to a server: every collector, sink
// and fix action calls it instead of writing its own plumbing.
//
//   - NewClient: the one HTTP client set-up (TLS and CA file, proxy,
//     idle connections for the source's concurrency).
//   - DoHTTP: one request with retries of 429, 5xx and transport errors,
//     honouring Retry-After (read against the answer's Date, never the
//     local clock), every attempt logged under --verbose; any
//     other non-2xx answer is a *StatusError.
//   - Retry: the one retry loop (attempts, backoff, a budget of waiting,
//     the caller's deadline), for gRPC and client libraries too.
//   - ReadAll, CappedBody, DecodeJSON: answers read under a cap that
//     accepts exactly the cap and refuses one byte more; Peek and Drain
//     for transports that look at a body before a client library does.
//   - Pager: every paged listing is bounded and must advance.
//   - StatusError, SummarizeErrorBody: an error answer summarised to the
//     API's own code and message, never its body.
//
// Package remote/apiclient builds on it for the common JSON API: a base
// URL, a bearer token from the environment or a basic login, TLS, a
// per-call timeout, Get into a struct.
//
// Masking secrets and credentials in text (and addresses) is package
// redact's, which this package calls.
package remote
