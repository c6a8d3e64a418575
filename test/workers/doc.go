// Package workers holds the default tier's fault tests of a run whose
// segment proofs go to worker processes over NATS JetStream (package
// distributed): a coordinator killed and started again, a worker killed
// mid-job, in one run (TestKilled). The workers and the coordinator are real processes of
// cmd/prove, killed with SIGKILL. It is a package of its own so that the
// test runner runs it beside the other slow packages.
//
// The package has no code outside its tests: it is on the product path as
// its check.
package workers
