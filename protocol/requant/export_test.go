package requant

// Instance exposes the test instance generator to the external test
// package.
var Instance = instance
