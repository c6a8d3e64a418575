// Package distributed runs the jobs of a proof on workers over NATS
// JetStream: a coordinator publishes jobs, any number of worker
// processes take them, and every result comes back through the same
// server (or cluster), which holds the queue, the deliveries and the
// data. The package writes no queue, delivery or storage of its own. It
// is the engine only: the jobs of a proof (their kinds, inputs and
// checks) are its callers' (package pipeline's AggregatedOptions.Queue
// and WorkerHandlers; cmd/prove's --workers, --nats and prove worker).
//
// # Streams and buckets
//
// Every name below starts with the prefix of the [Config] ("veriformer"
// by default), so that several deployments can share a server.
//
//   - The job stream PREFIX_JOBS, work-queue retention, subjects
//     PREFIX.jobs.mem<k>.<run>.<job>: a job waits there until a worker
//     acknowledges it, and is then removed. k is the job's memory class,
//     ⌈log₂⌉ of its estimated peak in MiB ([MemClass]); the workers pull
//     from one durable consumer per class (PREFIX-mem<k>, explicit
//     acknowledgement), and a worker of a given memory pulls from the
//     classes that fit it only, the largest first.
//   - The result stream PREFIX_RESULTS, limits retention, subjects
//     PREFIX.results.<run>.<job>: the coordinator reads a run's results
//     from the stream's start, so a coordinator restarted with the same
//     run id sees every result published before and proves nothing
//     again.
//   - The object store PREFIX-blobs: every input and output of a job,
//     named by the lowercase hexadecimal SHA-256 of its bytes ([Blob]); a
//     reader checks the digest of what it reads. A blob over 8 MiB is
//     stored as parts of 8 MiB, objects <blob>.<i>, and the object of its
//     name holds nothing but the number of parts in its metadata. A file
//     is stored and fetched part by part, never whole in memory
//     ([Queue.PutFile], [Queue.GetFile]); a file whose digest is known
//     (a key file's, from its manifest) is found in the store without
//     being read.
//
// The streams and the object store have one replica, or three when the
// client knows of at least three servers (a cluster, where a node may
// then die).
//
// # Messages
//
// A job message is the JSON encoding of a [Job] (its run, its id, its
// kind, its inputs as blob names by role, its memory estimate, its
// attempt); a result message of a [Result] (the job's run, id and
// attempt, the worker's name, the output blob, or the error and whether
// it is deterministic, and the worker's time on the job in
// milliseconds: a duration, so that the workers' clocks need not agree
// with the coordinator's). Both decoders refuse unknown fields, bad names
// and oversized messages ([DecodeJob], [DecodeResult]; fuzzed). A job is
// published with the message id run.job.attempt, a result with
// run.job.attempt.worker, so that JetStream drops a duplicate published
// within its window.
//
// # Delivery
//
// A worker takes one job at a time; its handler reads the job's inputs
// through [Inputs], each checked against its name, as bytes or into a
// file. While the handler runs it sends an
// in-progress acknowledgement every third of the consumer's ack wait, so
// a long job is never redelivered while its worker lives; a worker that
// dies stops them, and the job is delivered again after the ack wait,
// to any worker, up to the consumer's bound on deliveries. The worker
// stores the output, publishes the result and only then acknowledges the
// job: a worker killed between the two leaves a job that is proven
// again, whose second result the coordinator ignores.
//
// A handler's error is either transient (the job is negatively
// acknowledged and delivered again) or deterministic ([Deterministic]: a
// bad input), published as a failed result. The coordinator publishes a
// job whose result failed deterministically once more, as attempt 2,
// and fails the run with the error if that attempt fails too.
//
// # Coordinator
//
// A worker named in the job's Avoid list (its output for the job was
// refused) gives the job back, negatively acknowledged with a delay,
// until its next to last delivery: another worker takes it when there is
// one.
//
// The coordinator ([Queue.Run]) publishes each job once the jobs it depends on
// have verified results, checks every result with the run's verifier
// before it uses it — a result that does not verify, or whose output is
// not stored as named, is refused and its job published again as the
// next attempt — and keeps the first verified result of each job: a
// duplicate is ignored. A request to the server that fails (a cluster
// electing new leaders after a node died) is retried every second for a
// minute, by the coordinator and by the workers, before it ends the run
// or the worker. Its [Progress] is told
// of each job's events; a [Timeline] records them and charts where a
// run's time went.
package distributed
