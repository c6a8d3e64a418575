package committed

import (
	"bytes"
	"io"
	"log"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/tier"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

var (
	srsOnce sync.Once
	srs     *pcs.SRS
	srsErr  error
)

// testSRS is a development SRS large enough for the tests' segments.
func testSRS(t testing.TB, size int) *pcs.SRS {
	srsOnce.Do(func() { srs, srsErr = pcs.NewDevelopmentSRS(size, log.New(io.Discard, "", 0)) })
	if srsErr != nil {
		t.Fatal(srsErr)
	}
	if srs.Size() < size {
		t.Fatalf("srs of %d powers, need %d", srs.Size(), size)
	}
	return srs
}

// testPartVars is the parts' variables of the tests' proofs and keys:
// the production's [PartVars] in the full tier; 13 in the default tier,
// where an opening's MSMs then cover 2^13 points rather than 2^18 (the
// built-in model's segment proven in 0.3 s rather than 1.4-1.8 s). The
// golden proofs and TestParts choose their parts themselves in both
// tiers.
var testPartVars = func() int {
	if tier.Full {
		return PartVars
	}
	return 13
}()

// testKey returns the verifying key of m under s for proofs in parts of
// testPartVars variables, made once per SRS and model.
func testKey(t testing.TB, s *pcs.SRS, m *model.Model) *VerifyingKey {
	t.Helper()
	keysMu.Lock()
	defer keysMu.Unlock()
	k := keyID{s, m}
	if vk, ok := keys[k]; ok {
		return vk
	}
	vk, err := NewVerifyingKey(s, m, WithPartVars(testPartVars))
	if err != nil {
		t.Fatal(err)
	}
	keys[k] = vk
	return vk
}

type keyID struct {
	s *pcs.SRS
	m *model.Model
}

var (
	keysMu sync.Mutex
	keys   = map[keyID]*VerifyingKey{}
)

type fixture struct {
	m    *model.Model
	st   statement.Statement
	tr   *model.Trace
	rows int
	pass Pass
}

// newFixture generates greedily from a fixed prompt so that the forward
// pass over the prompt and the output but its last token has rows rows:
// a prompt of rows/2 tokens (at least one), the rest generated.
func newFixture(t testing.TB, m *model.Model, rows int) *fixture {
	prompt := make([]int, max(rows/2, 1))
	for i := range prompt {
		prompt[i] = (i*37 + 11) % m.Config.Vocab
	}
	gen, err := m.Generate(prompt, rows-len(prompt)+1)
	if err != nil {
		t.Fatal(err)
	}
	pass := Pass{Prompt: prompt, Output: gen.Tokens, Rows: rows}
	tr, err := m.Forward(m.NewCache(), pass.Tokens())
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.Of[fr.Element](m.ID(), prompt, gen.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{m: m, st: st, tr: tr, rows: rows, pass: pass}
}

func TestHonest(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}} {
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(testPartVars))
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		claims, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof)
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		// Every requantization's accumulator claim is proven.
		if len(claims.Accumulators) != 0 || len(claims.Requants) != 0 {
			t.Fatalf("%d accumulator claims left for %d requantizations", len(claims.Accumulators), len(proof.Accumulators))
		}
	}
}

// TestFieldWork checks the field-work count of a proof against the
// shapes that fix it: the LogUp trees' rounds (n(n−1)/2 for a tree over
// n variables: the lookups', 3 + N, and the table set's), the opening's
// fold checks (one per variable of the largest commitment), and round
// values that are scalars of the proof.
func TestFieldWork(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 0, To: 1}
	proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(testPartVars))
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLayout(f.tr, seg, f.pass)
	if err != nil {
		t.Fatal(err)
	}
	set, _, err := TableSet(l)
	if err != nil {
		t.Fatal(err)
	}
	w := proof.FieldWork()
	n, k := l.LookupVars, set.NbVars
	if want := n*(n-1)/2 + k*(k-1)/2; w.GKRRounds != want {
		t.Errorf("%d GKR rounds, want %d", w.GKRRounds, want)
	}
	if want := min(max(l.NbVars, k), testPartVars); w.FoldChecks != want {
		t.Errorf("%d fold checks, want %d", w.FoldChecks, want)
	}
	values := 0
	for d, r := range w.Rounds {
		values += d * r
	}
	if values > w.Scalars || w.GKRValues != 3*w.GKRRounds || w.Rounds[3] < w.GKRRounds {
		t.Errorf("field work %+v: %d round values", w, values)
	}
	data, err := proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= proof.Size() || 32*w.Scalars+48*w.Points != proof.Size() {
		t.Errorf("%d scalars and %d points, Size %d, encoding %d bytes", w.Scalars, w.Points, proof.Size(), len(data))
	}
	t.Logf("field work %+v: ≈ %d R1CS", w, w.EstimatedR1CS())
}

// TestDropLimbs proves the built-in model's segments with the limb rows
// kept and with them dropped and rebuilt (dropLimbVars lowered to 1, as
// GPT-2 small's large segments run): the proofs are the same, byte for
// byte, and verify.
func TestDropLimbs(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}} {
		var encoded [2][]byte
		for k, vars := range []int{64, 1} {
			dropLimbVars = vars
			proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(testPartVars))
			dropLimbVars = 22
			if err != nil {
				t.Fatalf("segment %v, limbs dropped from %d variables: %v", seg, vars, err)
			}
			if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof); err != nil {
				t.Fatalf("segment %v, limbs dropped from %d variables: %v", seg, vars, err)
			}
			if encoded[k], err = proof.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(encoded[0], encoded[1]) {
			t.Fatalf("segment %v: the proofs with the limb rows kept and dropped differ", seg)
		}
	}
}
