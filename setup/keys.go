package setup

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/consensys/gnark"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
)

// CacheDirEnv names the environment variable that overrides the key cache
// directory.
const CacheDirEnv = "VERIFORMER_CACHE"

// cacheFormat versions the cache layout and the circuit hash. Version 2
// added the manifest; keys of version 1 have other names and are ignored.
const cacheFormat = "veriformer/setup/keys/v2"

// DefaultCacheDir returns $VERIFORMER_CACHE if set, else .cache/keys under the
// module root (the nearest directory above the working directory holding a
// go.mod file), else .cache/keys under the working directory.
func DefaultCacheDir() (string, error) {
	if dir := os.Getenv(CacheDirEnv); dir != "" {
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("setup: cache dir: %w", err)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".cache", "keys"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join(wd, ".cache", "keys"), nil
		}
		dir = parent
	}
}

// gnarkVersion is the version of the gnark module this binary was built
// with, part of the circuit hash: another gnark may compile the same circuit
// differently or serialize keys differently. It is gnark's own version
// variable, not the binary's build information, which test binaries do not
// carry: keys set up by a test are then found by the commands, and the
// other way round.
func gnarkVersion() string { return gnark.Version.String() }

// CircuitHash identifies a compiled constraint system: the hex SHA-256 of the
// cache format, the gnark version, the scalar field and the constraint
// system's serialization. Keys are cached under this name.
func CircuitHash(ccs constraint.ConstraintSystem) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\ngnark %s\nfield %s\n", cacheFormat, gnarkVersion(), ccs.Field().String())
	if _, err := ccs.WriteTo(h); err != nil {
		return "", fmt.Errorf("setup: circuit hash: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Keys are a compiled circuit with its Groth16 keys and the manifest they
// were checked against. PK is nil when only the verifying key was loaded.
type Keys struct {
	CCS      constraint.ConstraintSystem
	PK       groth16.ProvingKey
	VK       groth16.VerifyingKey
	Manifest *Manifest
}

// paths are the cache files of one circuit.
type paths struct {
	hash             string
	pk, vk, manifest string
}

func pathsOf(ccs constraint.ConstraintSystem, dir string) (paths, error) {
	name, err := CircuitHash(ccs)
	if err != nil {
		return paths{}, err
	}
	base := filepath.Join(dir, name)
	return paths{hash: name, pk: base + ".pk", vk: base + ".vk", manifest: base + ".json"}, nil
}

// exists reports whether path exists; an error other than "does not exist"
// is returned.
func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// LoadOrSetup returns the Groth16 keys of ccs from the cache directory dir,
// checked against their manifest ([Load]), or, when the directory holds no
// keys of ccs at all, makes development keys (the package documentation,
// "Development keys"), checks and stores them with a manifest of kind
// [Development]. Development keys are for development only: whoever makes
// them knows the toxic waste and can forge proofs; the warning goes to the
// log given by [WithLog]. Production keys
// come from the MPC ceremony ([Phase2Seal], cmd/ceremony) and are put in
// the cache with [Store].
//
// Key files without a manifest, or a manifest without its key files, are
// an error, never a reason to set up again: delete them (all three files
// named by the circuit hash) to start over.
func LoadOrSetup(ccs constraint.ConstraintSystem, dir string, opts ...Option) (*Keys, error) {
	cfg, p, fresh, err := open(ccs, dir, opts)
	if err != nil {
		return nil, err
	}
	if !fresh {
		return load(ccs, p, true, cfg)
	}
	if cfg.require == Ceremony {
		return nil, fmt.Errorf("setup: no keys for circuit %s in %s, and development keys were refused: seal a ceremony's keys there (cmd/ceremony seal)", short(p.hash), dir)
	}
	cfg.logf("setup: WARNING: DEVELOPMENT KEYS: running a Groth16 setup for circuit %s (%d constraints); "+
		"the toxic waste is known to this process, so anyone holding it can forge proofs. "+
		"Production keys come from a ceremony (cmd/ceremony, docs/ceremony.md).", short(p.hash), ccs.GetNbConstraints())
	pk, vk, err := developmentSetup(ccs)
	if err != nil {
		return nil, err
	}
	m, err := store(ccs, dir, p, pk, vk, &Manifest{Kind: Development})
	if err != nil {
		return nil, err
	}
	return &Keys{CCS: ccs, PK: pk, VK: vk, Manifest: m}, nil
}

// FetchedMarker names the file that marks a directory of fetched keys:
// keys a worker received from elsewhere (a job's object store), checked
// against the digests of the job that named them but not made or sealed
// here. The loaders refuse such a directory unless told ([FromFetched]),
// and never set up keys there, so that it is never taken for a trusted
// key cache (what setup, export and a run's coordinator read).
const FetchedMarker = "FETCHED"

// MarkFetched creates dir, if needed, and marks it as a directory of
// fetched keys ([FetchedMarker]).
func MarkFetched(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	path := filepath.Join(dir, FetchedMarker)
	if ok, err := exists(path); err != nil || ok {
		return err
	}
	return os.WriteFile(path, []byte("Keys fetched by a worker from a job's object store, checked against the digests\nthe job's coordinator signed. Not a trusted key cache: setup, export and prove\nrefuse to read keys here.\n"), 0o644)
}

// checkTrusted refuses a directory of fetched keys unless cfg allows it.
func checkTrusted(dir string, cfg *config) error {
	ok, err := exists(filepath.Join(dir, FetchedMarker))
	if err != nil {
		return fmt.Errorf("setup: key cache: %w", err)
	}
	if ok && !cfg.fetched {
		return fmt.Errorf("setup: %s holds keys a worker fetched (it has a %s file), not a trusted key cache: use another directory", dir, FetchedMarker)
	}
	return nil
}

// open reads the options and the cache paths of ccs in dir, and whether
// the directory holds none of its key files yet. A directory of fetched
// keys is refused.
func open(ccs constraint.ConstraintSystem, dir string, opts []Option) (*config, paths, bool, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, paths{}, false, err
	}
	if cfg.fetched {
		return nil, paths{}, false, errors.New("setup: keys are never set up among fetched keys")
	}
	if err := checkTrusted(dir, cfg); err != nil {
		return nil, paths{}, false, err
	}
	p, err := pathsOf(ccs, dir)
	if err != nil {
		return nil, paths{}, false, err
	}
	fresh, err := p.empty()
	if err != nil {
		return nil, paths{}, false, err
	}
	return cfg, p, fresh, nil
}

// LoadOrSetupVK returns the verifying key of ccs: loaded with its manifest
// and checked like [Load] does, except that the proving key (possibly
// gigabytes) is hashed, not decoded, so Keys.PK is nil; or, when the
// directory holds no keys of ccs, made and stored by [LoadOrSetup].
func LoadOrSetupVK(ccs constraint.ConstraintSystem, dir string, opts ...Option) (*Keys, error) {
	cfg, p, fresh, err := open(ccs, dir, opts)
	if err != nil {
		return nil, err
	}
	if fresh {
		k, err := LoadOrSetup(ccs, dir, opts...)
		if err != nil {
			return nil, err
		}
		k.PK = nil
		return k, nil
	}
	return load(ccs, p, false, cfg)
}

// Load returns the cached keys of ccs in dir after checking them: the
// manifest names this circuit, the SHA-256 of each key file is the digest
// the manifest recorded, the verifying key fits the circuit's public inputs
// and the proving key belongs to the verifying key ([CheckPair]). Anything
// else is an error that says which check failed. Keys are decoded without
// gnark's subgroup checks: the digests stand for them. Library API, for a
// caller that must not set keys up; used by the tests of packages setup
// and pipeline. The commands call [LoadOrSetup], [LoadVK] and
// [LoadProvingKey].
func Load(ccs constraint.ConstraintSystem, dir string, opts ...Option) (*Keys, error) {
	return loadOnly(ccs, dir, true, opts)
}

// LoadVK returns the verifying key of ccs from dir, checked as [Load]
// checks it, the proving key's file hashed but not decoded (Keys.PK nil;
// [LoadProvingKey] reads it); keys are never set up. With [FromFetched]
// it reads a directory of fetched keys.
func LoadVK(ccs constraint.ConstraintSystem, dir string, opts ...Option) (*Keys, error) {
	return loadOnly(ccs, dir, false, opts)
}

func loadOnly(ccs constraint.ConstraintSystem, dir string, withPK bool, opts []Option) (*Keys, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := checkTrusted(dir, cfg); err != nil {
		return nil, err
	}
	p, err := pathsOf(ccs, dir)
	if err != nil {
		return nil, err
	}
	return load(ccs, p, withPK, cfg)
}

// LoadProvingKey reads the proving key of keys (loaded by [LoadOrSetupVK]
// or [Load]) from the cache directory dir, without its circuit: the file
// is the one the manifest names, its SHA-256 must be the digest the
// manifest recorded and it must belong to keys.VK ([CheckPair]). A run
// that drops its compiled circuits between stages reads its proving keys
// this way, one at a time.
func LoadProvingKey(keys *Keys, dir string, opts ...Option) (groth16.ProvingKey, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if keys == nil || keys.VK == nil || keys.Manifest == nil {
		return nil, fmt.Errorf("setup: load proving key: keys without a verifying key or manifest")
	}
	// A manifest read from the cache names a circuit hash (ParseManifest);
	// one built by hand is checked too, since the name becomes a path.
	m := keys.Manifest
	if !validHash(m.Circuit) {
		return nil, fmt.Errorf("setup: load proving key: manifest names circuit %q", m.Circuit)
	}
	pk := groth16.NewProvingKey(keys.VK.CurveID())
	if pk == nil {
		return nil, fmt.Errorf("setup: load proving key: no proving key for curve %s", keys.VK.CurveID())
	}
	path := filepath.Join(dir, m.Circuit+".pk")
	if err := readChecked(path, m.ProvingKey, pk.UnsafeReadFrom); err != nil {
		return nil, err
	}
	if err := CheckPair(pk, keys.VK); err != nil {
		return nil, fmt.Errorf("setup: cached keys of circuit %s: %w", short(m.Circuit), err)
	}
	cfg.logf("setup: %s proving key of circuit %s (digest checked)", m.Kind, short(m.Circuit))
	return pk, nil
}

// validHash reports whether s is a circuit hash: 64 lower-case hex digits.
func validHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// empty reports whether none of the cache files of the circuit exist.
func (p paths) empty() (bool, error) {
	for _, path := range []string{p.manifest, p.pk, p.vk} {
		ok, err := exists(path)
		if err != nil {
			return false, fmt.Errorf("setup: key cache: %w", err)
		}
		if ok {
			return false, nil
		}
	}
	return true, nil
}

func load(ccs constraint.ConstraintSystem, p paths, withPK bool, cfg *config) (*Keys, error) {
	m, err := readManifest(p.manifest)
	if err != nil {
		return nil, err
	}
	if m.Circuit != p.hash {
		return nil, fmt.Errorf("setup: manifest %s is for circuit %s, not %s: the cache holds keys of another circuit under this name", p.manifest, short(m.Circuit), short(p.hash))
	}
	if cfg.require != "" && m.Kind != cfg.require {
		return nil, fmt.Errorf("setup: the cached keys of circuit %s are %s keys, and only %s keys are accepted", short(p.hash), m.Kind, cfg.require)
	}
	curve := curveOf(ccs)
	vk := groth16.NewVerifyingKey(curve)
	if err := readChecked(p.vk, m.VerifyingKey, vk.UnsafeReadFrom); err != nil {
		return nil, err
	}
	if err := checkCircuit(ccs, vk); err != nil {
		return nil, err
	}
	k := &Keys{CCS: ccs, VK: vk, Manifest: m}
	if !withPK {
		if err := readChecked(p.pk, m.ProvingKey, nil); err != nil {
			return nil, err
		}
		cfg.logf("setup: %s keys of circuit %s (digests checked)", m.Kind, short(p.hash))
		return k, nil
	}
	k.PK = groth16.NewProvingKey(curve)
	if err := readChecked(p.pk, m.ProvingKey, k.PK.UnsafeReadFrom); err != nil {
		return nil, err
	}
	if err := CheckPair(k.PK, k.VK); err != nil {
		return nil, fmt.Errorf("setup: cached keys of circuit %s: %w", short(p.hash), err)
	}
	cfg.logf("setup: %s keys of circuit %s (digests checked)", m.Kind, short(p.hash))
	return k, nil
}

// readChecked decodes the file at path with read (nil to only hash it)
// while hashing all of it, and compares the SHA-256 with want.
func readChecked(path, want string, read func(io.Reader) (int64, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("setup: key cache: %w (the manifest lists it: delete the circuit's three files to start over)", err)
	}
	defer f.Close()
	h := sha256.New()
	// gnark's decoders read a point at a time: without a buffer that is a
	// system call per point, two for each uncompressed one.
	r := io.TeeReader(bufio.NewReaderSize(f, fileBuffer), h)
	if read != nil {
		if _, err := read(r); err != nil {
			return fmt.Errorf("setup: decode %s: %w", path, err)
		}
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return fmt.Errorf("setup: read %s: %w", path, err)
	}
	if got := digestOf(h); got != want {
		return fmt.Errorf("setup: %s has digest %s, its manifest records %s: the key was changed or replaced after setup; refusing it", path, got, want)
	}
	return nil
}

// Store checks that pk and vk belong together and to ccs, and writes them
// into the cache directory dir (created if needed) under the circuit's
// hash with a manifest recording their digests: m's Kind and Ceremony
// fields are kept, the others filled in. Each file is written atomically,
// the manifest last. It returns the manifest written.
func Store(ccs constraint.ConstraintSystem, dir string, pk groth16.ProvingKey, vk groth16.VerifyingKey, m Manifest) (*Manifest, error) {
	if m.Kind != Development && m.Kind != Ceremony {
		return nil, fmt.Errorf("setup: store: kind %q: want %q or %q", m.Kind, Development, Ceremony)
	}
	p, err := pathsOf(ccs, dir)
	if err != nil {
		return nil, err
	}
	return store(ccs, dir, p, pk, vk, &m)
}

func store(ccs constraint.ConstraintSystem, dir string, p paths, pk groth16.ProvingKey, vk groth16.VerifyingKey, m *Manifest) (*Manifest, error) {
	if err := checkCircuit(ccs, vk); err != nil {
		return nil, err
	}
	if err := CheckPair(pk, vk); err != nil {
		return nil, fmt.Errorf("setup: store: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("setup: key cache: %w", err)
	}
	m.Format = cacheFormat
	m.Circuit = p.hash
	m.Curve = curveOf(ccs).String()
	m.Constraints = ccs.GetNbConstraints()
	var err error
	if m.ProvingKey, err = writeFileAtomic(p.pk, pk.WriteRawTo); err != nil {
		return nil, fmt.Errorf("setup: store proving key: %w", err)
	}
	if m.VerifyingKey, err = writeFileAtomic(p.vk, vk.WriteRawTo); err != nil {
		return nil, fmt.Errorf("setup: store verifying key: %w", err)
	}
	if _, err := writeFileAtomic(p.manifest, m.writeTo); err != nil {
		return nil, fmt.Errorf("setup: store manifest: %w", err)
	}
	return m, nil
}

// writeFileAtomic writes path through a temporary file renamed into place
// and returns the digest of what it wrote.
func writeFileAtomic(path string, write func(io.Writer) (int64, error)) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := write(io.MultiWriter(f, h)); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	// Keys and transcripts are public; CreateTemp makes files private.
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return digestOf(h), nil
}

// short abbreviates a circuit hash for messages.
func short(hash string) string {
	if len(hash) > 16 {
		return hash[:16]
	}
	return hash
}

// Cached returns the manifest of the keys of ccs in the cache directory
// dir, or nil when none of their files is there. It reads the manifest
// only: the keys are checked when they are loaded ([Load]). Some of the
// files without the others is an error, as for a load. A directory of
// fetched keys is refused unless opts has [FromFetched].
func Cached(ccs constraint.ConstraintSystem, dir string, opts ...Option) (*Manifest, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := checkTrusted(dir, cfg); err != nil {
		return nil, err
	}
	p, err := pathsOf(ccs, dir)
	if err != nil {
		return nil, err
	}
	none, err := p.empty()
	if err != nil || none {
		return nil, err
	}
	for _, path := range []string{p.pk, p.vk} {
		ok, err := exists(path)
		if err != nil {
			return nil, fmt.Errorf("setup: key cache: %w", err)
		}
		if !ok {
			return nil, fmt.Errorf("setup: key cache: %s is missing beside the other files of circuit %s", filepath.Base(path), short(p.hash))
		}
	}
	return readManifest(p.manifest)
}

// fileBuffer is the read buffer of key and contribution files: gnark's
// decoders read a point at a time, a system call per point without it.
const fileBuffer = 1 << 20
