package distributed

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"regexp"
)

// Job is one unit of work of a run: a kind of computation (the worker's
// handler of that name), its inputs as blobs by role, and its estimated
// peak memory. Attempt counts the times the coordinator published it (1
// first); Avoid names the workers whose results for it were refused, so
// that another worker takes it when there is one.
type Job struct {
	Run     string            `json:"run"`
	ID      string            `json:"id"`
	Kind    string            `json:"kind"`
	Inputs  map[string]string `json:"inputs,omitempty"`
	Memory  uint64            `json:"memory"`
	Attempt int               `json:"attempt"`
	Avoid   []string          `json:"avoid,omitempty"`
}

// Result is what a worker did with one attempt of a job: the digest of
// the job message it answers ([Queue.Run] acts on a failure only when
// that is a job it published), the blob of its output, or the error it
// failed with and whether that error is deterministic (the same input
// fails again), and how long the worker took, in milliseconds, from
// taking the job to storing its output (a duration: the worker's clock
// need not agree with the coordinator's).
type Result struct {
	Run           string `json:"run"`
	Job           string `json:"job"`
	Attempt       int    `json:"attempt"`
	Worker        string `json:"worker"`
	JobDigest     string `json:"jobDigest"`
	Output        string `json:"output,omitempty"`
	Error         string `json:"error,omitempty"`
	Deterministic bool   `json:"deterministic,omitempty"`
	Millis        int64  `json:"millis,omitempty"`
}

// MaxMessage bounds a job or result message.
const MaxMessage = 1 << 16

// maxMillis bounds a result's duration: a year.
const maxMillis = 365 * 24 * 3600 * 1000

// maxAttempts bounds a job's attempts: a job whose results are refused
// this many times fails the run.
const maxAttempts = 3

// names are run ids, job ids, kinds, roles and worker names: a subject
// token each (no dot, no wildcard, no space).
var name = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// blobName is a blob's name: the hexadecimal SHA-256 of its bytes.
var blobName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Blob returns the name of a blob: the lowercase hexadecimal SHA-256 of
// its bytes.
func Blob(data []byte) string {
	d := sha256.Sum256(data)
	return hex.EncodeToString(d[:])
}

// MemClass returns a job's memory class: ⌈log₂⌉ of its estimated peak
// in MiB (0 up to 1 MiB), the class of the consumers it is pulled from.
func MemClass(memory uint64) int {
	mib := (memory + (1<<20 - 1)) >> 20
	if mib <= 1 {
		return 0
	}
	return bits.Len64(mib - 1)
}

// MaxClass is the largest memory class: jobs of up to 2²⁰ MiB (1 TiB).
const MaxClass = 20

// Check checks a job: its names subject tokens, its inputs blob names,
// its attempt in [1, 3], its memory class at most [MaxClass].
func (j *Job) Check() error {
	for what, v := range map[string]string{"run": j.Run, "id": j.ID, "kind": j.Kind} {
		if !name.MatchString(v) {
			return fmt.Errorf("distributed: the job's %s %q is not a name of 1 to 64 letters, digits, _ or -", what, v)
		}
	}
	for role, blob := range j.Inputs {
		if !name.MatchString(role) || !blobName.MatchString(blob) {
			return fmt.Errorf("distributed: job %s: input %q is %q, want a role name and a SHA-256 in hexadecimal", j.ID, role, blob)
		}
	}
	for _, w := range j.Avoid {
		if !name.MatchString(w) {
			return fmt.Errorf("distributed: job %s: a worker to avoid is %q", j.ID, w)
		}
	}
	if j.Attempt < 1 || j.Attempt > maxAttempts {
		return fmt.Errorf("distributed: job %s: attempt %d, want 1 to %d", j.ID, j.Attempt, maxAttempts)
	}
	if MemClass(j.Memory) > MaxClass {
		return fmt.Errorf("distributed: job %s: an estimate of %d bytes", j.ID, j.Memory)
	}
	return nil
}

// Check checks a result: its names, its attempt, and either an output
// blob or an error.
func (r *Result) Check() error {
	for what, v := range map[string]string{"run": r.Run, "job": r.Job, "worker": r.Worker} {
		if !name.MatchString(v) {
			return fmt.Errorf("distributed: the result's %s %q is not a name", what, v)
		}
	}
	if r.Attempt < 1 || r.Attempt > maxAttempts {
		return fmt.Errorf("distributed: result of job %s: attempt %d", r.Job, r.Attempt)
	}
	if !blobName.MatchString(r.JobDigest) {
		return fmt.Errorf("distributed: result of job %s: job digest %q", r.Job, r.JobDigest)
	}
	if r.Millis < 0 || r.Millis > maxMillis {
		return fmt.Errorf("distributed: result of job %s: %d ms", r.Job, r.Millis)
	}
	switch {
	case r.Error == "" && !blobName.MatchString(r.Output):
		return fmt.Errorf("distributed: result of job %s: no error and output %q", r.Job, r.Output)
	case r.Error != "" && r.Output != "":
		return fmt.Errorf("distributed: result of job %s: both an output and an error", r.Job)
	case r.Error == "" && r.Deterministic:
		return fmt.Errorf("distributed: result of job %s: a deterministic success", r.Job)
	}
	return nil
}

// decodeStrict decodes one JSON object of at most MaxMessage bytes with
// no unknown field and nothing after it.
func decodeStrict(data []byte, v any) error {
	if len(data) > MaxMessage {
		return fmt.Errorf("distributed: a message of %d bytes", len(data))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("distributed: %w", err)
	}
	if dec.More() {
		return errors.New("distributed: data after the message")
	}
	return nil
}

// DecodeJob decodes and checks a job message. It never panics (fuzzed).
func DecodeJob(data []byte) (*Job, error) {
	var j Job
	if err := decodeStrict(data, &j); err != nil {
		return nil, err
	}
	if err := j.Check(); err != nil {
		return nil, err
	}
	return &j, nil
}

// DecodeResult decodes and checks a result message. It never panics
// (fuzzed).
func DecodeResult(data []byte) (*Result, error) {
	var r Result
	if err := decodeStrict(data, &r); err != nil {
		return nil, err
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// deterministic marks an error as deterministic.
type deterministic struct{ err error }

func (d deterministic) Error() string { return d.err.Error() }
func (d deterministic) Unwrap() error { return d.err }

// Deterministic marks err as deterministic: the job's input is at fault,
// and running it again fails the same way.
func Deterministic(err error) error {
	if err == nil {
		return nil
	}
	return deterministic{err}
}

// IsDeterministic reports whether err was marked [Deterministic].
func IsDeterministic(err error) bool {
	var d deterministic
	return errors.As(err, &d)
}
