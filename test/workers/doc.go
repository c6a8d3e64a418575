// Package workers holds the default tier's fault tests of a run whose
// jobs go to worker processes over NATS JetStream (package distributed):
// a coordinator killed and started again and a worker killed mid-job, in
// one run (TestKilled); a node of a three-node NATS cluster killed while
// the run goes on (TestNodeKilled). The workers, the coordinator and the
// NATS nodes are real processes (cmd/prove, and the server built from
// its Go module), killed with SIGKILL. It is a package of its own so
// that the test runner runs it beside the other slow packages.
//
// The package has no code outside its tests: it is on the product path as
// its check.
package workers
