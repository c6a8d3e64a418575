package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// The files every run's --out holds beside its own: the list its proof
// states and the proof it ends with, with the verifying key to check it.
const (
	// ListFile is the list the run's proof states ([ListJSON]).
	ListFile = "list.json"
	// ProofFile and ProofKeyFile are a final BN254 proof (the direct
	// circuit's or the wrapper's) and its verifying key, gnark's binary
	// encodings.
	ProofFile    = "proof.bin"
	ProofKeyFile = "proof.vk"
	// AggregateFile, AggregatorKeyFile and DeploymentFile are an
	// aggregated run's aggregator proof (BW6-761), its verifying key and
	// the deployment that places it ([DeploymentJSON]), when the run
	// ends without the wrapper.
	AggregateFile     = "aggregate.bin"
	AggregatorKeyFile = "aggregator.vk"
	DeploymentFile    = "deployment.json"
)

// Bounds on the files [VerifyArtifacts] reads, checked before they are
// decoded.
const (
	maxListFile = 4 << 20
	maxKeyFile  = 1 << 20
	maxProof    = 1 << 12
)

// ListJSON is list.json: the model id, the leaves in order and, to check
// against, the list's words, list digest and statement digest
// (statement.List), every number a 0x-prefixed hexadecimal string.
type ListJSON struct {
	ModelID         string     `json:"modelId"`
	Leaves          []LeafJSON `json:"leaves"`
	Words           []string   `json:"words"`
	ListDigest      string     `json:"listDigest"`
	StatementDigest string     `json:"statementDigest"`
}

// LeafJSON is a leaf of list.json: kind "request" (input, output) or
// "turn" (state in, input, output, state out).
type LeafJSON struct {
	Kind     string `json:"kind"`
	StateIn  string `json:"stateIn,omitempty"`
	Input    string `json:"input"`
	Output   string `json:"output"`
	StateOut string `json:"stateOut,omitempty"`
}

// ListJSONOf returns list.json of a list.
func ListJSONOf(l statement.List) (*ListJSON, error) {
	words, err := l.Words()
	if err != nil {
		return nil, err
	}
	list, _ := l.ListDigest()
	digest, _ := l.Digest()
	hex := func(v *big.Int) string { return fmt.Sprintf("%#x", v) }
	out := &ListJSON{ModelID: hex(l.ModelID), ListDigest: hex(list), StatementDigest: hex(digest)}
	for _, w := range words {
		out.Words = append(out.Words, hex(w))
	}
	for _, leaf := range l.Leaves {
		j := LeafJSON{Kind: leaf.Kind.String(), Input: hex(leaf.Input), Output: hex(leaf.Output)}
		if leaf.Kind == statement.KindTurn {
			j.StateIn, j.StateOut = hex(leaf.StateIn), hex(leaf.StateOut)
		}
		out.Leaves = append(out.Leaves, j)
	}
	return out, nil
}

// ParseListJSON decodes list.json and checks it: known fields only, every
// number hexadecimal, the leaves well formed, and the words and both
// digests those of the leaves.
func ParseListJSON(data []byte) (statement.List, error) {
	var j ListJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return statement.List{}, fmt.Errorf("pipeline: list: %w", err)
	}
	if len(j.Leaves) > statement.MaxLeaves || len(j.Words) > 4*statement.MaxLeaves {
		return statement.List{}, fmt.Errorf("pipeline: list: %d leaves and %d words, beyond the bounds", len(j.Leaves), len(j.Words))
	}
	id, err := parseHex(j.ModelID)
	if err != nil {
		return statement.List{}, fmt.Errorf("pipeline: list: model id: %w", err)
	}
	l := statement.List{ModelID: id}
	for i, lj := range j.Leaves {
		var v [4]*big.Int
		for k, s := range []string{lj.StateIn, lj.Input, lj.Output, lj.StateOut} {
			if s == "" {
				continue
			}
			if v[k], err = parseHex(s); err != nil {
				return statement.List{}, fmt.Errorf("pipeline: list: leaf %d: %w", i, err)
			}
		}
		switch lj.Kind {
		case statement.KindRequest.String():
			if v[0] != nil || v[3] != nil {
				return statement.List{}, fmt.Errorf("pipeline: list: leaf %d: a request with states", i)
			}
			l.Leaves = append(l.Leaves, statement.RequestLeaf(v[1], v[2]))
		case statement.KindTurn.String():
			l.Leaves = append(l.Leaves, statement.TurnLeaf(v[0], v[1], v[2], v[3]))
		default:
			return statement.List{}, fmt.Errorf("pipeline: list: leaf %d of kind %q", i, lj.Kind)
		}
	}
	want, err := ListJSONOf(l)
	if err != nil {
		return statement.List{}, fmt.Errorf("pipeline: list: %w", err)
	}
	same := func(a, b string) bool { return strings.EqualFold(strings.TrimSpace(a), b) }
	if len(j.Words) != len(want.Words) {
		return statement.List{}, fmt.Errorf("pipeline: list: %d words, its leaves have %d", len(j.Words), len(want.Words))
	}
	for i := range j.Words {
		if w, err := parseHex(j.Words[i]); err != nil || fmt.Sprintf("%#x", w) != want.Words[i] {
			return statement.List{}, fmt.Errorf("pipeline: list: word %d is not its leaves'", i)
		}
	}
	for name, pair := range map[string][2]string{"list digest": {j.ListDigest, want.ListDigest}, "statement digest": {j.StatementDigest, want.StatementDigest}} {
		v, err := parseHex(pair[0])
		if err != nil || !same(fmt.Sprintf("%#x", v), pair[1]) {
			return statement.List{}, fmt.Errorf("pipeline: list: the %s is not its leaves'", name)
		}
	}
	return l, nil
}

