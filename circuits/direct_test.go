package circuits

import (
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/headshapes"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/internal/tier"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

var update = flag.Bool("update", false, "rewrite the constraint-count snapshots in testdata")

type fixture struct {
	layout *Layout
	st     statement.Statement
	req    statement.Request
	proof  *inference.Proof[bn254fr.Element]
}

// newFixture proves the default model's generation of n tokens after the
// prompt in a bucket of rows (0 for the smallest).
func newFixture(t testing.TB, prompt []int, n, rows int) *fixture {
	t.Helper()
	return newFixtureOf(t, model.Default(), prompt, n, rows)
}

func newFixtureOf(t testing.TB, m *model.Model, prompt []int, n, rows int) *fixture {
	t.Helper()
	req, tr, err := inference.Generate(m, prompt, n, rows)
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.Of[bn254fr.Element](m.ID(), req.Prompt, req.Output)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := inference.Prove[bn254fr.Element](m, st, req, tr)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := NewLayout(m, req.Rows)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{layout: layout, st: st, req: req, proof: proof}
}

// TestDirectConstraints snapshots the direct circuit's R1CS count for
// the default model in a bucket of 4 rows (testdata/direct_constraints.csv),
// and of 16 in the full tier (testdata/direct_constraints_full.csv).
func TestDirectConstraints(t *testing.T) {
	rows := [][]string{{"model", "bucket", "nb_constraints"}}
	buckets, file := []int{4}, "testdata/direct_constraints.csv"
	if tier.Full {
		buckets, file = []int{4, 16}, "testdata/direct_constraints_full.csv"
	}
	for _, bucket := range buckets {
		layout, err := NewLayout(model.Default(), bucket)
		if err != nil {
			t.Fatal(err)
		}
		placeholder, err := layout.Placeholder()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		cs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("bucket %d: %d R1CS constraints, compiled in %v", bucket, cs.GetNbConstraints(), time.Since(start))
		rows = append(rows, []string{"default", fmt.Sprint(bucket), fmt.Sprint(cs.GetNbConstraints())})
	}
	snapshot.CheckCSV(t, file, rows, *update)
}

// TestDirectRejects: the circuit accepts an honest proof and rejects what
// the native verifier rejects —
// a changed opened value, sum-check round value and claimed evaluation,
// and a statement that is not the proof's.
func TestDirectRejects(t *testing.T) {
	f := newFixture(t, []int{'H', 'i'}, 2, 0)
	placeholder, err := f.layout.Placeholder()
	if err != nil {
		t.Fatal(err)
	}
	honest, err := f.layout.Assign(f.st, f.req, f.proof)
	if err != nil {
		t.Fatal(err)
	}
	if err := test.IsSolved(placeholder, honest, ecc.BN254.ScalarField()); err != nil {
		t.Fatalf("honest assignment: %v", err)
	}
	var one bn254fr.Element
	one.SetOne()
	cases := map[string]func(f *fixture) (statement.Statement, func()){
		"opened probability": func(f *fixture) (statement.Statement, func()) {
			v := f.proof.Tensors[len(f.proof.Tensors)/2]
			v[0]++
			return f.st, func() { v[0]-- }
		},
		"lm head round value": func(f *fixture) (statement.Statement, func()) {
			e := &f.proof.LMHead.SumCheck.Rounds[0][0]
			e.Add(e, &one)
			return f.st, func() { e.Sub(e, &one) }
		},
		"qkv weight evaluation": func(f *fixture) (statement.Statement, func()) {
			e := &f.proof.Layers[0].QKV.Weights[1]
			e.Add(e, &one)
			return f.st, func() { e.Sub(e, &one) }
		},
		"attention claimed probability": func(f *fixture) (statement.Statement, func()) {
			e := &f.proof.Layers[1].Output.Probs
			e.Add(e, &one)
			return f.st, func() { e.Sub(e, &one) }
		},
		"model id": func(f *fixture) (statement.Statement, func()) {
			st := f.st
			st.ModelID = new(big.Int).Add(st.ModelID, big.NewInt(1))
			return st, func() {}
		},
		"output digest": func(f *fixture) (statement.Statement, func()) {
			st := f.st
			st.OutputDigest = new(big.Int).Add(st.OutputDigest, big.NewInt(1))
			return st, func() {}
		},
	}
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			st, restore := tamper(f)
			defer restore()
			assignment, err := f.layout.Assign(st, f.req, f.proof)
			if err != nil {
				t.Fatal(err)
			}
			if err := test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField()); err == nil {
				t.Fatal("tampered assignment satisfies the circuit")
			}
			if err := inference.Verify[bn254fr.Element](f.layout.Model, st, f.req, f.proof); err == nil {
				t.Fatal("tampered proof accepted natively")
			}
		})
	}
	// The one public input: the digest of another statement.
	t.Run("statement digest", func(t *testing.T) {
		assignment, err := f.layout.Assign(f.st, f.req, f.proof)
		if err != nil {
			t.Fatal(err)
		}
		other := f.st
		other.InputDigest = new(big.Int).Add(other.InputDigest, big.NewInt(1))
		if assignment.StatementDigest, err = other.Digest(); err != nil {
			t.Fatal(err)
		}
		if err := test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField()); err == nil {
			t.Fatal("assignment with another statement's digest satisfies the circuit")
		}
	})
}

