package committed

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	"github.com/veriformer/veriformer/inference"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/internal/tier"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
)

// segmentCircuit is the segment circuit (circuits.Committed) as the
// tests build it here, with VerifySegment: with open set it checks the
// steps alone ([Verify]), not the scalars, so that only the steps' own
// assertions reject.
type segmentCircuit struct {
	Publics Publics `gnark:",public"`
	Request gstatement.Request
	Proof   Proof

	shape *native.Shape `gnark:"-"`
	model *model.Model  `gnark:"-"`
	open  bool          `gnark:"-"`
}

func (c *segmentCircuit) Define(api frontend.API) error {
	if c.open {
		bound, err := c.Request.Bind(api, c.Publics.Statement[1], c.Publics.Statement[2])
		if err != nil {
			return err
		}
		_, err = Verify(api, c.model, c.shape, c.Publics.Statement[:], &bound, c.Publics.Digest, c.Publics.MDigest, c.Publics.FoldDigest, c.Proof, nil)
		return err
	}
	return VerifySegment(api, c.model, c.shape, c.Publics, c.Request, c.Proof)
}

// newSegmentCircuit returns the placeholder of the segment circuit of
// shape s for model m.
func newSegmentCircuit(m *model.Model, s *native.Shape) (*segmentCircuit, error) {
	pub, err := PlaceholderPublics(s)
	if err != nil {
		return nil, err
	}
	p, err := PlaceholderProof(s)
	if err != nil {
		return nil, err
	}
	return &segmentCircuit{Publics: pub, Request: gstatement.PlaceholderRequest(s.Pass.Rows), Proof: p, shape: s, model: m}, nil
}

// segmentCircuits returns the placeholder and the assignment of the
// segment circuit for the run's proof as it is now, with the publics of
// check (nil: the honest proof's).
func (r *segmentRun) segmentCircuits(check *pcs.GroupCheck) (*segmentCircuit, *segmentCircuit, error) {
	if check == nil {
		var err error
		if check, _, err = r.shape.VerifyField(r.m, r.st, r.proof); err != nil {
			return nil, nil, err
		}
	}
	ph, err := newSegmentCircuit(r.m, r.shape)
	if err != nil {
		return nil, nil, err
	}
	req, err := gstatement.ValueOfRequest(r.pass)
	if err != nil {
		return nil, nil, err
	}
	as := &segmentCircuit{Publics: ValueOfPublics(r.shape, r.st, r.proof, check), Request: req, Proof: ValueOfProof(r.proof), shape: r.shape, model: r.m}
	return ph, as, nil
}

