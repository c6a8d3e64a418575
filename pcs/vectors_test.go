package pcs

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

var update = flag.Bool("update", false, "rewrite the golden vectors in testdata/")

// groupVector is the layout of testdata/group_vector.json and
// testdata/group_parts_vector.json, for the native tests here and the
// in-circuit twins of the two verifier parts. The transcript is
// transcript.New(Domain), then Digest(commitments) and every claim's
// point absorbed in order; the SRS is the (public, test-only) one of
// τ = Tau with SRSSize powers. In the second, each MLE is committed in
// parts of PartVars variables (CommitParts, Parts[j] of them for MLE j,
// all listed in Commitments) and opened by OpenGroupParts.
type groupVector struct {
	Domain           string     `json:"domain"`
	Tau              string     `json:"tau"`
	SRSSize          int        `json:"srsSize"`
	Commitments      []string   `json:"commitments"` // compressed G1, hex
	CommitmentDigest fr.Element `json:"commitmentDigest"`
	Claims           []Claim    `json:"claims"`
	Proof            string     `json:"proof"` // GroupProof.MarshalBinary, hex
	FoldDigest       fr.Element `json:"foldDigest"`
	QuotientDigest   fr.Element `json:"quotientDigest"` // Digest(W)
	Check            GroupCheck `json:"check"`
	PartVars         int        `json:"partVars,omitempty"`
	Parts            []int      `json:"parts,omitempty"`
}

// makeGroupVector builds the golden vector from fixed inputs: three MLEs of
// 2, 4 and 4 variables with 2, 1 and 2 claims, committed whole (m = 0) or
// in parts of m variables.
func makeGroupVector(t *testing.T, m int) (*groupVector, *SRS) {
	tau := big.NewInt(0).SetBytes([]byte("veriformer/pcs/test-vector/tau"))
	srs, err := NewSRSOfTau(1<<5, tau)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(10, 10))
	vars := []int{2, 4, 4}
	tables := make([][]fr.Element, len(vars))
	v := &groupVector{Domain: testDomain, Tau: tau.String(), SRSSize: srs.Size(), PartVars: m}
	parts := m
	if m == 0 {
		parts = MaxNbVars
	}
	var commitments []Commitment
	for j, n := range vars {
		tables[j] = make([]fr.Element, 1<<n)
		for i := range tables[j] {
			tables[j][i].SetInt64(rng.Int64N(1<<16) - 1<<15)
		}
		cs, err := CommitParts(srs, tables[j], parts)
		if err != nil {
			t.Fatal(err)
		}
		if m != 0 {
			v.Parts = append(v.Parts, len(cs))
		}
		for _, c := range cs {
			commitments = append(commitments, c)
			b := c.Bytes()
			v.Commitments = append(v.Commitments, hex.EncodeToString(b[:]))
		}
	}
	v.CommitmentDigest = Digest(commitments)
	for _, j := range []int{0, 1, 2, 0, 2} {
		point := field.RandomVector[fr.Element](rng, vars[j])
		v.Claims = append(v.Claims, Claim{Commitment: j, Point: point, Value: poly.Evaluate[fr.Element](tables[j], point)})
	}
	proof, err := OpenGroupParts(newTranscript(commitments, v.Claims), srs, tables, v.Claims, parts)
	if err != nil {
		t.Fatal(err)
	}
	data, err := proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	v.Proof = hex.EncodeToString(data)
	v.FoldDigest = Digest(proof.Opening.Folds)
	v.QuotientDigest = Digest([]bls12377.G1Affine{proof.Opening.Quotient})
	check, err := VerifyGroupFieldParts(newTranscript(commitments, v.Claims), len(vars), v.Claims, proof, parts)
	if err != nil {
		t.Fatal(err)
	}
	v.Check = *check
	return v, srs
}

func TestGroupVector(t *testing.T) {
	testGroupVector(t, "group_vector.json", 0)
}

func TestGroupPartsVector(t *testing.T) {
	testGroupVector(t, "group_parts_vector.json", 3)
}

func testGroupVector(t *testing.T, name string, m int) {
	path := filepath.Join("testdata", name)
	want, srs := makeGroupVector(t, m)
	encoded, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	encoded = append(encoded, '\n')
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, encoded, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got groupVector
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	// Byte equality too: decoding drops what the types no longer hold
	// (an array's extra elements), so a stale file could decode equal.
	if !reflect.DeepEqual(&got, want) || !bytes.Equal(data, encoded) {
		t.Fatalf("testdata/%s differs from the vector computed now (go test ./pcs -run 'TestGroup(Parts)?Vector' -update)", name)
	}
	// The stored proof verifies.
	commitments := make([]Commitment, len(got.Commitments))
	for j, h := range got.Commitments {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := commitments[j].SetBytes(b); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := hex.DecodeString(got.Proof)
	if err != nil {
		t.Fatal(err)
	}
	var proof GroupProof
	if err := proof.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	parts, partVars := got.Parts, m
	if m == 0 {
		parts, partVars = []int{1, 1, 1}, MaxNbVars
	}
	grouped := make([][]Commitment, len(parts))
	rest := commitments
	for j, p := range parts {
		grouped[j], rest = rest[:p], rest[p:]
	}
	if err := verifyGroupParts(newTranscript(commitments, got.Claims), srs.VerifyingKey(), grouped, got.Claims, &proof, partVars); err != nil {
		t.Fatal(err)
	}
}
