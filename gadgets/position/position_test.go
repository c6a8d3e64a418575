package position_test

import (
	"flag"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	gadget "github.com/veriformer/veriformer/gadgets/position"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	npoly "github.com/veriformer/veriformer/poly"
	native "github.com/veriformer/veriformer/protocol/position"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

const constraintsFile = "testdata/constraints.csv"

type verifyCircuit struct {
	Proof gadget.Proof
	Out   []poly.Claim
	fixed *fixedPart `gnark:"-"`
}

// fixedPart holds the shape and, unless nil, the tensors whose MLEs the
// circuit evaluates from constants to check the left claims.
type fixedPart struct {
	cfg native.Config
	w   *native.Witness
}

func (c *verifyCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "position-test")
	if err != nil {
		return err
	}
	claims, err := gadget.Verify(api, tr, c.fixed.cfg, c.Proof, c.Out)
	if err != nil || c.fixed.w == nil {
		return err
	}
	cfg := c.fixed.cfg
	api.AssertIsEqual(poly.EvaluateDense(api, constantTable(c.fixed.w.X, cfg.Rows, cfg.Width), claims.Input.Point), claims.Input.Value)
	api.AssertIsEqual(poly.EvaluateDense(api, constantTable(c.fixed.w.Table, cfg.Context, cfg.Width), claims.Table.Point), claims.Table.Value)
	return nil
}

func constantTable(values []int64, rows, cols int) []frontend.Variable {
	pc := npoly.NextPowerOfTwo(cols)
	out := make([]frontend.Variable, npoly.NextPowerOfTwo(rows)*pc)
	for i := range out {
		out[i] = 0
	}
	for i := range rows {
		for j := range cols {
			out[i*pc+j] = big.NewInt(values[i*cols+j])
		}
	}
	return out
}

func placeholder(f *fixedPart) *verifyCircuit {
	return &verifyCircuit{
		Proof: gadget.PlaceholderProof(f.cfg),
		Out:   []poly.Claim{{Point: make([]frontend.Variable, f.cfg.RowVars()+f.cfg.ColVars())}},
		fixed: f,
	}
}

func randomInts(rng *rand.Rand, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = rng.Int64N(1<<16) - 1<<15
	}
	return out
}

func output(cfg native.Config, w native.Witness, shift int) []int64 {
	out := make([]int64, cfg.Rows*cfg.Width)
	for i := range cfg.Rows {
		for j := range cfg.Width {
			out[i*cfg.Width+j] = w.X[i*cfg.Width+j] + w.Table[(shift+i)*cfg.Width+j]
		}
	}
	return out
}

func assignment[E field.Scalar, P field.Ptr[E]](f *fixedPart, proof *native.Proof[E], out npoly.Claim[E]) *verifyCircuit {
	point := make([]frontend.Variable, len(out.Point))
	for k := range out.Point {
		point[k] = P(&out.Point[k]).BigInt(new(big.Int))
	}
	return &verifyCircuit{Proof: gadget.ValueOfProof(proof), Out: []poly.Claim{{Point: point, Value: P(&out.Value).BigInt(new(big.Int))}}, fixed: f}
}

// bothAccept runs the native verifier with the caller's checks and the
// circuit on one proof.
func bothAccept[E field.Scalar, P field.Ptr[E]](curve ecc.ID, f *fixedPart, proof *native.Proof[E], out npoly.Claim[E]) (bool, bool) {
	cfg := f.cfg
	nativeOK := false
	if claims, err := native.Verify(ntranscript.New[E, P]("position-test"), cfg, proof, []npoly.Claim[E]{out}); err == nil {
		x := native.EvaluateTable[E, P](f.w.X, cfg.Rows, cfg.Width, claims.Input.Point)
		table := native.EvaluateTable[E, P](f.w.Table, cfg.Context, cfg.Width, claims.Table.Point)
		nativeOK = P(&x).Equal(&claims.Input.Value) && P(&table).Equal(&claims.Table.Value)
	}
	return nativeOK, test.IsSolved(placeholder(f), assignment[E, P](f, proof, out), curve.ScalarField()) == nil
}

