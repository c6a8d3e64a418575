package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
)

// Kind says where a pair of keys comes from.
type Kind string

const (
	// Development keys come from a setup in one process (LoadOrSetup,
	// DevelopmentKeys): whoever ran it can forge proofs.
	Development Kind = "development"
	// Ceremony keys come from a sealed MPC ceremony: sound if one
	// participant of each phase kept their randomness secret.
	Ceremony Kind = "ceremony"
)

// Manifest is the small JSON file written beside a circuit's keys
// (<circuit hash>.json): what the keys are for, where they come from and
// the digests they must have.
type Manifest struct {
	// Format is the cache format (the one CircuitHash covers).
	Format string `json:"format"`
	// Circuit is the circuit hash ([CircuitHash]); Curve and Constraints
	// describe it for a reader.
	Circuit     string `json:"circuit"`
	Curve       string `json:"curve"`
	Constraints int    `json:"constraints"`
	// Kind is development or ceremony.
	Kind Kind `json:"kind"`
	// ProvingKey and VerifyingKey are "sha256:<hex>" digests of the key
	// files, gnark's raw (uncompressed) serialization.
	ProvingKey   string `json:"provingKey"`
	VerifyingKey string `json:"verifyingKey"`
	// Ceremony records the transcript of ceremony keys (nil for
	// development keys).
	Ceremony *Transcript `json:"ceremony,omitempty"`
}

// Transcript names what a ceremony's keys were sealed from, so that anyone
// holding the published files can replay it (cmd/ceremony verify).
type Transcript struct {
	// Phase1 and Phase2 are the hashes of the contributions, in order
	// ([ContributionHash]).
	Phase1 []string `json:"phase1"`
	Phase2 []string `json:"phase2"`
	// Beacon1 and Beacon2 are the public beacons, hex.
	Beacon1 string `json:"beacon1"`
	Beacon2 string `json:"beacon2"`
}

// maxManifestSize bounds a manifest file; a real one is under 2 kB plus
// 71 bytes per contribution.
const maxManifestSize = 1 << 20

func readManifest(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("setup: key cache: keys without a manifest (%s is missing): they cannot be checked; delete the circuit's .pk and .vk files to set up again, or seal a ceremony's keys there", path)
		}
		return nil, fmt.Errorf("setup: key cache: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("setup: read %s: %w", path, err)
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("setup: %s: %w", path, err)
	}
	return m, nil
}

// ParseManifest decodes a manifest and checks its fields' forms.
func ParseManifest(data []byte) (*Manifest, error) {
	if len(data) > maxManifestSize {
		return nil, fmt.Errorf("manifest larger than %d bytes", maxManifestSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if dec.More() {
		return nil, errors.New("manifest: trailing data")
	}
	if m.Format != cacheFormat {
		return nil, fmt.Errorf("manifest: format %q, want %q", m.Format, cacheFormat)
	}
	if !validHash(m.Circuit) {
		return nil, fmt.Errorf("manifest: circuit %q is not a circuit hash (64 lower-case hex digits)", m.Circuit)
	}
	if m.Kind != Development && m.Kind != Ceremony {
		return nil, fmt.Errorf("manifest: kind %q: want %q or %q", m.Kind, Development, Ceremony)
	}
	if (m.Kind == Ceremony) != (m.Ceremony != nil) {
		return nil, fmt.Errorf("manifest: %s keys with ceremony record %v", m.Kind, m.Ceremony != nil)
	}
	for _, d := range []string{m.ProvingKey, m.VerifyingKey} {
		if !validDigest(d) {
			return nil, fmt.Errorf("manifest: digest %q is not sha256:<64 hex digits>", d)
		}
	}
	return &m, nil
}

func (m *Manifest) writeTo(w io.Writer) (int64, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return 0, err
	}
	n, err := w.Write(append(data, '\n'))
	return int64(n), err
}

const digestPrefix = "sha256:"

func digestOf(h hash.Hash) string {
	return digestPrefix + hex.EncodeToString(h.Sum(nil))
}

func validDigest(d string) bool {
	if len(d) != len(digestPrefix)+2*sha256.Size || d[:len(digestPrefix)] != digestPrefix {
		return false
	}
	_, err := hex.DecodeString(d[len(digestPrefix):])
	return err == nil
}

// rawWriter is what both kinds of keys are to [Digest].
type rawWriter interface {
	WriteRawTo(io.Writer) (int64, error)
}

// Digest returns the digest a manifest records for a key: "sha256:<hex>"
// of its raw serialization (the cache's file content).
func Digest(key rawWriter) (string, error) {
	h := sha256.New()
	if _, err := key.WriteRawTo(h); err != nil {
		return "", fmt.Errorf("setup: digest: %w", err)
	}
	return digestOf(h), nil
}

// Check checks keys before they are exported or deployed: the manifest
// names the circuit keys.CCS, the verifying key has the digest the
// manifest recorded at setup and fits the circuit's public inputs, and,
// when the proving key is loaded, it belongs to the verifying key.
func (k *Keys) Check() error {
	if k == nil || k.CCS == nil || k.VK == nil || k.Manifest == nil {
		return errors.New("setup: check: keys need a circuit, a verifying key and a manifest")
	}
	hash, err := CircuitHash(k.CCS)
	if err != nil {
		return err
	}
	if k.Manifest.Circuit != hash {
		return fmt.Errorf("setup: check: the manifest is for circuit %s, the keys are used for %s", short(k.Manifest.Circuit), short(hash))
	}
	d, err := Digest(k.VK)
	if err != nil {
		return err
	}
	if d != k.Manifest.VerifyingKey {
		return fmt.Errorf("setup: check: the verifying key has digest %s, the manifest of circuit %s records %s: it is not the key set up for this circuit", d, short(hash), k.Manifest.VerifyingKey)
	}
	if err := checkCircuit(k.CCS, k.VK); err != nil {
		return err
	}
	if k.PK != nil {
		if err := CheckPair(k.PK, k.VK); err != nil {
			return fmt.Errorf("setup: check: %w", err)
		}
	}
	return nil
}
