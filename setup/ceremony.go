package setup

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"strings"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
)

// A ceremony directory holds the transcript of one ceremony — one phase 1
// and, for a circuit, one phase 2 — as files a participant can copy,
// publish and replay:
//
//	ceremony.json        what the ceremony is for ([CeremonyInfo])
//	phase1/0000.bin      the initial phase-1 object (Phase1Init)
//	phase1/0001.bin …    the contributions, in order
//	phase1/beacon        the public beacon, hex, fixed after the last one
//	phase1/commons.bin   the sealed SRS commons (gnark's SrsCommons)
//	phase2/0000.bin      the initial phase-2 object of the circuit
//	phase2/0001.bin …    the contributions, in order
//	phase2/beacon        the public beacon of phase 2
//
// The hash of a contribution is the SHA-256 of its file, "sha256:<hex>":
// gnark's next contribution signs exactly that hash as its challenge.
const ceremonyFormat = "veriformer/ceremony/v1"

// CeremonyInfo is ceremony.json.
type CeremonyInfo struct {
	Format string `json:"format"`
	// Name says what the ceremony is for, for a reader.
	Name string `json:"name"`
	// Curve and Power: the phase-1 domain has 2^Power points.
	Curve string `json:"curve"`
	Power int    `json:"power"`
	// Commons is the digest of phase1/commons.bin once phase 1 is sealed.
	Commons string `json:"commons,omitempty"`
	// Circuit describes the circuit of phase 2 (nil before phase 2).
	Circuit *CircuitInfo `json:"circuit,omitempty"`
}

// CircuitInfo is what phase 2 records of its circuit: its hash, and the
// shape a contributor reads contributions with.
type CircuitInfo struct {
	Hash        string `json:"hash"`
	Constraints int    `json:"constraints"`
	Commitments int    `json:"commitments"`
	MaxPoints   uint64 `json:"maxPoints"`
}

// CeremonyDir is an open ceremony directory.
type CeremonyDir struct {
	Dir  string
	Info CeremonyInfo
}

// Contribution is one file of a phase's transcript.
type Contribution struct {
	Index int
	Hash  string
}

func curveByName(name string) (ecc.ID, error) {
	for _, id := range []ecc.ID{ecc.BN254, ecc.BLS12_377, ecc.BW6_761} {
		if id.String() == name {
			return id, nil
		}
	}
	return ecc.UNKNOWN, fmt.Errorf("setup: ceremony: curve %q: want bn254, bls12_377 or bw6_761", name)
}

// NewCeremony creates the ceremony directory dir (which must not hold a
// ceremony) for a phase 1 of 2^power points on curve, writes the initial
// phase-1 object and returns its entry.
func NewCeremony(dir, name string, curve ecc.ID, power int) (*CeremonyDir, Contribution, error) {
	if power < 1 || power > maxDomainLog {
		return nil, Contribution{}, fmt.Errorf("setup: ceremony: power %d outside [1, %d]", power, maxDomainLog)
	}
	c := &CeremonyDir{Dir: dir, Info: CeremonyInfo{Format: ceremonyFormat, Name: name, Curve: curve.String(), Power: power}}
	if ok, err := exists(c.infoPath()); err != nil || ok {
		return nil, Contribution{}, fmt.Errorf("setup: ceremony: %s already holds a ceremony (%v)", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "phase1"), 0o755); err != nil {
		return nil, Contribution{}, fmt.Errorf("setup: ceremony: %w", err)
	}
	var buf bytes.Buffer
	if err := Phase1Init(curve, uint64(1)<<power, &buf); err != nil {
		return nil, Contribution{}, err
	}
	first, err := c.write(1, 0, buf.Bytes())
	if err != nil {
		return nil, Contribution{}, err
	}
	return c, first, c.saveInfo()
}