// DeploymentJSON is deployment.json: what places an aggregator in its
// model's deployment (recursion.Deployment), so that the final model id
// is recomputed from the aggregator's key: the model digest, the bucket
// tree's leaves (empty strings for empty slots), the aggregator's slot and
// its inner model id.
type DeploymentJSON struct {
	ModelDigest  string   `json:"modelDigest"`
	Leaves       []string `json:"leaves"`
	Slot         int      `json:"slot"`
	InnerModelID string   `json:"innerModelId"`
}

// proofFiles adds to files what checks the run's proof: list.json, and
// the final proof with its key or the aggregator's proof with its key
// and deployment.
func proofFiles(files map[string][]byte, r *Report) error {
	lj, err := ListJSONOf(r.List)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(lj, "", "  ")
	if err != nil {
		return err
	}
	files[ListFile] = append(data, '\n')
	var buf bytes.Buffer
	switch {
	case r.Proof != nil:
		if err := addProof(files, r.Proof); err != nil {
			return err
		}
		if r.VerifyingKey != nil {
			if _, err := r.VerifyingKey.WriteTo(&buf); err != nil {
				return err
			}
			files[ProofKeyFile] = bytes.Clone(buf.Bytes())
		}
	case r.Aggregated != nil:
		a := r.Aggregated
		if _, err := a.Proof.WriteTo(&buf); err != nil {
			return err
		}
		files[AggregateFile] = bytes.Clone(buf.Bytes())
		buf.Reset()
		if _, err := a.Key.WriteTo(&buf); err != nil {
			return err
		}
		files[AggregatorKeyFile] = bytes.Clone(buf.Bytes())
		dj := DeploymentJSON{ModelDigest: fmt.Sprintf("%#x", a.Deployment.ModelDigest), Slot: a.Slot, InnerModelID: fmt.Sprintf("%#x", a.List.ModelID)}
		for _, leaf := range a.Deployment.Leaves {
			s := ""
			if leaf != nil {
				s = fmt.Sprintf("%#x", leaf)
			}
			dj.Leaves = append(dj.Leaves, s)
		}
		if data, err = json.MarshalIndent(dj, "", "  "); err != nil {
			return err
		}
		files[DeploymentFile] = append(data, '\n')
	}
	return nil
}

// Verified says what [VerifyArtifacts] checked.
type Verified struct {
	List statement.List
	// Final is true for a final BN254 proof, false for an aggregator's.
	Final bool
	// KeyFile is the verifying key's file that was used.
	KeyFile string
}

