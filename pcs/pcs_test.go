package pcs

import (
	"bytes"
	"fmt"
	"log"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/kzg"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/g1"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

const testDomain = "veriformer/pcs/test"

func newTestRand(t testing.TB) *rand.Rand {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0))
}

var (
	testSRSOnce sync.Once
	testSRS     *SRS
	testSRSLog  bytes.Buffer
)

// srsForTest returns a development SRS of 2⁸ powers shared by the tests.
func srsForTest(t testing.TB) *SRS {
	testSRSOnce.Do(func() {
		s, err := NewDevelopmentSRS(1<<8, log.New(&testSRSLog, "", 0))
		if err != nil {
			panic(err)
		}
		testSRS = s
	})
	return testSRS
}

// newTranscript starts the transcript of a test statement in which the
// commitments and the claims' points are bound, as a caller must do.
func newTranscript(commitments []Commitment, claims []Claim) *Transcript {
	t := transcript.New[fr.Element](testDomain)
	t.Absorb(Digest(commitments))
	for _, c := range claims {
		t.Absorb(c.Point...)
	}
	return t
}

func randomTable(rng *rand.Rand, nbVars int) []fr.Element {
	return field.RandomVector[fr.Element](rng, 1<<nbVars)
}

func TestDevelopmentSRSWarns(t *testing.T) {
	s := srsForTest(t)
	if !strings.Contains(testSRSLog.String(), "DEVELOPMENT ONLY") {
		t.Fatalf("no warning logged: %q", testSRSLog.String())
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// verifyGroupParts checks a proof of OpenGroupParts natively, both parts
// of the verifier: VerifyGroupFieldParts then VerifyGroup, commitments[j]
// holding commitment j's parts.
func verifyGroupParts(t *Transcript, vk *VerifyingKey, commitments [][]Commitment, claims []Claim, proof *GroupProof, m int) error {
	check, err := VerifyGroupFieldParts(t, len(commitments), claims, proof, m)
	if err != nil {
		return err
	}
	var flat []Commitment
	for _, parts := range commitments {
		flat = append(flat, parts...)
	}
	if len(flat) != len(check.Commitments) {
		return fmt.Errorf("pcs: verify: %d part commitments for %d parts", len(flat), len(check.Commitments))
	}
	return VerifyGroup(vk, flat, &proof.Opening, check)
}

// verifyWhole is verifyGroupParts for MLEs committed whole (m =
// MaxNbVars), commitments[j] the commitment of MLE j.
func verifyWhole(t *Transcript, vk *VerifyingKey, commitments []Commitment, claims []Claim, proof *GroupProof) error {
	whole := make([][]Commitment, len(commitments))
	for j := range commitments {
		whole[j] = commitments[j : j+1]
	}
	return verifyGroupParts(t, vk, whole, claims, proof, MaxNbVars)
}

// groupFixture is an honest grouped opening: three commitments of 3, 5 and
// 5 variables, two, three and one claims, each commitment in parts of at
// most m variables ([CommitParts]; whole with m = MaxNbVars);
// commitments holds every part, commitment by commitment.
type groupFixture struct {
	commitments []Commitment
	parts       []int
	m           int
	claims      []Claim
	proof       *GroupProof
}

func newGroupFixture(t testing.TB, rng *rand.Rand) *groupFixture {
	return newGroupFixtureParts(t, rng, MaxNbVars)
}

func newGroupFixtureParts(t testing.TB, rng *rand.Rand, m int) *groupFixture {
	srs := srsForTest(t)
	vars := []int{3, 5, 5}
	claimsPer := []int{2, 3, 1}
	tables := make([][]fr.Element, len(vars))
	f := &groupFixture{m: m}
	for j, n := range vars {
		tables[j] = randomTable(rng, n)
		c, err := CommitParts(srs, tables[j], m)
		if err != nil {
			t.Fatal(err)
		}
		f.commitments = append(f.commitments, c...)
		f.parts = append(f.parts, len(c))
	}
	// Interleave the claims so that the order of commitments in the claim
	// list is not trivial.
	for k := range 3 {
		for j := range vars {
			if k < claimsPer[j] {
				point := field.RandomVector[fr.Element](rng, vars[j])
				f.claims = append(f.claims, Claim{Commitment: j, Point: point, Value: poly.Evaluate[fr.Element](tables[j], point)})
			}
		}
	}
	proof, err := OpenGroupParts(newTranscript(f.commitments, f.claims), srs, tables, f.claims, m)
	if err != nil {
		t.Fatal(err)
	}
	f.proof = proof
	return f
}

// grouped returns the commitments grouped by commitment.
func (f *groupFixture) grouped() [][]Commitment {
	var out [][]Commitment
	rest := f.commitments
	for _, p := range f.parts {
		out = append(out, rest[:p])
		rest = rest[p:]
	}
	return out
}

func (f *groupFixture) verify(t testing.TB) error {
	return verifyGroupParts(newTranscript(f.commitments, f.claims), srsForTest(t).VerifyingKey(), f.grouped(), f.claims, f.proof, f.m)
}

func TestGroupHonest(t *testing.T) {
	f := newGroupFixture(t, newTestRand(t))
	if err := f.verify(t); err != nil {
		t.Fatalf("honest grouped opening rejected: %v", err)
	}
	// The two parts, called separately, agree with verifyGroupParts.
	check, err := VerifyGroupFieldParts(newTranscript(f.commitments, f.claims), len(f.commitments), f.claims, f.proof, f.m)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyGroup(srsForTest(t).VerifyingKey(), f.commitments, &f.proof.Opening, check); err != nil {
		t.Fatal(err)
	}
}

func TestGroupSingleCommitment(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	table := randomTable(rng, 4)
	c, err := Commit(srs, table)
	if err != nil {
		t.Fatal(err)
	}
	point := field.RandomVector[fr.Element](rng, 4)
	claims := []Claim{{Point: point, Value: poly.Evaluate[fr.Element](table, point)}}
	proof, err := OpenGroupParts(newTranscript([]Commitment{c}, claims), srs, [][]fr.Element{table}, claims, MaxNbVars)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyWhole(newTranscript([]Commitment{c}, claims), srs.VerifyingKey(), []Commitment{c}, claims, proof); err != nil {
		t.Fatal(err)
	}
}

// TestGroupBooleanPrefix opens claims whose points start with boolean
// coordinates (a block of a stacked MLE, whose combination table the
// prover builds over the block only) beside a random point: the proof
// verifies, and a changed value is refused by the prover and rejected by
// the verifier.
func TestGroupBooleanPrefix(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	table := randomTable(rng, 5)
	c, err := Commit(srs, table)
	if err != nil {
		t.Fatal(err)
	}
	var zero, one fr.Element
	one.SetOne()
	var claims []Claim
	for _, prefix := range [][]fr.Element{{one, zero}, {zero, one, one}, {one, one, one, one, one}, nil} {
		point := append(append([]fr.Element(nil), prefix...), field.RandomVector[fr.Element](rng, 5-len(prefix))...)
		claims = append(claims, Claim{Point: point, Value: poly.Evaluate[fr.Element](table, point)})
	}
	commitments := []Commitment{c}
	proof, err := OpenGroupParts(newTranscript(commitments, claims), srs, [][]fr.Element{table}, claims, MaxNbVars)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyWhole(newTranscript(commitments, claims), srs.VerifyingKey(), commitments, claims, proof); err != nil {
		t.Fatalf("honest proof rejected: %v", err)
	}
	for k := range claims {
		claims[k].Value.Add(&claims[k].Value, &one)
		if _, err := OpenGroupParts(newTranscript(commitments, claims), srs, [][]fr.Element{table}, claims, MaxNbVars); err == nil {
			t.Errorf("claim %d: a false value was proven", k)
		}
		if err := verifyWhole(newTranscript(commitments, claims), srs.VerifyingKey(), commitments, claims, proof); err == nil {
			t.Errorf("claim %d: a changed value was accepted", k)
		}
		claims[k].Value.Sub(&claims[k].Value, &one)
	}
}

func TestGroupFalseClaimRefused(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	table := randomTable(rng, 3)
	point := field.RandomVector[fr.Element](rng, 3)
	claims := []Claim{{Point: point, Value: field.Random[fr.Element](rng)}}
	if _, err := OpenGroupParts(newTranscript(nil, claims), srs, [][]fr.Element{table}, claims, MaxNbVars); err == nil {
		t.Fatal("a false claim was proven")
	}
}

func TestGroupShapeErrors(t *testing.T) {
	rng := newTestRand(t)
	p := field.RandomVector[fr.Element](rng, 3)
	cases := map[string]struct {
		nb     int
		claims []Claim
	}{
		"no claim":           {1, nil},
		"commitment unused":  {2, []Claim{{Commitment: 0, Point: p}, {Commitment: 0, Point: p}}},
		"index out of range": {1, []Claim{{Commitment: 1, Point: p}}},
		"empty point":        {1, []Claim{{Commitment: 0}}},
		"mixed sizes":        {1, []Claim{{Commitment: 0, Point: p}, {Commitment: 0, Point: p[:2]}}},
	}
	for name, c := range cases {
		if _, err := VerifyGroupFieldParts(newTranscript(nil, nil), c.nb, c.claims, &GroupProof{}, MaxNbVars); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// notInSubgroup returns a point of the curve outside G1.
func notInSubgroup(t testing.TB) bls12377.G1Affine {
	p, err := g1.OutsideSubgroup()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommitSigned checks the signed-integer path of Commit against the
// plain KZG commitment.
func TestCommitSigned(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	for _, bound := range []int64{2, 1 << 15, 1 << 61} {
		table := make([]fr.Element, 64)
		for i := range table {
			table[i].SetInt64(rng.Int64N(2*bound) - bound)
		}
		table[3].SetInt64(-1)
		commitsAsKZG(t, srs, table, fmt.Sprintf("bound %d", bound))
		// One full-size entry: still gathered (a negative entry).
		table[5] = field.Random[fr.Element](rng)
		commitsAsKZG(t, srs, table, fmt.Sprintf("bound %d with a full-size entry", bound))
	}
}

// commitsAsKZG fails the test unless Commit gives the plain KZG
// commitment of table.
func commitsAsKZG(t *testing.T, srs *SRS, table []fr.Element, what string) {
	t.Helper()
	got, err := Commit(srs, table)
	if err != nil {
		t.Fatal(err)
	}
	want, err := kzg.Commit(table, srs.Pk)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(&want) {
		t.Fatalf("%s: the commitment differs from kzg.Commit", what)
	}
}

// TestCommitSparse checks the gathered multiplication against the dense
// one on tables of zeros and full-size, small and small negative
// entries, down to the all-zero table (the point at infinity), and the
// dense path on a table without zeros.
func TestCommitSparse(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	for _, density := range []int{0, 1, 4, 16, 64} {
		table := make([]fr.Element, 64)
		for i := range density {
			switch k := rng.IntN(len(table)); i % 3 {
			case 0:
				table[k] = field.Random[fr.Element](rng)
			case 1:
				table[k].SetInt64(rng.Int64N(1 << 20))
			default:
				table[k].SetInt64(-rng.Int64N(1<<20) - 1)
			}
		}
		if density == 64 {
			table = field.RandomVector[fr.Element](rng, 64)
		}
		commitsAsKZG(t, srs, table, fmt.Sprintf("%d random entries", density))
	}
}

// TestCommitDense checks the multiplication without trailing zeros
// against kzg.Commit of the whole table: without zeros, with a zero tail
// of one entry, of half the table and of all but the first entry, and on
// the all-zero table (the point at infinity). The openings' folds and
// quotients are committed this way, so their commitments, and the proofs,
// are those of kzg.Commit.
func TestCommitDense(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	for _, zeros := range []int{0, 1, 32, 63, 64} {
		table := field.RandomVector[fr.Element](rng, 64)
		for i := len(table) - zeros; i < len(table); i++ {
			table[i].SetZero()
		}
		got, err := commitDense(srs, table, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want bls12377.G1Affine
		if zeros < len(table) {
			if want, err = kzg.Commit(table, srs.Pk); err != nil {
				t.Fatal(err)
			}
		}
		if !got.Equal(&want) {
			t.Fatalf("%d trailing zeros: the commitment differs from kzg.Commit", zeros)
		}
	}
}
