package embedding_test

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
	gadget "github.com/veriformer/veriformer/gadgets/embedding"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	npoly "github.com/veriformer/veriformer/poly"
	native "github.com/veriformer/veriformer/protocol/embedding"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

const constraintsFile = "testdata/constraints.csv"

type verifyCircuit struct {
	Tokens []frontend.Variable
	Proof  gadget.Proof
	Out    []poly.Claim
	fixed  *fixedPart `gnark:"-"`
}

// fixedPart holds the shape and, unless nil, the table whose MLE the
// circuit evaluates from constants to check the table claim.
type fixedPart struct {
	cfg   native.Config
	table []int64
}

func (c *verifyCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "embedding-test")
	if err != nil {
		return err
	}
	claims, err := gadget.Verify(api, tr, c.fixed.cfg, c.Tokens, c.Proof, c.Out)
	if err != nil || c.fixed.table == nil {
		return err
	}
	cfg := c.fixed.cfg
	pc := npoly.NextPowerOfTwo(cfg.Width)
	table := make([]frontend.Variable, npoly.NextPowerOfTwo(cfg.Vocab)*pc)
	for i := range table {
		table[i] = 0
	}
	for v := range cfg.Vocab {
		for j := range cfg.Width {
			table[v*pc+j] = big.NewInt(c.fixed.table[v*cfg.Width+j])
		}
	}
	api.AssertIsEqual(poly.EvaluateDense(api, table, claims.Table.Point), claims.Table.Value)
	return nil
}

func placeholder(f *fixedPart) *verifyCircuit {
	return &verifyCircuit{
		Tokens: make([]frontend.Variable, f.cfg.Rows),
		Proof:  gadget.PlaceholderProof(f.cfg),
		Out:    []poly.Claim{{Point: make([]frontend.Variable, f.cfg.RowVars()+f.cfg.ColVars())}},
		fixed:  f,
	}
}

func assignment[E field.Scalar, P field.Ptr[E]](f *fixedPart, tokens []int, proof *native.Proof[E], out npoly.Claim[E]) *verifyCircuit {
	c := &verifyCircuit{Proof: gadget.ValueOfProof(proof), fixed: f}
	for _, t := range tokens {
		c.Tokens = append(c.Tokens, t)
	}
	point := make([]frontend.Variable, len(out.Point))
	for k := range out.Point {
		point[k] = P(&out.Point[k]).BigInt(new(big.Int))
	}
	c.Out = []poly.Claim{{Point: point, Value: P(&out.Value).BigInt(new(big.Int))}}
	return c
}

func testBothFaces[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID, seed uint64) {
	one := field.One[E, P]()
	for _, cfg := range []native.Config{{Rows: 3, Vocab: 7, Width: 10}, {Rows: 16, Vocab: 64, Width: 3}, {Rows: 1, Vocab: 1, Width: 2}} {
		rng := rand.New(rand.NewPCG(seed, uint64(cfg.Vocab)))
		w := native.Witness{Tokens: make([]int, cfg.Rows), Table: make([]int64, cfg.Vocab*cfg.Width)}
		for i := range w.Tokens {
			w.Tokens[i] = rng.IntN(cfg.Vocab)
		}
		for i := range w.Table {
			w.Table[i] = rng.Int64N(1<<16) - 1<<15
		}
		x, err := native.Compute(cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		point := field.RandomVector[E, P](rng, cfg.RowVars()+cfg.ColVars())
		out := npoly.Claim[E]{Point: point, Value: native.EvaluateTable[E, P](x, cfg.Rows, cfg.Width, point)}
		proof, _, err := native.Prove(ntranscript.New[E, P]("embedding-test"), cfg, w, []npoly.Claim[E]{out})
		if err != nil {
			t.Fatal(err)
		}
		f := &fixedPart{cfg: cfg, table: w.Table}
		accepts := func(tokens []int) (bool, bool) {
			nativeOK := false
			if claims, err := native.Verify(ntranscript.New[E, P]("embedding-test"), cfg, tokens, proof, []npoly.Claim[E]{out}); err == nil {
				want := native.EvaluateTable[E, P](w.Table, cfg.Vocab, cfg.Width, claims.Table.Point)
				nativeOK = P(&want).Equal(&claims.Table.Value)
			}
			return nativeOK, test.IsSolved(placeholder(f), assignment[E, P](f, tokens, proof, out), curve.ScalarField()) == nil
		}
		if n, c := accepts(w.Tokens); !n || !c {
			t.Fatalf("%+v: honest proof rejected (native %v, circuit %v)", cfg, n, c)
		}
		elements := []*E{&proof.Table}
		for _, r := range proof.SumCheck.Rounds {
			for i := range r {
				elements = append(elements, &r[i])
			}
		}
		for i, x := range elements {
			saved := *x
			P(x).Add(x, &one)
			if n, c := accepts(w.Tokens); n || c {
				t.Errorf("%+v: element %d tampered: native %v, circuit %v", cfg, i, n, c)
			}
			*x = saved
		}
		if cfg.Vocab > 1 {
			other := append([]int(nil), w.Tokens...)
			other[0] = (other[0] + 1) % cfg.Vocab
			if n, c := accepts(other); n || c {
				t.Errorf("%+v: another token: native %v, circuit %v", cfg, n, c)
			}
		}
		// A token outside the vocabulary is rejected by the circuit.
		outside := append([]int(nil), w.Tokens...)
		outside[0] = cfg.Vocab
		if test.IsSolved(placeholder(f), assignment[E, P](f, outside, proof, out), curve.ScalarField()) == nil {
			t.Errorf("%+v: token %d accepted", cfg, cfg.Vocab)
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
	rows := [][]string{{"rows", "vocab", "width", "nb_constraints"}}
	// GPT-2 (vocabulary 50,257, width 768) and Llama 2 / TinyLlama
	// (32,000, 2,048), for a 16-token prompt and one decoded token.
	for _, cfg := range []native.Config{
		{Rows: 16, Vocab: 50257, Width: 768},
		{Rows: 1, Vocab: 50257, Width: 768},
		{Rows: 16, Vocab: 32000, Width: 2048},
		{Rows: 1, Vocab: 32000, Width: 2048},
	} {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder(&fixedPart{cfg: cfg}))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, []string{strconv.Itoa(cfg.Rows), strconv.Itoa(cfg.Vocab), strconv.Itoa(cfg.Width), strconv.Itoa(ccs.GetNbConstraints())})
	}
	snapshot.CheckCSV(t, constraintsFile, rows, *update)
}

func TestShapeErrors(t *testing.T) {
	f := &fixedPart{cfg: native.Config{Rows: 2, Vocab: 4, Width: 2}}
	c := placeholder(f)
	c.Tokens = c.Tokens[:1]
	if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
		t.Error("one token for two rows compiled")
	}
	c = placeholder(&fixedPart{cfg: native.Config{Rows: 0, Vocab: 4, Width: 2}})
	if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
		t.Error("zero rows compiled")
	}
}