// VerifyArtifacts checks, offline, the proof a run wrote to dir against
// the list it states (list.json): a final proof (proof.bin) against the
// list's statement digest with the verifying key keyFile, or dir's
// proof.vk when keyFile is empty; or an aggregator's proof
// (aggregate.bin) against the list under its inner model id, after
// recomputing the list's final model id from the aggregator's key, its
// slot and the deployment (deployment.json). A key taken from dir only
// shows that the files agree: a verifier trusts a key it got elsewhere
// (cmd/export, a ceremony's transcript) and passes it as keyFile.
func VerifyArtifacts(dir, keyFile string) (*Verified, error) {
	read := func(name string, limit int64) ([]byte, error) {
		path := name
		if !filepath.IsAbs(name) && !strings.ContainsRune(name, os.PathSeparator) {
			path = filepath.Join(dir, name)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("pipeline: %w", err)
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("pipeline: %w", err)
		}
		if info.Size() > limit {
			return nil, fmt.Errorf("pipeline: %s has %d bytes, beyond %d", path, info.Size(), limit)
		}
		data, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return nil, fmt.Errorf("pipeline: %s: %w", path, err)
		}
		if int64(len(data)) > limit {
			return nil, fmt.Errorf("pipeline: %s has more than %d bytes", path, limit)
		}
		return data, nil
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	data, err := read(ListFile, maxListFile)
	if err != nil {
		return nil, err
	}
	l, err := ParseListJSON(data)
	if err != nil {
		return nil, err
	}
	switch {
	case exists(ProofFile):
		if keyFile == "" {
			keyFile = filepath.Join(dir, ProofKeyFile)
		}
		vk := groth16.NewVerifyingKey(ecc.BN254)
		proof := groth16.NewProof(ecc.BN254)
		if err := readInto(read, keyFile, maxKeyFile, vk); err != nil {
			return nil, err
		}
		if err := readInto(read, ProofFile, maxProof, proof); err != nil {
			return nil, err
		}
		public, err := recursion.WrapperWitness(l)
		if err != nil {
			return nil, err
		}
		if err := groth16.Verify(proof, vk, public, solidity.VerifierOptions()...); err != nil {
			return nil, fmt.Errorf("pipeline: the final proof does not verify on the list: %w", err)
		}
		return &Verified{List: l, Final: true, KeyFile: keyFile}, nil
	case exists(AggregateFile):
		if keyFile == "" {
			keyFile = filepath.Join(dir, AggregatorKeyFile)
		}
		vk := groth16.NewVerifyingKey(ecc.BW6_761)
		proof := groth16.NewProof(ecc.BW6_761)
		if err := readInto(read, keyFile, maxKeyFile, vk); err != nil {
			return nil, err
		}
		if err := readInto(read, AggregateFile, maxProof, proof); err != nil {
			return nil, err
		}
		data, err := read(DeploymentFile, maxKeyFile)
		if err != nil {
			return nil, err
		}
		inner, err := checkDeploymentFile(data, vk, l)
		if err != nil {
			return nil, err
		}
		if err := recursion.VerifyAggregated(proof, vk, inner); err != nil {
			return nil, fmt.Errorf("pipeline: the aggregator's proof does not verify on the list: %w", err)
		}
		return &Verified{List: l, KeyFile: keyFile}, nil
	}
	return nil, fmt.Errorf("pipeline: %s holds neither %s nor %s", dir, ProofFile, AggregateFile)
}

// readInto decodes the file name, at most limit bytes, into v.
func readInto(read func(string, int64) ([]byte, error), name string, limit int64, v io.ReaderFrom) error {
	data, err := read(name, limit)
	if err != nil {
		return err
	}
	if _, err := v.ReadFrom(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("pipeline: %s: %w", name, err)
	}
	return nil
}

// checkDeploymentFile checks that deployment.json places the aggregator of
// key vk in a deployment whose final model id is the list's, and returns
// the list under the aggregator's inner model id.
func checkDeploymentFile(data []byte, vk groth16.VerifyingKey, l statement.List) (statement.List, error) {
	var dj DeploymentJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&dj); err != nil {
		return statement.List{}, fmt.Errorf("pipeline: deployment: %w", err)
	}
	if len(dj.Leaves) != recursion.BucketSlots || dj.Slot < 0 || dj.Slot >= recursion.BucketSlots {
		return statement.List{}, fmt.Errorf("pipeline: deployment: %d leaves and slot %d, want %d leaves", len(dj.Leaves), dj.Slot, recursion.BucketSlots)
	}
	var dep recursion.Deployment
	var err error
	if dep.ModelDigest, err = parseHex(dj.ModelDigest); err != nil {
		return statement.List{}, fmt.Errorf("pipeline: deployment: model digest: %w", err)
	}
	for i, s := range dj.Leaves {
		if s == "" {
			continue
		}
		if dep.Leaves[i], err = parseHex(s); err != nil {
			return statement.List{}, fmt.Errorf("pipeline: deployment: leaf %d: %w", i, err)
		}
	}
	innerID, err := parseHex(dj.InnerModelID)
	if err != nil {
		return statement.List{}, fmt.Errorf("pipeline: deployment: inner model id: %w", err)
	}
	leaf, err := recursion.BucketLeaf(dj.Slot, vk, innerID)
	if err != nil {
		return statement.List{}, err
	}
	if dep.Leaves[dj.Slot] == nil || dep.Leaves[dj.Slot].Cmp(leaf) != 0 {
		return statement.List{}, errors.New("pipeline: deployment: the aggregator's key and inner id are not the leaf of its slot")
	}
	final, err := dep.FinalModelID()
	if err != nil {
		return statement.List{}, err
	}
	if final.Cmp(l.ModelID) != 0 {
		return statement.List{}, fmt.Errorf("pipeline: the deployment's final model id is %#x, the list states %#x", final, l.ModelID)
	}
	return statement.List{ModelID: innerID, Leaves: l.Leaves}, nil
}
