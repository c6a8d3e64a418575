package committed

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/inference"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/internal/tier"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
)

// sharedLlamaRun returns the tests' run of the last segment (blocks
// [2, 3)) of the built-in Llama-family model: RMSNorms, the first reading
// the incoming stream, and the final norm.
func sharedLlamaRun(t *testing.T) *segmentRun {
	t.Helper()
	return sharedRunOf(t, model.LlamaTiny, inference.Segment{From: 2, To: 3})
}

// normRuns names the runs the norm tests check: both segments of the
// built-in GPT-2-like model (LayerNorm) and the Llama model's last
// segment (RMSNorm).
var normRuns = []struct {
	name string
	run  func(t *testing.T) *segmentRun
}{
	{"gpt2/first", func(t *testing.T) *segmentRun { return sharedSegmentRun(t, false) }},
	{"gpt2/last", func(t *testing.T) *segmentRun { return sharedSegmentRun(t, true) }},
	{"llama/last", sharedLlamaRun},
}

// normsCircuit checks the norm step; open leaves the transcript state
// after it unchecked, so that only the step's own assertions reject.
type normsCircuit struct {
	stepBase
	Norms []NormProof
	s     *native.Shape `gnark:"-"`
	open  bool          `gnark:"-"`
}

func (c *normsCircuit) Define(api frontend.API) error {
	_, err := c.verify(api)
	return err
}

// verify runs the step and returns its ends.
func (c *normsCircuit) verify(api frontend.API) ([][3][]frontend.Variable, error) {
	t, err := c.begin(api)
	if err != nil {
		return nil, err
	}
	ends, err := verifyNorms(api, t, c.s, c.Points, c.Acc, c.Norms)
	if err != nil {
		return nil, err
	}
	if !c.open {
		c.end(api, t)
	}
	return ends, nil
}

// normsCircuits returns the placeholder and the assignment of the norm
// step on the run's proof as it is now.
func (r *segmentRun) normsCircuits(open bool) (*normsCircuit, *normsCircuit, error) {
	ph, as, err := r.stepBases(stepNorms)
	if err != nil {
		return nil, nil, err
	}
	return &normsCircuit{stepBase: ph, Norms: PlaceholderNorms(r.shape), s: r.shape, open: open},
		&normsCircuit{stepBase: as, Norms: ValueOfNorms(r.proof.Norms), s: r.shape, open: open}, nil
}

// normTampers lists every value of the first and last norms' proofs:
// the row values, every round value of both sum-checks, the end values.
func normTampers(r *segmentRun) []tamper {
	var out []tamper
	for _, k := range ends(len(r.proof.Norms)) {
		p := &r.proof.Norms[k]
		add := func(name string, x *fr.Element) {
			out = append(out, tamper{fmt.Sprintf("Norms[%d].%s", k, name), x})
		}
		for j := range p.Rows {
			add(fmt.Sprintf("Rows[%d]", j), &p.Rows[j])
		}
		for i := range p.Variance.Rounds {
			for j := range p.Variance.Rounds[i] {
				add(fmt.Sprintf("Variance round %d value %d", i, j), &p.Variance.Rounds[i][j])
			}
		}
		for j := range p.VarianceEvals {
			add(fmt.Sprintf("VarianceEvals[%d]", j), &p.VarianceEvals[j])
		}
		for i := range p.Scale.Rounds {
			for j := range p.Scale.Rounds[i] {
				add(fmt.Sprintf("Scale round %d value %d", i, j), &p.Scale.Rounds[i][j])
			}
		}
		for j := range p.ScaleEvals {
			add(fmt.Sprintf("ScaleEvals[%d]", j), &p.ScaleEvals[j])
		}
	}
	return out
}

// TestNormsRejectedByBoth: the norm step of both segments of the GPT-2
// model (the last with the incoming stream's norm and the final norm)
// and of the Llama model's last segment, on the same proofs; the honest
// proof ends in the native state, every value of the first and last
// norms' proofs changed is rejected by both.
func TestNormsRejectedByBoth(t *testing.T) {
	for _, nr := range normRuns {
		t.Run(nr.name, func(t *testing.T) {
			r := nr.run(t)
			n := checkStep(t, r, stepNorms, func() (frontend.Circuit, frontend.Circuit, error) {
				return r.normsCircuits(false)
			}, normTampers(r))
			t.Logf("the norm step: %d R1CS for %d norms of width %d over %d rows", n, len(r.shape.Norms), r.shape.Norms[0].Width(), r.shape.Norms[0].Rows())
		})
	}
}