// proofTampers lists values of every kind of a native proof: the first
// and last of each list (every value of the small ones).
func proofTampers(p *native.Proof) []tamper {
	var out []tamper
	add := func(name string, xs []fr.Element) {
		for _, k := range ends(len(xs)) {
			if k < len(xs) {
				out = append(out, tamper{fmt.Sprintf("%s[%d]", name, k), &xs[k]})
			}
		}
	}
	rounds := func(name string, rs [][]fr.Element) {
		for _, i := range ends(len(rs)) {
			if i < len(rs) {
				add(fmt.Sprintf("%s round %d", name, i), rs[i])
			}
		}
	}
	add("LimbEvals", p.LimbEvals)
	if len(p.Functions) > 0 {
		out = append(out, tamper{"Functions[0].In", &p.Functions[0].In}, tamper{"Functions[last].Out", &p.Functions[len(p.Functions)-1].Out})
	}
	add("Lookup.TableEvals", p.Lookup.TableEvals)
	add("Lookup.ColumnEvals", p.Lookup.ColumnEvals)
	out = append(out, tamper{"Lookup.MultiplicityEval", &p.Lookup.MultiplicityEval})
	add("Lookup.Witness.Root", p.Lookup.Witness.Root[:])
	add("Lookup.Table.Root", p.Lookup.Table.Root[:])
	for _, j := range ends(len(p.Lookup.Witness.Layers)) {
		rounds(fmt.Sprintf("Lookup.Witness.Layers[%d]", j), p.Lookup.Witness.Layers[j].SumCheck.Rounds)
		add(fmt.Sprintf("Lookup.Witness.Layers[%d].Evals", j), p.Lookup.Witness.Layers[j].Evals[:])
	}
	rounds("Decomposition", p.Decomposition.SumCheck.Rounds)
	add("Decomposition.Evaluations", p.Decomposition.Evaluations)
	add("Accumulators", p.Accumulators)
	rounds("Requant", p.Requant.Rounds)
	out = append(out, tamper{"RequantEval", &p.RequantEval})
	for _, k := range ends(len(p.Projections)) {
		pr := p.Projections[k]
		rounds(fmt.Sprintf("Projections[%d]", k), pr.SumCheck.Rounds)
		add(fmt.Sprintf("Projections[%d].Weights", k), pr.Weights)
		add(fmt.Sprintf("Projections[%d].Inputs", k), pr.Inputs)
		add(fmt.Sprintf("Projections[%d].Biases", k), pr.Biases)
	}
	for _, kind := range []struct {
		name string
		ps   []native.FactorProof
	}{{"Products", p.Products}, {"Rotations", p.Rotations}, {"Attention", p.Attention}} {
		for _, k := range ends(len(kind.ps)) {
			if k < len(kind.ps) {
				rounds(fmt.Sprintf("%s[%d]", kind.name, k), kind.ps[k].SumCheck.Rounds)
				out = append(out, tamper{fmt.Sprintf("%s[%d].A", kind.name, k), &kind.ps[k].A}, tamper{fmt.Sprintf("%s[%d].B", kind.name, k), &kind.ps[k].B})
			}
		}
	}
	for _, k := range ends(len(p.Keys)) {
		if k < len(p.Keys) {
			rounds(fmt.Sprintf("Keys[%d]", k), p.Keys[k].SumCheck.Rounds)
			out = append(out, tamper{fmt.Sprintf("Keys[%d].K", k), &p.Keys[k].K})
		}
	}
	for _, k := range ends(len(p.Norms)) {
		n := &p.Norms[k]
		add(fmt.Sprintf("Norms[%d].Rows", k), n.Rows[:])
		rounds(fmt.Sprintf("Norms[%d].Variance", k), n.Variance.Rounds)
		add(fmt.Sprintf("Norms[%d].VarianceEvals", k), n.VarianceEvals[:])
		rounds(fmt.Sprintf("Norms[%d].Scale", k), n.Scale.Rounds)
		add(fmt.Sprintf("Norms[%d].ScaleEvals", k), n.ScaleEvals[:])
	}
	add("ResidualEvals", p.ResidualEvals)
	if p.Argmax != nil {
		add("Argmax.Chosen", p.Argmax.Chosen)
		out = append(out, tamper{"Argmax.MarginsEval", &p.Argmax.MarginsEval}, tamper{"Argmax.LogitsEval", &p.Argmax.LogitsEval})
		rounds("Argmax", p.Argmax.SumCheck.Rounds)
	}
	if p.Boundary != nil {
		out = append(out, tamper{"BoundaryEval", &p.BoundaryEval})
	}
	rounds("Opening", p.Opening.SumCheck.Rounds)
	for _, i := range ends(len(p.Opening.Opening.Evaluations)) {
		add(fmt.Sprintf("Opening.Evaluations[%d]", i), p.Opening.Opening.Evaluations[i][:])
	}
	return out
}