// TestDirectPaddedHeads solves the circuit of a small Llama (RMSNorm,
// RoPE, grouped-query attention, gated MLP, untied LM head) in each
// padded head layout (every dimension padded at once in the default
// tier; also Qwen2.5's group of 7, Qwen2's 6, Phi-3's head dimension 96
// and a group of 3 with head dimension 10 in the full tier); a changed
// RoPE output, a query or rotated query changed in a padding column, and
// a padding head's context, are caught.
func TestDirectPaddedHeads(t *testing.T) {
	shapes := headshapes.All()
	if !tier.Full {
		shapes = shapes[:1]
	}
	for _, s := range shapes {
		t.Run(s.Name, func(t *testing.T) {
			m, err := s.Model()
			if err != nil {
				t.Fatal(err)
			}
			hl := m.Config.HeadLayout()
			col, err := headshapes.PaddingColumn(&m.Config)
			if err != nil {
				t.Fatal(err)
			}
			solveDirect(t, m, func(tr *model.Trace) []tensorTamper {
				ly := &tr.Layers[0]
				out := []tensorTamper{{"RoPE output", &ly.RopeQ.Out, 0}, {"query in a padding column", &ly.Q.Out, col}, {"rotated query in a padding column", &ly.RopeQ.Out, col}}
				if hl.Group > m.Config.Heads/m.Config.KVHeads {
					out = append(out, tensorTamper{"padding head's context", &ly.Attention.Context.Out, (hl.Group - 1) * hl.HeadDim})
				}
				return out
			})
		})
	}
}

// tensorTamper is one value of a proof's tensors changed: the element at
// index of the tensor.
type tensorTamper struct {
	name  string
	t     *model.Tensor
	index int
}

// solveDirect proves a request of 2 + 2 tokens of m, solves the direct
// circuit on the honest proof and checks that each tamper of tampers
// leaves it unsolved.
func solveDirect(t *testing.T, m *model.Model, tampers func(*model.Trace) []tensorTamper) {
	t.Helper()
	prompt := []int{5, 9}
	req, tr, err := inference.Generate(m, prompt, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.Of[bn254fr.Element](m.ID(), prompt, req.Output)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := inference.Prove[bn254fr.Element](m, st, req, tr)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := NewLayout(m, req.Rows)
	if err != nil {
		t.Fatal(err)
	}
	placeholder, err := layout.Placeholder()
	if err != nil {
		t.Fatal(err)
	}
	assignment, err := layout.Assign(st, req, proof)
	if err != nil {
		t.Fatal(err)
	}
	if err := test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField()); err != nil {
		t.Fatalf("honest assignment: %v", err)
	}
	index := inference.Index(tr)
	for _, c := range tampers(tr) {
		v := proof.Tensors[index[c.t]]
		v[c.index]++
		bad, err := layout.Assign(st, req, proof)
		v[c.index]--
		if err != nil {
			t.Fatal(err)
		}
		if err := test.IsSolved(placeholder, bad, ecc.BN254.ScalarField()); err == nil {
			t.Errorf("%s changed: the circuit is solved", c.name)
		}
	}
}

// narrowedLMHead returns the default model with its LM-head range narrowed
// to end one below the largest logit of an honest trace on prompt — a
// model that stops with a BoundError on the prompt — and that trace, with
// the narrowed range, from which a dishonest prover makes its proofs. The
// logits still fit the packing window of the narrowed range, so only the
// exact range check can reject such a proof.
func narrowedLMHead(t *testing.T, prompt []int, n int) (*model.Model, statement.Request, *model.Trace) {
	t.Helper()
	req, tr, err := inference.Generate(model.Default(), prompt, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	top := slices.Max(tr.LMHead.Out.Data)
	m := model.Default()
	m.Quant.LMHead.OutHi = top - 1
	var bound *model.BoundError
	if _, _, err := inference.Generate(m, prompt, n, 0); !errors.As(err, &bound) {
		t.Fatalf("the narrowed model ran the prompt: %v", err)
	}
	lo, hi := tr.LMHead.Out.Min, m.Quant.LMHead.OutHi
	if bits.Len64(uint64(top)-uint64(lo)) != bits.Len64(uint64(hi)-uint64(lo)) {
		t.Fatalf("the largest logit %d leaves the packing window of [%d, %d]", top, lo, hi)
	}
	tr.LMHead.Out.Max = hi
	return m, req, tr
}

// rejectedByBoth fails the test unless the native verifier rejected the
// proof (nativeErr) and the assignment does not satisfy the circuit.
func rejectedByBoth(t *testing.T, nativeErr error, placeholder, assignment frontend.Circuit, scalarField *big.Int) {
	t.Helper()
	if nativeErr == nil {
		t.Error("accepted by the native verifier")
	} else {
		t.Logf("native: %v", nativeErr)
	}
	if err := test.IsSolved(placeholder, assignment, scalarField); err == nil {
		t.Error("accepted by the circuit")
	} else {
		t.Logf("circuit: %s", strings.SplitN(err.Error(), "\n", 2)[0]) // gnark's solver errors carry a stack trace
	}
}

// TestExactRange: proofs whose logits exceed the model's LM-head range but
// not its packing window are rejected by the native verifiers and by the
// circuit (the honest proofs of the unmodified model are accepted by
// TestDirectRejects).
func TestExactRange(t *testing.T) {
	prompt := []int{'H', 'i'}
	m, req, tr := narrowedLMHead(t, prompt, 2)
	layout, err := NewLayout(m, req.Rows)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("direct", func(t *testing.T) {
		type E = bn254fr.Element
		st, err := statement.Of[E](m.ID(), prompt, req.Output)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := inference.Prove[E](m, st, req, tr)
		if err != nil {
			t.Fatal(err)
		}
		placeholder, err := layout.Placeholder()
		if err != nil {
			t.Fatal(err)
		}
		assignment, err := layout.Assign(st, req, proof)
		if err != nil {
			t.Fatal(err)
		}
		rejectedByBoth(t, inference.Verify[E](m, st, req, proof), placeholder, assignment, ecc.BN254.ScalarField())
	})
}
