package remedy

// What the external tests (package remedy_test, which see every system's
// registration through collectors/all) read of the package's inside.
var (
	ExampleBackfill  = exampleBackfill
	HeredocDelimiter = heredocDelimiter
)