// TestSegment: the segment circuit of the built-in model's two segments
// (the last one also with its committed MLEs in parts of 13 variables,
// and without the LM head), of a Llama segment, and of chunks of both
// models' LM heads (one holding the built-in model's output tokens, one
// holding three of the Llama model's four) accepts the honest proof with the native
// verifier's scalars, and rejects, like the native verifier, each
// changed value of every kind of the proof (first and last of each
// list): with the honest scalars the circuit is not solved, and when
// the native field part still passes, the circuit computes its scalars
// and the pairing check rejects them. Every public input changed alone
// is rejected too; the full tier also checks that a value the native
// field part rejects fails one of the circuit's own steps. The constraint
// counts are snapshotted. It needs more than a minute: seven circuits of
// 0.3-0.6M R1CS, each compiled (in the full tier twice, with and without
// its final assertions) and solved for every sampled change (the package
// documentation of internal/tier: every value in the full tier).
func TestSegment(t *testing.T) {
	var records [][]string
	for ci, c := range []struct {
		name  string
		seg   inference.Segment
		parts int
	}{
		{model.Tiny, inference.Segment{From: 0, To: 1}, native.PartVars},
		{model.Tiny, inference.Segment{From: 1, To: 2}, native.PartVars},
		{model.LlamaTiny, inference.Segment{From: 0, To: 1}, native.PartVars},
		{model.Tiny, inference.Segment{From: 1, To: 2}, 13},
		{model.Tiny, inference.Segment{From: 1, To: 2, NoHead: true}, native.PartVars},
		{model.Tiny, inference.Segment{From: 2, To: 2, VocabFrom: 40, VocabTo: 100}, native.PartVars},
		{model.LlamaTiny, inference.Segment{From: 3, To: 3, VocabFrom: 100, VocabTo: 160}, native.PartVars},
	} {
		t.Run(fmt.Sprintf("%s/%v/parts=%d", c.name, c.seg, c.parts), func(t *testing.T) {
			r := sharedPartsRunOf(t, c.name, c.seg, c.parts)
			ph, as, err := r.segmentCircuits(nil)
			if err != nil {
				t.Fatal(err)
			}
			// gnark's test engine interprets the whole circuit (a minute
			// of the default tier for the seven cases); the compiled
			// circuit is solved on the same assignment below.
			if tier.Full {
				if err := test.IsSolved(ph, as, ecc.BLS12_377.ScalarField()); err != nil {
					t.Fatalf("the honest proof: %v", err)
				}
			}
			cs := compileCircuit(t, ph)
			n := cs.GetNbConstraints()
			t.Logf("%d R1CS, %d public inputs", n, cs.GetNbPublicVariables()-1)
			kind := ""
			switch {
			case c.seg.Chunk():
				kind = fmt.Sprintf("/vocabulary%d-%d", c.seg.VocabFrom, c.seg.VocabTo)
			case c.seg.NoHead:
				kind = "/nohead"
			}
			params := fmt.Sprintf("%s/segment%d-%d%s/rows=%d/N=%d", c.name, c.seg.From, c.seg.To, kind, len(r.pass.Tokens()), r.shape.Layout.NbVars)
			if c.parts != native.PartVars {
				params += fmt.Sprintf("/parts=%d(%d)", c.parts, r.shape.NbParts())
			}
			records = append(records, []string{"segment", params, fmt.Sprint(n)})
			solved := func(check *pcs.GroupCheck) error {
				_, as, err := r.segmentCircuits(check)
				if err != nil {
					return err
				}
				return solveCompiled(cs, as)
			}
			if err := solved(nil); err != nil {
				t.Fatalf("the honest proof does not solve the compiled circuit: %v", err)
			}
			honest, _, err := r.shape.VerifyField(r.m, r.st, r.proof)
			if err != nil {
				t.Fatal(err)
			}
			// The open circuit checks the steps alone, not the scalars: a
			// value the native field part rejects must fail one of its
			// assertions, not only change the scalars. The full tier
			// compiles it (a second compile per case); the default tier
			// checks that the circuit rejects, not why.
			var openCS constraint.ConstraintSystem
			if tier.Full {
				openPH, _, err := r.segmentCircuits(nil)
				if err != nil {
					t.Fatal(err)
				}
				openPH.open = true
				if openCS, err = frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, openPH, frontend.IgnoreUnconstrainedInputs()); err != nil {
					t.Fatal(err)
				}
			}
			solvedOpen := func() error {
				_, as, err := r.segmentCircuits(honest)
				if err != nil {
					return err
				}
				as.open = true
				return solveCompiled(openCS, as)
			}
			tampers := proofTampers(r.proof)
			fieldRejected, inCircuit := 0, 0
			for i, tp := range tampers {
				undo := bump(tp.x)
				if r.verifyNative() == nil {
					t.Errorf("%s: accepted by the native verifier", tp.name)
				}
				check, _, ferr := r.shape.VerifyField(r.m, r.st, r.proof)
				// The default tier solves the circuit on every value
				// the native field part lets through and on one in
				// seven of the others, offset by the case, so that the
				// seven cases together change every position of the list;
				// the full tier on every value.
				if ferr != nil && !tier.Sampled(i, 7, ci) {
					undo()
					continue
				}
				inCircuit++
				if err := solved(honest); err == nil {
					t.Errorf("%s: accepted by the circuit with the honest scalars", tp.name)
				}
				switch {
				case ferr == nil:
					// The field part passes natively: the circuit must
					// compute the same scalars, which the group part
					// rejects.
					if err := solved(check); err != nil {
						t.Errorf("%s: the circuit does not compute the native scalars: %v", tp.name, err)
					}
				case !tier.Full:
				case solvedOpen() == nil:
					t.Errorf("%s: rejected by the native field part (%v), accepted by the circuit's steps", tp.name, ferr)
				default:
					fieldRejected++
				}
				undo()
			}
			t.Logf("%d proof values changed, each rejected by the native verifier, %d of them by the circuit too (%d by the field part's own checks in both; counted in the full tier)", len(tampers), inCircuit, fieldRejected)
			publics := 0
			_, as, _ = r.segmentCircuits(honest)
			for i, pub := range publicTampers(as) {
				// One public input in three in the default tier, offset
				// by the case; every one in the full tier.
				if !tier.Sampled(i, 3, ci) {
					continue
				}
				saved := *pub.x
				*pub.x = bumped(saved)
				if err := solveCompiled(cs, as); err == nil {
					t.Errorf("public %s changed: accepted by the circuit", pub.name)
				}
				*pub.x = saved
				publics++
			}
			t.Logf("%d public inputs changed, each rejected", publics)
		})
	}
	if len(records) == 7 {
		checkConstraints(t, "segment", records)
	}
}

