// Package smithy builds fakes of AWS services from AWS's own API
// descriptions, the Smithy models, and checks every request a test sends
// them against the model: the operation, each member's name and type, the
// required members, enum values and, for awsQuery, the API version. It is
// the contract test of the AWS collectors whose services have no real
// server here (IAM, STS, Organizations, Glue, Lake Formation, EventBridge
// Scheduler), and
// can stand in front of a fake written by others (Checking).
//
// # A fake in three lines
//
// Take the model, write a handler keyed by operation, start the server:
//
//	fake := smithy.NewServer(t, smithy.AWS(t, "iam"), func(c smithy.Call) (map[string]any, *smithy.Error) {
//		switch c.Operation {
//		case "ListRoles":
//			return map[string]any{"Roles": roles, "IsTruncated": false}, nil
//		case "GetRolePolicy":
//			return nil, &smithy.Error{Code: "NoSuchEntityException", Message: "no such policy"}
//		}
//		return nil, &smithy.Error{Code: "AccessDenied", Message: "not in this fake", Status: 403}
//	})
//
// AWS takes "iam", "sts", "organizations", "glue", "lakeformation",
// "scheduler", "sqs" or "sns": the official models kept in testdata/aws-models (their source,
// commit and blobs in its SOURCE.md). Load reads another
// model file.
//
// The handler sees only requests that keep the model. One that breaks it
// fails the test with a line that names the request and what is wrong
// (`ListRoles: unknown member "PathPrefx"`, `GetTables: missing required
// member DatabaseName`, `ListSchedules: State: "PAUSED" is not one of the
// model's values (DISABLED, ENABLED)`), and is answered 400
// SmithyContractViolation, so the collector sees an error too.
//
// # Pointing a client at it
//
// A collector under test is pointed at the fake through its settings, as
// a user would point it at LocalStack: awsconf.Settings{Endpoint:
// fake.URL, Regions: ...}, with static credentials as awsconf.Load's
// extra option (config.WithCredentialsProvider). With an endpoint set,
// the SDK sends every service to that one address: serve STS beside the
// service with Server.Add (GetCallerIdentity when no account is listed,
// AssumeRole for each account's role) and Organizations for an
// organisation; requests are told apart by the service their signature
// names. awsconf_test.go runs an organisation this way. A test of the SDK
// alone takes AWSConfig(fake.URL): static credentials, no retries.
//
// # Values
//
// Call.Input and a handler's output are keyed by the model's member names
// (the SDK's field names, bar its capitalisation). Call.Input holds
// string (enums too), int64, float64, bool, time.Time, []byte (blobs),
// []any (lists) and map[string]any (structures and maps). An output may
// use any slice or map ([]map[string]any, map[string]string), pointers
// (aws.String) and string types (types.StatusTypeActive); a timestamp is
// a time.Time, which the fake writes in the protocol's form (ISO 8601 in
// awsQuery's XML, epoch seconds in JSON, unless the model says otherwise).
//
// A fake cannot invent: an output member the model does not have, a
// required output member left out, a value of the wrong type or outside
// its enum fails the test (and the SDK gets a 500). So does an error
// shape of the model that the operation does not list.
//
// # Errors
//
// Error.Code is the error's shape name, as the SDK's types name it
// (NoSuchEntityException, EntityNotFoundException,
// ResourceNotFoundException); the fake sends it as the protocol does
// (awsQuery's code NoSuchEntity, its HTTP status 404), so errors.As with
// the SDK's type works. A code the model lacks (AccessDenied, Throttling,
// InternalFailure: AWS's common errors, which models leave out) is sent
// as given, with Error.Status or 400.
//
// # Faults
//
// Answer &Error{Code: "InternalFailure", Status: 500} for a failing
// service, Server.Stall(d) to hold every answer (a unit that hangs), and
// count calls with Server.Calls (the operations served, in order).
//
// # Another fake behind the check
//
// Checking(m, t, next) puts the check in front of an http.Handler (goaws
// for SNS): a request that breaks the model fails the test and never
// reaches next.
//
// # What is not checked
//
// Length, pattern and range constraints; httpPayload, httpQueryParams
// and httpPrefixHeaders bindings (a request to an operation that has
// them is refused, saying so); event streams; the signature itself. The models are as old as
// SOURCE.md says and the SDK in go.mod is newer: a member or operation
// added since (GetTables' ResourceShareType, AssumeRole's
// MinimumSessionTokenSize) is refused as unknown, so a collector sends
// only what the model has.
//
// # AWS habits a fake should keep
//
// IAM answers policy documents URL-encoded (the SDK leaves them so);
// awsQuery listings page with IsTruncated and Marker, the JSON ones with
// NextToken; an empty listing is an empty list, not an absent one, where
// the model marks it required.
package smithy