// TestNormChecksRejectAlone: the same changed values, each rejected by
// the step's checks alone — natively VerifyNorms fails (not merely ends
// in another state), in circuit the circuit without the assertion of the
// state after the step is not solved — so every row check and both final
// checks are live, not only the transcript's binding.
func TestNormChecksRejectAlone(t *testing.T) {
	for _, nr := range normRuns {
		t.Run(nr.name, func(t *testing.T) {
			r := nr.run(t)
			ph, as, err := r.normsCircuits(true)
			if err != nil {
				t.Fatal(err)
			}
			if err := test.IsSolved(ph, as, ecc.BLS12_377.ScalarField()); err != nil {
				t.Fatalf("the honest proof does not solve the open circuit: %v", err)
			}
			cs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, ph, frontend.IgnoreUnconstrainedInputs())
			if err != nil {
				t.Fatal(err)
			}
			tampers := normTampers(r)
			for i, tp := range tampers {
				undo := bump(tp.x)
				if _, err := r.replay(stepNorms + 1); err == nil {
					t.Errorf("%s: passes the native checks", tp.name)
				}
				// In the default tier the circuit is solved on the
				// values TestNormsRejectedByBoth leaves to the native
				// verifier alone (every other one), on every value in
				// the full tier.
				if !tier.Sampled(i, 2, 1) {
					undo()
					continue
				}
				_, as, err := r.normsCircuits(true)
				if err != nil {
					t.Fatal(err)
				}
				if err := solveCompiled(cs, as); err == nil {
					t.Errorf("%s: passes the circuit's checks", tp.name)
				}
				undo()
			}
			t.Logf("%d values changed, each failing both steps' checks", len(tampers))
		})
	}
}

// normClaimsCircuit checks the norm step and asserts its claims equal
// the native verifier's (want, constants): same count, commitments and
// point lengths at compile time, the same points and values in circuit.
type normClaimsCircuit struct {
	normsCircuit
	want     []pcs.Claim `gnark:"-"`
	incoming int         `gnark:"-"`
}

func (c *normClaimsCircuit) Define(api frontend.API) error {
	ends, err := c.verify(api)
	if err != nil {
		return err
	}
	return assertNativeClaims(api, normClaims(c.s, ends, c.Norms, c.incoming), c.want)
}

// TestNormClaims: on the honest proof the gadget's normClaims equal
// native Shape.NormClaims (commitments, points, values), with the
// incoming stream's claims in the later segments; the comparison rejects
// a native claim's value or point coordinate changed and a claim
// dropped.
func TestNormClaims(t *testing.T) {
	for _, nr := range normRuns {
		t.Run(nr.name, func(t *testing.T) {
			r := nr.run(t)
			st, err := r.replay(stepNorms)
			if err != nil {
				t.Fatal(err)
			}
			nEnds, err := r.shape.VerifyNorms(st.t, st.points, st.acc, r.proof.Norms)
			if err != nil {
				t.Fatal(err)
			}
			incoming := r.shape.IncomingCommitment()
			want := r.shape.NormClaims(nEnds, r.proof.Norms, incoming)
			onIncoming := 0
			for _, c := range want {
				if c.Commitment == incoming {
					onIncoming++
				}
			}
			if later := r.seg.From > 0; later != (onIncoming > 0) {
				t.Fatalf("segment %v: %d claims on the incoming stream", r.seg, onIncoming)
			}
			ph, as, err := r.normsCircuits(false)
			if err != nil {
				t.Fatal(err)
			}
			solved := func(want []pcs.Claim) error {
				return test.IsSolved(&normClaimsCircuit{normsCircuit: *ph, want: want, incoming: incoming},
					&normClaimsCircuit{normsCircuit: *as, want: want, incoming: incoming}, ecc.BLS12_377.ScalarField())
			}
			if err := solved(want); err != nil {
				t.Fatalf("the gadget's claims differ from native: %v", err)
			}
			t.Logf("%d claims equal native (%d on the incoming stream)", len(want), onIncoming)

			// The comparison is live: a changed native claim is a mismatch.
			changed := func(edit func(w []pcs.Claim) []pcs.Claim) error {
				w := make([]pcs.Claim, len(want))
				for k, c := range want {
					w[k] = pcs.Claim{Commitment: c.Commitment, Point: append([]fr.Element(nil), c.Point...), Value: c.Value}
				}
				return solved(edit(w))
			}
			last := len(want) - 1
			if changed(func(w []pcs.Claim) []pcs.Claim { bump(&w[last].Value); return w }) == nil {
				t.Error("a changed claim value is accepted")
			}
			if changed(func(w []pcs.Claim) []pcs.Claim { bump(&w[0].Point[len(w[0].Point)-1]); return w }) == nil {
				t.Error("a changed claim point is accepted")
			}
			if changed(func(w []pcs.Claim) []pcs.Claim { return w[:last] }) == nil {
				t.Error("a dropped claim is accepted")
			}
		})
	}
}
