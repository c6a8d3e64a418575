package distributed

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nkeys"
)

// The roles of a deployment's parties.
const (
	// RoleCoordinator publishes jobs and signs them.
	RoleCoordinator = "coordinator"
	// RoleWorker takes jobs and publishes their results, signed, with
	// the coordinator's certificate of its key.
	RoleWorker = "worker"
)

// Identity is a party's credentials: its role and name, its key (the
// seed of an nkey user, "SU…": the NATS server authenticates the party
// by it, and the party signs the messages it publishes with it), the
// public key of the coordinator it serves ("U…"; a coordinator's own),
// and for a worker the coordinator's certificate of its key. CA is the
// PEM of the certificate authority the party trusts for a server's TLS
// ("" for none).
type Identity struct {
	Role        string `json:"role"`
	Name        string `json:"name"`
	Seed        string `json:"seed"`
	Coordinator string `json:"coordinator"`
	Certificate string `json:"certificate,omitempty"`
	CA          string `json:"ca,omitempty"`

	kp nkeys.KeyPair
}

// MaxIdentity bounds an identity file.
const MaxIdentity = 1 << 16

// NewCoordinator returns a new coordinator's identity: a fresh key.
func NewCoordinator(who string) (*Identity, error) {
	id, err := newIdentity(RoleCoordinator, who)
	if err != nil {
		return nil, err
	}
	id.Coordinator = id.PublicKey()
	return id, nil
}

// newIdentity returns an identity of a role and name with a fresh key.
func newIdentity(role, who string) (*Identity, error) {
	if !name.MatchString(who) {
		return nil, fmt.Errorf("distributed: a %s's name %q is not a name of 1 to 64 letters, digits, _ or -", role, who)
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return nil, fmt.Errorf("distributed: %w", err)
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, err
	}
	return &Identity{Role: role, Name: who, Seed: string(seed), kp: kp}, nil
}

// NewWorker returns a new worker's identity, its key certified by the
// coordinator c.
func (c *Identity) NewWorker(worker string) (*Identity, error) {
	if c.Role != RoleCoordinator || c.kp == nil {
		return nil, errors.New("distributed: only a coordinator's identity certifies a worker")
	}
	id, err := newIdentity(RoleWorker, worker)
	if err != nil {
		return nil, err
	}
	sig, err := c.kp.Sign(certified(worker, id.PublicKey()))
	if err != nil {
		return nil, err
	}
	id.Coordinator, id.Certificate, id.CA = c.Coordinator, base64.StdEncoding.EncodeToString(sig), c.CA
	return id, nil
}

// certified is what a worker's certificate signs: its name and key.
func certified(worker, key string) []byte {
	return []byte("veriformer worker v1\n" + worker + "\n" + key)
}

// PublicKey returns the party's public key ("U…").
func (id *Identity) PublicKey() string {
	pub, _ := id.kp.PublicKey()
	return pub
}

// ParseIdentity decodes and checks an identity: its role, name and
// key, that a coordinator's public key is its own, and that a worker's
// certificate is the coordinator's signature of its name and key. It
// never panics (fuzzed).
func ParseIdentity(data []byte) (*Identity, error) {
	var id Identity
	if len(data) > MaxIdentity {
		return nil, fmt.Errorf("distributed: an identity of %d bytes", len(data))
	}
	if err := decodeStrict(data, &id); err != nil {
		return nil, fmt.Errorf("distributed: identity: %w", err)
	}
	if id.Role != RoleCoordinator && id.Role != RoleWorker {
		return nil, fmt.Errorf("distributed: identity: role %q, want %s or %s", id.Role, RoleCoordinator, RoleWorker)
	}
	if !name.MatchString(id.Name) {
		return nil, fmt.Errorf("distributed: identity: name %q", id.Name)
	}
	if !strings.HasPrefix(id.Seed, "SU") {
		return nil, errors.New("distributed: identity: the seed is not an nkey user's (SU…)")
	}
	kp, err := nkeys.FromSeed([]byte(id.Seed))
	if err != nil {
		return nil, fmt.Errorf("distributed: identity: seed: %w", err)
	}
	id.kp = kp
	pub := id.PublicKey()
	if !nkeys.IsValidPublicUserKey(id.Coordinator) {
		return nil, fmt.Errorf("distributed: identity: coordinator key %q", id.Coordinator)
	}
	switch id.Role {
	case RoleCoordinator:
		if id.Coordinator != pub || id.Certificate != "" {
			return nil, errors.New("distributed: identity: a coordinator's key is not its seed's, or it has a certificate")
		}
	case RoleWorker:
		if err := checkCertificate(id.Coordinator, id.Name, pub, id.Certificate); err != nil {
			return nil, fmt.Errorf("distributed: identity: %w", err)
		}
	}
	if id.CA != "" && !strings.Contains(id.CA, "-----BEGIN CERTIFICATE-----") {
		return nil, errors.New("distributed: identity: the CA is not a PEM certificate")
	}
	return &id, nil
}

// checkCertificate checks that cert is the coordinator's signature of a
// worker's name and key.
func checkCertificate(coordinator, worker, key, cert string) error {
	sig, err := base64.StdEncoding.DecodeString(cert)
	if err != nil {
		return fmt.Errorf("worker %s: the certificate is not base64", worker)
	}
	ck, err := nkeys.FromPublicKey(coordinator)
	if err != nil {
		return fmt.Errorf("the coordinator's key: %w", err)
	}
	if err := ck.Verify(certified(worker, key), sig); err != nil {
		return fmt.Errorf("worker %s: its key %s is not certified by coordinator %s", worker, key, coordinator)
	}
	return nil
}

