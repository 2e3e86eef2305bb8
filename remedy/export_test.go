package remedy

// ShSyntax checks a script parses as sh, for the tests of the rules'
// remedies (package remedy_test).
var ShSyntax = shSyntax