func testBothFaces[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID, seed uint64) {
	one := field.One[E, P]()
	for _, cfg := range []native.Config{
		{Rows: 3, Width: 10, Context: 64},
		{Rows: 16, Width: 10, Context: 64},
		{Rows: 5, Width: 3, Context: 7},
		{Rows: 1, Width: 10, Context: 64, Start: 37},
	} {
		rng := rand.New(rand.NewPCG(seed, uint64(cfg.Rows)))
		w := native.Witness{X: randomInts(rng, cfg.Rows*cfg.Width), Table: randomInts(rng, cfg.Context*cfg.Width)}
		f := &fixedPart{cfg: cfg, w: &w}
		claim := func(shift int) npoly.Claim[E] {
			point := field.RandomVector[E, P](rng, cfg.RowVars()+cfg.ColVars())
			return npoly.Claim[E]{Point: point, Value: native.EvaluateTable[E, P](output(cfg, w, shift), cfg.Rows, cfg.Width, point)}
		}
		out := claim(cfg.Start)
		proof, _, err := native.Prove(ntranscript.New[E, P]("position-test"), cfg, w, []npoly.Claim[E]{out})
		if err != nil {
			t.Fatal(err)
		}
		if n, c := bothAccept[E, P](curve, f, proof, out); !n || !c {
			t.Fatalf("%+v: honest proof rejected (native %v, circuit %v)", cfg, n, c)
		}
		elements := []*E{&proof.Input}
		if proof.Masked != nil {
			for _, r := range proof.Masked.SumCheck.Rounds {
				for i := range r {
					elements = append(elements, &r[i])
				}
			}
			elements = append(elements, &proof.Masked.Prefix)
		}
		for i := range proof.Siblings {
			elements = append(elements, &proof.Siblings[i])
		}
		for i, x := range elements {
			saved := *x
			P(x).Add(x, &one)
			if n, c := bothAccept[E, P](curve, f, proof, out); n || c {
				t.Errorf("%+v: element %d tampered: native %v, circuit %v", cfg, i, n, c)
			}
			*x = saved
		}
		// Rows of the table from the wrong position.
		bad := claim(cfg.Start + 1)
		badProof, _, err := native.Prove(ntranscript.New[E, P]("position-test"), cfg, w, []npoly.Claim[E]{bad})
		if err != nil {
			t.Fatal(err)
		}
		if n, c := bothAccept[E, P](curve, f, badProof, bad); n || c {
			t.Errorf("%+v: wrong position rows: native %v, circuit %v", cfg, n, c)
		}
	}
}

func TestBothFaces(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testBothFaces[bn254fr.Element](t, ecc.BN254, seed) })
	t.Run("bls12-377", func(t *testing.T) { testBothFaces[bls12377fr.Element](t, ecc.BLS12_377, seed) })
}

func TestConstraintCounts(t *testing.T) {
	rows := [][]string{{"rows", "width", "context", "start", "nb_constraints"}}
	// GPT-2 small: width 768, context 1024; the benchmark's context 64.
	for _, cfg := range []native.Config{
		{Rows: 16, Width: 768, Context: 64},
		{Rows: 16, Width: 768, Context: 1024},
		{Rows: 5, Width: 768, Context: 1024},
		{Rows: 1, Width: 768, Context: 1024, Start: 16},
	} {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder(&fixedPart{cfg: cfg}))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, []string{strconv.Itoa(cfg.Rows), strconv.Itoa(cfg.Width), strconv.Itoa(cfg.Context), strconv.Itoa(cfg.Start), strconv.Itoa(ccs.GetNbConstraints())})
	}
	snapshot.CheckCSV(t, constraintsFile, rows, *update)
}

func TestShapeErrors(t *testing.T) {
	for _, cfg := range []native.Config{{Rows: 2, Width: 2, Context: 4, Start: 1}, {Rows: 1, Width: 2, Context: 4, Start: 4}} {
		c := &verifyCircuit{Out: []poly.Claim{{Point: make([]frontend.Variable, 2)}}, fixed: &fixedPart{cfg: cfg}}
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
			t.Errorf("%+v compiled", cfg)
		}
	}
	c := placeholder(&fixedPart{cfg: native.Config{Rows: 3, Width: 2, Context: 8}})
	c.Proof.Siblings = c.Proof.Siblings[1:]
	if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
		t.Error("proof with a missing sibling compiled")
	}
}