// variableTamper names a value of an assignment that a test changes.
type variableTamper struct {
	name string
	x    *frontend.Variable
}

// publicTampers lists every public input of a segment assignment but
// the scalars' middle entries (the first and last of each list), and
// the first prompt and output tokens and the lengths, which the
// statement binds.
func publicTampers(a *segmentCircuit) []variableTamper {
	p := &a.Publics
	out := []variableTamper{
		{"Statement[0]", &p.Statement[0]}, {"Statement[1]", &p.Statement[1]}, {"Statement[2]", &p.Statement[2]},
		{"Digest", &p.Digest}, {"MDigest", &p.MDigest}, {"FoldDigest", &p.FoldDigest},
		{"Quotient[0]", &p.Quotient[0]}, {"Quotient[1]", &p.Quotient[1]},
		{"Generator[0]", &p.Generator[0]}, {"Generator[1]", &p.Generator[1]}, {"Generator[2]", &p.Generator[2]},
		{"Request.Prompt[0]", &a.Request.Prompt[0]}, {"Request.Output[0]", &a.Request.Output[0]},
		{"Request.PromptLen", &a.Request.PromptLen}, {"Request.OutputLen", &a.Request.OutputLen},
	}
	for _, k := range ends(len(p.Commitments)) {
		out = append(out, variableTamper{fmt.Sprintf("Commitments[%d]", k), &p.Commitments[k]})
	}
	for _, k := range ends(len(p.Folds)) {
		out = append(out, variableTamper{fmt.Sprintf("Folds[%d]", k), &p.Folds[k]})
	}
	for _, k := range ends(len(p.Chosen)) {
		if k < len(p.Chosen) {
			out = append(out, variableTamper{fmt.Sprintf("Chosen[%d]", k), &p.Chosen[k]})
		}
	}
	return out
}

// bumped returns v + 1 for an assigned value (an integer or a *big.Int).
func bumped(v frontend.Variable) frontend.Variable {
	switch x := v.(type) {
	case int:
		return x + 1
	case *big.Int:
		return new(big.Int).Add(x, big.NewInt(1))
	}
	panic(fmt.Sprintf("an assigned value of type %T", v))
}

// checkConstraints snapshots records (gadget, params, count) in
// testdata/<name>.csv (rewrite with -update).
func checkConstraints(t *testing.T, name string, records [][]string) {
	t.Helper()
	all := append([][]string{{"gadget", "params", "nb_constraints"}}, records...)
	snapshot.CheckCSV(t, "testdata/"+name+".csv", all, *update)
}