// ReadIdentity reads an identity file (ParseIdentity).
func ReadIdentity(path string) (*Identity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("distributed: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxIdentity+1))
	if err != nil {
		return nil, fmt.Errorf("distributed: %w", err)
	}
	id, err := ParseIdentity(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("distributed: %s holds a secret key and is readable by others (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	return id, nil
}

// Marshal returns the identity's file.
func (id *Identity) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(id, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// WriteFile writes the identity's file at path, readable by its owner
// only (it holds a secret key), through a temporary file renamed once
// written.
func (id *Identity) WriteFile(path string) error {
	data, err := id.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.part")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// RunID returns the run id of a run's description: "run-" and 32
// hexadecimal digits of an HMAC of desc under the coordinator's key.
// The same coordinator finds the same id again (a coordinator started
// again resumes its run); nobody without its key can tell it in advance.
func (id *Identity) RunID(desc []byte) string {
	mac := hmac.New(sha256.New, []byte("veriformer run id v1\n"+id.Seed))
	mac.Write(desc)
	return "run-" + hex.EncodeToString(mac.Sum(nil)[:16])
}

// Signed is a signed message: its body (a job's or a result's JSON), the
// signer's public key, a worker's certificate of it, and the signature
// of the body under the message's domain.
type Signed struct {
	Body        json.RawMessage `json:"body"`
	Key         string          `json:"key"`
	Certificate string          `json:"certificate,omitempty"`
	Signature   string          `json:"signature"`
}

// The domains a signature is made in: a job's signature is not a
// result's.
const (
	jobDomain    = "veriformer job v1\n"
	resultDomain = "veriformer result v1\n"
)

// sign returns the signed message of body in domain.
func (id *Identity) sign(domain string, body []byte) ([]byte, error) {
	if id == nil || id.kp == nil {
		return nil, errors.New("distributed: no identity to sign with")
	}
	sig, err := id.kp.Sign(append([]byte(domain), body...))
	if err != nil {
		return nil, err
	}
	return json.Marshal(&Signed{Body: body, Key: id.PublicKey(), Certificate: id.Certificate, Signature: base64.StdEncoding.EncodeToString(sig)})
}

// openSigned decodes a signed message and checks its signature in
// domain; the caller checks who the key is.
func openSigned(domain string, data []byte) (*Signed, error) {
	var s Signed
	if err := decodeStrict(data, &s); err != nil {
		return nil, err
	}
	if !nkeys.IsValidPublicUserKey(s.Key) {
		return nil, fmt.Errorf("distributed: a message signed by %q, not a user's key", s.Key)
	}
	sig, err := base64.StdEncoding.DecodeString(s.Signature)
	if err != nil {
		return nil, errors.New("distributed: a message whose signature is not base64")
	}
	k, err := nkeys.FromPublicKey(s.Key)
	if err != nil {
		return nil, fmt.Errorf("distributed: %w", err)
	}
	if err := k.Verify(append([]byte(domain), s.Body...), sig); err != nil {
		return nil, fmt.Errorf("distributed: a message whose signature by %s does not verify", s.Key)
	}
	return &s, nil
}

// SignJob returns a job's message signed by the coordinator id.
func (id *Identity) SignJob(j *Job) ([]byte, error) {
	if id.Role != RoleCoordinator {
		return nil, errors.New("distributed: only a coordinator signs jobs")
	}
	return id.signChecked(jobDomain, j)
}

// signChecked returns the signed message of a checked job or result in
// domain.
func (id *Identity) signChecked(domain string, v interface{ Check() error }) ([]byte, error) {
	if err := v.Check(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return id.sign(domain, body)
}

// OpenJob decodes a job message and checks that the coordinator of
// public key coordinator signed it. It never panics (fuzzed).
func OpenJob(data []byte, coordinator string) (*Job, error) {
	s, err := openSigned(jobDomain, data)
	if err != nil {
		return nil, err
	}
	if s.Key != coordinator {
		return nil, fmt.Errorf("distributed: a job signed by %s, not by the coordinator %s", s.Key, coordinator)
	}
	return DecodeJob(s.Body)
}

// SignResult returns a result's message signed by the worker id, with
// its certificate.
func (id *Identity) SignResult(r *Result) ([]byte, error) {
	if id.Role != RoleWorker {
		return nil, errors.New("distributed: only a worker signs results")
	}
	if r.Worker != id.Name {
		return nil, fmt.Errorf("distributed: worker %s signing a result of worker %s", id.Name, r.Worker)
	}
	return id.signChecked(resultDomain, r)
}

// OpenResult decodes a result message and checks that it is signed by a
// worker the coordinator of public key coordinator certified, under the
// name the result gives. It never panics (fuzzed).
func OpenResult(data []byte, coordinator string) (*Result, error) {
	s, err := openSigned(resultDomain, data)
	if err != nil {
		return nil, err
	}
	r, err := DecodeResult(s.Body)
	if err != nil {
		return nil, err
	}
	if err := checkCertificate(coordinator, r.Worker, s.Key, s.Certificate); err != nil {
		return nil, fmt.Errorf("distributed: a result of job %s: %w", r.Job, err)
	}
	return r, nil
}

// jobDigest is the digest a result carries of the job message it
// answers: the hexadecimal SHA-256 of the message's bytes.
func jobDigest(msg []byte) string {
	d := sha256.Sum256(msg)
	return hex.EncodeToString(d[:])
}

// RunID returns the run id of a run's description under the identity
// of the queue's party ([Identity.RunID]).
func (q *Queue) RunID(desc []byte) string { return q.cfg.Identity.RunID(desc) }
