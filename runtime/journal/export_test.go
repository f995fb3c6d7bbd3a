package journal

// Parse is parse, for the fuzz target in package journal_test, which goes
// on from a replay into the packages that use one.
var Parse = parse
