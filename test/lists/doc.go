// Package lists holds the default tier's end-to-end test of a mixed
// list: two requests and a conversation's second turn of the built-in
// micro model, each proven as a pass of its own on workers and completed
// by one aggregator (TestRunList). It is a package of its own so that the
// test runner runs it beside the other end-to-end packages. The full
// tier's TestRunListOnChain (package test) wraps it and records it.
//
// The package has no code outside its tests: it is on the product path as
// its check.
package lists
