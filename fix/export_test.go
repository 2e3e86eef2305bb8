package fix

// HoldForChecks is holdForChecks, for the external tests (package
// fix_test, which share the test kits with each system's fix tests).
var HoldForChecks = holdForChecks