// OpenCeremony reads the ceremony directory dir.
func OpenCeremony(dir string) (*CeremonyDir, error) {
	c := &CeremonyDir{Dir: dir}
	f, err := os.Open(c.infoPath())
	if err != nil {
		return nil, fmt.Errorf("setup: ceremony: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("setup: ceremony: %w", err)
	}
	if c.Info, err = ParseCeremonyInfo(data); err != nil {
		return nil, fmt.Errorf("setup: ceremony: %s: %w", c.infoPath(), err)
	}
	return c, nil
}

// ParseCeremonyInfo decodes ceremony.json and checks its fields' forms.
func ParseCeremonyInfo(data []byte) (CeremonyInfo, error) {
	var info CeremonyInfo
	if len(data) > maxManifestSize {
		return info, fmt.Errorf("larger than %d bytes", maxManifestSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&info); err != nil {
		return info, err
	}
	if dec.More() {
		return info, errors.New("trailing data")
	}
	if info.Format != ceremonyFormat {
		return info, fmt.Errorf("format %q, want %q", info.Format, ceremonyFormat)
	}
	if _, err := curveByName(info.Curve); err != nil {
		return info, err
	}
	if info.Power < 1 || info.Power > maxDomainLog {
		return info, fmt.Errorf("power %d outside [1, %d]", info.Power, maxDomainLog)
	}
	if info.Commons != "" && !validDigest(info.Commons) {
		return info, fmt.Errorf("commons digest %q", info.Commons)
	}
	if ci := info.Circuit; ci != nil {
		if ci.Commitments < 0 || ci.Commitments > 255 || ci.MaxPoints > 1<<(maxDomainLog+4) {
			return info, fmt.Errorf("circuit shape: %d commitments, %d points", ci.Commitments, ci.MaxPoints)
		}
	}
	return info, nil
}

func (c *CeremonyDir) infoPath() string { return filepath.Join(c.Dir, "ceremony.json") }

func (c *CeremonyDir) saveInfo() error {
	data, err := json.MarshalIndent(&c.Info, "", "  ")
	if err != nil {
		return err
	}
	_, err = writeFileAtomic(c.infoPath(), func(w io.Writer) (int64, error) {
		n, err := w.Write(append(data, '\n'))
		return int64(n), err
	})
	return err
}

func (c *CeremonyDir) curve() ecc.ID {
	id, _ := curveByName(c.Info.Curve)
	return id
}

func (c *CeremonyDir) domain() uint64 { return uint64(1) << c.Info.Power }

func (c *CeremonyDir) phaseDir(phase int) string {
	return filepath.Join(c.Dir, fmt.Sprintf("phase%d", phase))
}

func (c *CeremonyDir) write(phase, index int, data []byte) (Contribution, error) {
	path := filepath.Join(c.phaseDir(phase), fmt.Sprintf("%04d.bin", index))
	if ok, err := exists(path); err != nil || ok {
		return Contribution{}, fmt.Errorf("setup: ceremony: %s exists already (%v)", path, err)
	}
	hash, err := writeFileAtomic(path, func(w io.Writer) (int64, error) {
		n, err := w.Write(data)
		return int64(n), err
	})
	return Contribution{Index: index, Hash: hash}, err
}

// files lists the transcript files of a phase, 0000.bin first; a gap in
// the numbering or a stray name is an error.
func (c *CeremonyDir) files(phase int) ([]string, error) {
	entries, err := os.ReadDir(c.phaseDir(phase))
	if err != nil {
		return nil, fmt.Errorf("setup: ceremony: %w", err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".bin") && e.Name() != "commons.bin" {
			names = append(names, e.Name())
		}
	}
	for i, name := range names {
		if want := fmt.Sprintf("%04d.bin", i); name != want {
			return nil, fmt.Errorf("setup: ceremony: phase %d: found %s where %s is expected: the transcript must be 0000.bin, 0001.bin, … without gaps", phase, name, want)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("setup: ceremony: phase %d has not been started", phase)
	}
	for i := range names {
		names[i] = filepath.Join(c.phaseDir(phase), names[i])
	}
	return names, nil
}

func (c *CeremonyDir) beaconPath(phase int) string { return filepath.Join(c.phaseDir(phase), "beacon") }

// maxBeaconSize bounds a beacon file (hex).
const maxBeaconSize = 4096

// Beacon returns the beacon of a phase, nil if none was set.
func (c *CeremonyDir) Beacon(phase int) ([]byte, error) {
	f, err := os.Open(c.beaconPath(phase))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("setup: ceremony: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBeaconSize+1))
	if err != nil {
		return nil, fmt.Errorf("setup: ceremony: %w", err)
	}
	if len(data) > maxBeaconSize {
		return nil, fmt.Errorf("setup: ceremony: %s is larger than %d bytes", c.beaconPath(phase), maxBeaconSize)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("setup: ceremony: %s is not a hex beacon", c.beaconPath(phase))
	}
	return b, nil
}

// Contribute adds a contribution to a phase (1 or 2): it reads the latest
// file, contributes with randomness from the operating system mixed with
// entropy, and writes the next file. A phase closed by its beacon takes no
// more contributions.
func (c *CeremonyDir) Contribute(phase int, entropy []byte) (Contribution, error) {
	if phase != 1 && phase != 2 {
		return Contribution{}, fmt.Errorf("setup: ceremony: phase %d", phase)
	}
	if b, err := c.Beacon(phase); err != nil || b != nil {
		return Contribution{}, fmt.Errorf("setup: ceremony: phase %d is closed by its beacon (%v)", phase, err)
	}
	if phase == 2 && c.Info.Circuit == nil {
		return Contribution{}, errors.New("setup: ceremony: phase 2 has not been started (ceremony phase2 new)")
	}
	if phase == 1 && c.Info.Circuit != nil {
		return Contribution{}, errors.New("setup: ceremony: phase 1 is sealed and phase 2 started")
	}
	names, err := c.files(phase)
	if err != nil {
		return Contribution{}, err
	}
	f, err := os.Open(names[len(names)-1])
	if err != nil {
		return Contribution{}, fmt.Errorf("setup: ceremony: %w", err)
	}
	defer f.Close()
	var out bytes.Buffer
	in := bufio.NewReaderSize(f, fileBuffer)
	if phase == 1 {
		err = Phase1Contribute(c.curve(), c.domain(), in, &out, entropy)
	} else {
		err = Phase2Contribute(c.shape(), in, &out, entropy)
	}
	if err != nil {
		return Contribution{}, err
	}
	return c.write(phase, len(names), out.Bytes())
}

func (c *CeremonyDir) shape() Phase2Shape {
	return Phase2Shape{Curve: c.curve(), Commitments: c.Info.Circuit.Commitments, MaxPoints: c.Info.Circuit.MaxPoints}
}

// SetBeacon closes a phase with its public beacon: randomness nobody
// could know before the last contribution was published (a future block
// hash, a randomness-beacon round named in advance). It needs at least
// one contribution and refuses a second beacon.
func (c *CeremonyDir) SetBeacon(phase int, beacon []byte) error {
	if phase != 1 && phase != 2 {
		return fmt.Errorf("setup: ceremony: phase %d", phase)
	}
	if len(beacon) == 0 {
		return errors.New("setup: ceremony: empty beacon")
	}
	names, err := c.files(phase)
	if err != nil {
		return err
	}
	if len(names) < 2 {
		return fmt.Errorf("setup: ceremony: phase %d has no contribution: a beacon alone gives keys anyone can recompute", phase)
	}
	if ok, err := exists(c.beaconPath(phase)); err != nil || ok {
		return fmt.Errorf("setup: ceremony: phase %d has a beacon already (%v)", phase, err)
	}
	_, err = writeFileAtomic(c.beaconPath(phase), func(w io.Writer) (int64, error) {
		n, err := fmt.Fprintf(w, "%x\n", beacon)
		return int64(n), err
	})
	return err
}

// readTranscript hashes the files of a phase, one at a time and without
// holding them, prints their hashes, and returns the contributions
// (without the initial object) as files the verifier reads as it goes.
// The caller closes them with their finish, which also checks that the
// bytes verified are the bytes hashed.
func (c *CeremonyDir) readTranscript(phase int, log io.Writer) (transcript, []string, error) {
	if log == nil {
		log = io.Discard
	}
	names, err := c.files(phase)
	if err != nil {
		return nil, nil, err
	}
	var (
		files  transcript
		hashes []string
	)
	limit := c.maxFileSize(phase)
	for i, name := range names {
		info, err := os.Stat(name)
		if err != nil {
			return nil, nil, fmt.Errorf("setup: ceremony: %w", err)
		}
		if info.Size() > limit {
			return nil, nil, fmt.Errorf("setup: ceremony: %s has %d bytes, more than any phase-%d object of this ceremony (%d)", name, info.Size(), phase, limit)
		}
		hash, err := hashFile(name)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			fmt.Fprintf(log, "phase %d initial object   %s\n", phase, hash)
			continue
		}
		fmt.Fprintf(log, "phase %d contribution %3d %s\n", phase, i, hash)
		files = append(files, &transcriptFile{name: name, want: hash})
		hashes = append(hashes, hash)
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("setup: ceremony: phase %d has no contribution", phase)
	}
	return files, hashes, nil
}

// hashFile is the digest (digestPrefix and hex SHA-256) of a file, read
// in a stream.
func hashFile(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", fmt.Errorf("setup: ceremony: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("setup: ceremony: read %s: %w", name, err)
	}
	return digestPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// transcriptFile is a contribution read while it is verified: opened on
// its first read and hashed as it is read.
type transcriptFile struct {
	name, want string
	f          *os.File
	r          *bufio.Reader // f buffered: gnark's decoders read a point at a time
	h          hash.Hash
}

func (t *transcriptFile) Read(b []byte) (int, error) {
	if t.f == nil {
		f, err := os.Open(t.name)
		if err != nil {
			return 0, err
		}
		t.f, t.r, t.h = f, bufio.NewReaderSize(f, fileBuffer), sha256.New()
	}
	n, err := t.r.Read(b)
	t.h.Write(b[:n])
	return n, err
}

// finish reads what the decoder left of the file, closes it, and checks
// that the whole file read is the one hashed before: a file changed
// while it was verified is refused. A file never read is fine.
func (t *transcriptFile) finish() error {
	if t.f == nil {
		return nil
	}
	defer t.f.Close()
	if _, err := io.Copy(t.h, t.r); err != nil {
		return fmt.Errorf("setup: ceremony: read %s: %w", t.name, err)
	}
	if got := digestPrefix + hex.EncodeToString(t.h.Sum(nil)); got != t.want {
		return fmt.Errorf("setup: ceremony: %s changed while it was verified (hashed %s, verified %s)", t.name, t.want, got)
	}
	return nil
}

// transcript is a phase's contributions, as they are verified.
type transcript []*transcriptFile

// readers are the files as readers, in order.
func (t transcript) readers() []io.Reader {
	out := make([]io.Reader, len(t))
	for i, f := range t {
		out[i] = f
	}
	return out
}

// finish closes every file and checks each one read ([transcriptFile.finish]).
func (t transcript) finish() error {
	var first error
	for _, f := range t {
		if err := f.finish(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// maxFileSize bounds the size of a phase's files before they are read
// into memory: every point counted at the size of an uncompressed G2 point
// (the largest encoding), so honest files are well under it.
func (c *CeremonyDir) maxFileSize(phase int) int64 {
	point := int64(128) // BN254 G2, uncompressed
	if c.curve() != ecc.BN254 {
		point = 192 // BLS12-377 G2 and BW6-761 G1 and G2, uncompressed
	}
	points := 5*int64(c.domain()) + 16
	if phase == 2 && c.Info.Circuit != nil {
		points = int64(c.Info.Circuit.MaxPoints)*int64(2+c.Info.Circuit.Commitments) + 16
	}
	return points*point + 1<<10
}

// VerifyPhase1 replays phase 1 from the files: every contribution's proof
// of update and its link to the one before, then the beacon. It prints
// every contribution's hash to log. With a beacon it writes
// phase1/commons.bin (the SRS commons) and records its digest; without
// one it checks the chain only. It returns the commons, the contribution
// hashes and the beacon (nil without one).
func (c *CeremonyDir) VerifyPhase1(log io.Writer) ([]byte, []string, []byte, error) {
	if log == nil {
		log = io.Discard
	}
	files, hashes, err := c.readTranscript(1, log)
	if err != nil {
		return nil, nil, nil, err
	}
	beacon, err := c.Beacon(1)
	if err != nil {
		files.finish()
		return nil, nil, nil, err
	}
	var commons bytes.Buffer
	err = Phase1Seal(c.curve(), c.domain(), beacon, files.readers(), &commons)
	if ferr := files.finish(); err == nil {
		err = ferr
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("setup: ceremony: phase 1 refused: %w", err)
	}
	if beacon == nil {
		fmt.Fprintf(log, "phase 1: %d contributions verified; no beacon yet\n", len(hashes))
		return nil, hashes, nil, nil
	}
	sum := sha256.Sum256(commons.Bytes())
	digest := digestPrefix + hex.EncodeToString(sum[:])
	if c.Info.Commons != "" && c.Info.Commons != digest {
		return nil, nil, nil, fmt.Errorf("setup: ceremony: phase 1 replays to commons %s, the ceremony recorded %s", digest, c.Info.Commons)
	}
	fmt.Fprintf(log, "phase 1: %d contributions verified, beacon %x, SRS commons %s\n", len(hashes), beacon, digest)
	if c.Info.Commons == "" {
		if _, err := writeFileAtomic(filepath.Join(c.phaseDir(1), "commons.bin"), func(w io.Writer) (int64, error) {
			n, err := w.Write(commons.Bytes())
			return int64(n), err
		}); err != nil {
			return nil, nil, nil, fmt.Errorf("setup: ceremony: %w", err)
		}
		c.Info.Commons = digest
		if err := c.saveInfo(); err != nil {
			return nil, nil, nil, err
		}
	}
	return commons.Bytes(), hashes, beacon, nil
}

// readCommonsFile returns phase1/commons.bin after checking its digest.
func (c *CeremonyDir) readCommonsFile() ([]byte, error) {
	if c.Info.Commons == "" {
		return nil, errors.New("setup: ceremony: phase 1 is not sealed: set its beacon and run phase1 verify")
	}
	data, err := os.ReadFile(filepath.Join(c.phaseDir(1), "commons.bin"))
	if err != nil {
		return nil, fmt.Errorf("setup: ceremony: %w", err)
	}
	sum := sha256.Sum256(data)
	if got := digestPrefix + hex.EncodeToString(sum[:]); got != c.Info.Commons {
		return nil, fmt.Errorf("setup: ceremony: phase1/commons.bin has digest %s, the ceremony recorded %s", got, c.Info.Commons)
	}
	return data, nil
}

// WriteSRS writes the sealed phase-1 output — gnark's SrsCommons: 2N−1
// powers [τⁱ]₁, N powers α[τⁱ]₁ and β[τⁱ]₁, N powers [τⁱ]₂ and [β]₂ — to
// path, after checking it against the digest phase1 verify recorded.
func (c *CeremonyDir) WriteSRS(path string) (string, error) {
	data, err := c.readCommonsFile()
	if err != nil {
		return "", err
	}
	return writeFileAtomic(path, func(w io.Writer) (int64, error) {
		n, err := w.Write(data)
		return int64(n), err
	})
}

// NewPhase2 starts phase 2 for ccs from the sealed phase 1 and returns
// the initial object's entry.
func (c *CeremonyDir) NewPhase2(ccs constraint.ConstraintSystem) (Contribution, error) {
	if c.Info.Circuit != nil {
		return Contribution{}, errors.New("setup: ceremony: phase 2 has been started already")
	}
	if curveOf(ccs) != c.curve() {
		return Contribution{}, fmt.Errorf("setup: ceremony: a circuit over %s in a %s ceremony", curveOf(ccs), c.curve())
	}
	if DomainSize(ccs) != c.domain() {
		return Contribution{}, fmt.Errorf("setup: ceremony: the circuit needs a phase 1 of 2^%d points, this one has 2^%d", bits.Len64(DomainSize(ccs))-1, c.Info.Power)
	}
	commons, err := c.readCommonsFile()
	if err != nil {
		return Contribution{}, err
	}
	hash, err := CircuitHash(ccs)
	if err != nil {
		return Contribution{}, err
	}
	var buf bytes.Buffer
	if err := Phase2Init(ccs, bytes.NewReader(commons), &buf); err != nil {
		return Contribution{}, err
	}
	if err := os.MkdirAll(c.phaseDir(2), 0o755); err != nil {
		return Contribution{}, fmt.Errorf("setup: ceremony: %w", err)
	}
	first, err := c.write(2, 0, buf.Bytes())
	if err != nil {
		return Contribution{}, err
	}
	shape := ShapeOf(ccs)
	c.Info.Circuit = &CircuitInfo{Hash: hash, Constraints: ccs.GetNbConstraints(), Commitments: shape.Commitments, MaxPoints: shape.MaxPoints}
	return first, c.saveInfo()
}

// VerifyPhase2 replays the whole transcript of the ceremony of ccs: phase
// 1 ([CeremonyDir.VerifyPhase1], which must be sealed and replay to the
// recorded commons), then every phase-2 contribution and the beacon. It
// prints every contribution's hash to log. Without a phase-2 beacon it
// checks the chain and returns no keys.
func (c *CeremonyDir) VerifyPhase2(ccs constraint.ConstraintSystem, log io.Writer) (groth16.ProvingKey, groth16.VerifyingKey, *Transcript, error) {
	if c.Info.Circuit == nil {
		return nil, nil, nil, errors.New("setup: ceremony: phase 2 has not been started")
	}
	if log == nil {
		log = io.Discard
	}
	hash, err := CircuitHash(ccs)
	if err != nil {
		return nil, nil, nil, err
	}
	if hash != c.Info.Circuit.Hash {
		return nil, nil, nil, fmt.Errorf("setup: ceremony: this ceremony is for circuit %s, not %s", short(c.Info.Circuit.Hash), short(hash))
	}
	commons, phase1, beacon1, err := c.VerifyPhase1(log)
	if err != nil {
		return nil, nil, nil, err
	}
	if beacon1 == nil {
		return nil, nil, nil, errors.New("setup: ceremony: phase 1 has no beacon")
	}
	files, phase2, err := c.readTranscript(2, log)
	if err != nil {
		return nil, nil, nil, err
	}
	beacon2, err := c.Beacon(2)
	if err != nil {
		files.finish()
		return nil, nil, nil, err
	}
	pk, vk, err := Phase2Seal(ccs, bytes.NewReader(commons), beacon2, files.readers())
	if ferr := files.finish(); err == nil {
		err = ferr
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("setup: ceremony: phase 2 refused: %w", err)
	}
	if beacon2 == nil {
		fmt.Fprintf(log, "phase 2: %d contributions verified; no beacon yet\n", len(phase2))
		return nil, nil, nil, nil
	}
	fmt.Fprintf(log, "phase 2: %d contributions verified, beacon %x\n", len(phase2), beacon2)
	return pk, vk, &Transcript{Phase1: phase1, Phase2: phase2, Beacon1: hex.EncodeToString(beacon1), Beacon2: hex.EncodeToString(beacon2)}, nil
}

// Seal replays the ceremony of ccs ([CeremonyDir.VerifyPhase2]), which must
// be closed by both beacons, and stores the keys in the cache directory
// dir with a manifest of kind [Ceremony] carrying the transcript's hashes
// and beacons; LoadOrSetup then returns them instead of setting up.
func (c *CeremonyDir) Seal(ccs constraint.ConstraintSystem, dir string, log io.Writer) (*Manifest, error) {
	if b, err := c.Beacon(2); err != nil || b == nil {
		return nil, fmt.Errorf("setup: ceremony: phase 2 has no beacon yet (%v)", err)
	}
	pk, vk, transcript, err := c.VerifyPhase2(ccs, log)
	if err != nil {
		return nil, err
	}
	return Store(ccs, dir, pk, vk, Manifest{Kind: Ceremony, Ceremony: transcript})
}
