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
//   - The object stores PREFIX-blobs, the coordinator's inputs of jobs,
//     which only a coordinator may write, and PREFIX-outputs, the
//     workers' outputs. A blob is named by the lowercase hexadecimal
//     SHA-256 of its bytes ([Blob]), looked up in the inputs first, and
//     a reader checks the digest of what it reads. A blob over 8 MiB is
//     stored as parts of 8 MiB, objects <blob>.<i> of the same store,
//     and the object of its name holds nothing but the number of parts
//     in its metadata. A file is stored and fetched part by part, never
//     whole in memory ([Queue.PutFile], [Queue.GetFile]); a file whose
//     digest is known (a key file's, from its manifest) is found among
//     the inputs without being read.
//
// The streams and the object stores have one replica, or three when the
// client knows of at least three servers (a cluster, where a node may
// then die).
//
// # Parties and their keys
//
// A deployment has one coordinator and its workers, each with an
// [Identity]: a role, a name and an nkey user key (ed25519). The NATS
// server lets a party in by its key ([Users]: the coordinator may
// publish anything; a worker its results, its pulls and acknowledgements
// of jobs, the blobs and the JetStream requests these take, never a job
// and never a stream's update or deletion). A worker's identity carries
// the coordinator's public key and the coordinator's certificate: its
// signature of "veriformer worker v1\n" + name + "\n" + key. A party
// refuses a server that lets anyone in unless told otherwise
// ([Config].Insecure); identity files are read only when their owner
// alone may read them.
//
// # Messages
//
// Every message is a [Signed] envelope in JSON: the body (the JSON
// encoding of a [Job] or a [Result]), the signer's public key, a
// worker's certificate, and the signature of the domain
// ("veriformer job v1\n" or "veriformer result v1\n") followed by the
// body's bytes. A job (its run, its id, its kind, its inputs as blob
// names by role, its memory estimate, its attempt, the workers to avoid)
// is signed by the coordinator; a worker runs it only when the signature
// is by the coordinator of its identity ([OpenJob]), and drops any other
// with a log line. A result (the job's run, id and attempt, the worker's
// name, the hexadecimal SHA-256 of the job message it answers, the
// output blob, or the error and whether it is deterministic, and the
// worker's time on the job in milliseconds: a duration, so that the
// workers' clocks need not agree with the coordinator's) is signed by
// the worker, whose certificate must be the coordinator's for the name
// the result gives ([OpenResult]). The decoders refuse unknown fields,
// bad names and oversized messages (fuzzed). A job is published with the
// message id run.job.attempt, a result with run.job.attempt.worker, so
// that JetStream drops a duplicate published within its window.
//
// A run id is "run-" and 32 hexadecimal digits of an HMAC-SHA-256 of the
// run's description under the coordinator's seed ([Identity.RunID]): the
// same coordinator finds its run again after a restart, and nobody
// without its key can name a run before it is published.
//
// # Blobs
//
// A reader names the most bytes it accepts ([Queue.Get], [Inputs.Get],
// [Inputs.Fetch]): an object that records more, or that is a link, is
// refused before it is read, and no more than that bound plus one byte
// is ever read of it, part by part; its bytes are then checked against
// its name ([ErrBadBlob] otherwise). A put of a name already in the
// party's store reads the stored blob back and overwrites it unless its
// bytes are those of the name (a squatted name) — except a coordinator's
// put of a name among the inputs on a server with users, where only
// coordinators write.
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
// not stored as named (or not found for five seconds), is refused with
// its reason and its job published again as the next attempt — and
// keeps the first verified result of each job: a duplicate is ignored.
// A result that is not a certified worker's is ignored. A failure is
// acted on as above only when its job digest is that of the job message
// this coordinator published for that attempt; any other failure (one
// published before the run, or one of an earlier coordinator's job) is
// not believed, and the coordinator publishes the job again itself,
// within the same three attempts. A worker's handler that panics fails
// its job deterministically with the panic's message. A request to the server that fails (a cluster
// electing new leaders after a node died) is retried every second for a
// minute, by the coordinator and by the workers, before it ends the run
// or the worker. Its [Progress] is told
// of each job's events; a [Timeline] records them and charts where a
// run's time went.
package distributed
