package kvcache_test

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
	gkvcache "github.com/veriformer/veriformer/gadgets/kvcache"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/kvcache"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

const constraintsFile = "testdata/constraints.csv"

// appendCircuit verifies one append; with tensors set it also checks the
// left claims against them.
type appendCircuit struct {
	Proof    gkvcache.Proof
	Out      []poly.Claim
	Position frontend.Variable
	Live     frontend.Variable
	fixed    *appendFixed `gnark:"-"`
}

type appendFixed struct {
	cfg        kvcache.Config
	prev, rows []int64
	live       int
}

func (c *appendCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "kvcache-test")
	if err != nil {
		return err
	}
	claims, err := gkvcache.Verify(api, tr, c.fixed.cfg, c.Position, c.Live, c.Proof, c.Out)
	if err != nil || c.fixed.prev == nil {
		return err
	}
	cfg := c.fixed.cfg
	cache := make([]int64, cfg.Context*cfg.Width)
	copy(cache, c.fixed.prev)
	api.AssertIsEqual(poly.EvaluateDense(api, constantTable(cache, cfg.Context, cfg.Width), claims.Prev.Point), claims.Prev.Value)
	api.AssertIsEqual(poly.EvaluateDense(api, constantTable(c.fixed.rows, cfg.NewRows(), cfg.Width), claims.New.Point), claims.New.Value)
	return nil
}

func placeholderAppend(f *appendFixed) *appendCircuit {
	out := make([]poly.Claim, f.cfg.Claims)
	for i := range out {
		out[i].Point = make([]frontend.Variable, f.cfg.RowVars()+f.cfg.ColVars())
	}
	return &appendCircuit{Proof: gkvcache.PlaceholderProof(f.cfg), Out: out, fixed: f}
}

func claimsAssignment[E field.Scalar, P field.Ptr[E]](claims []npoly.Claim[E]) []poly.Claim {
	out := make([]poly.Claim, len(claims))
	for i, c := range claims {
		out[i].Point = make([]frontend.Variable, len(c.Point))
		for k := range c.Point {
			out[i].Point[k] = P(&c.Point[k]).BigInt(new(big.Int))
		}
		out[i].Value = P(&c.Value).BigInt(new(big.Int))
	}
	return out
}

// nativeAppendAccepts runs the native verifier and the tensor checks.
func nativeAppendAccepts[E field.Scalar, P field.Ptr[E]](f *appendFixed, proof *kvcache.Proof[E], out []npoly.Claim[E]) bool {
	claims, err := kvcache.Verify(ntranscript.New[E, P]("kvcache-test"), f.cfg, f.live, proof, out)
	if err != nil {
		return false
	}
	cache := make([]int64, f.cfg.Context*f.cfg.Width)
	copy(cache, f.prev)
	prev, errPrev := npoly.EvaluateTensor[E, P](cache, []int{f.cfg.Context, f.cfg.Width}, claims.Prev.Point)
	rows, errRows := npoly.EvaluateTensor[E, P](f.rows, []int{f.cfg.NewRows(), f.cfg.Width}, claims.New.Point)
	return errPrev == nil && errRows == nil && P(&prev).Equal(&claims.Prev.Value) && P(&rows).Equal(&claims.New.Value)
}

func testAppendBothFaces[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	one := field.One[E, P]()
	for _, c := range []struct {
		cfg  kvcache.Config
		live int
	}{
		{kvcache.Config{Context: 6, Width: 3, Position: 4, Claims: 2}, 1},
		{kvcache.Config{Context: 8, Width: 5, Position: 0, Claims: 1}, 1},
		// A turn of a bucket of 4 rows, 3 kept, and one whose pad rows
		// fall past the context.
		{kvcache.Config{Context: 12, Width: 3, Position: 5, Rows: 4, Claims: 2}, 3},
		{kvcache.Config{Context: 8, Width: 3, Position: 6, Rows: 4, Claims: 1}, 2},
	} {
		cfg := c.cfg
		f := &appendFixed{cfg: cfg, prev: randomInts(rng, cfg.Position*cfg.Width, 1<<15), rows: randomInts(rng, cfg.NewRows()*cfg.Width, 1<<15), live: c.live}
		next := make([]int64, cfg.Context*cfg.Width)
		copy(next, append(append([]int64(nil), f.prev...), f.rows[:c.live*cfg.Width]...))
		out := make([]npoly.Claim[E], cfg.Claims)
		for i := range out {
			point := field.RandomVector[E, P](rng, cfg.RowVars()+cfg.ColVars())
			v, err := npoly.EvaluateTensor[E, P](next, []int{cfg.Context, cfg.Width}, point)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = npoly.Claim[E]{Point: point, Value: v}
		}
		proof, _, err := kvcache.Prove(ntranscript.New[E, P]("kvcache-test"), cfg, kvcache.Witness{Prev: f.prev, New: f.rows, Live: c.live}, out)
		if err != nil {
			t.Fatal(err)
		}
		circuit := placeholderAppend(f)
		solved := func() bool {
			return test.IsSolved(circuit, &appendCircuit{Proof: gkvcache.ValueOfProof(proof), Out: claimsAssignment[E, P](out), Position: cfg.Position, Live: f.live, fixed: f}, curve.ScalarField()) == nil
		}
		if !nativeAppendAccepts[E, P](f, proof, out) || !solved() {
			t.Fatalf("%+v: honest proof rejected", cfg)
		}
		elements := []*E{&proof.Prev, &proof.New}
		for _, r := range proof.Shift.Rounds {
			for i := range r {
				elements = append(elements, &r[i])
			}
		}
		if proof.Merge != nil {
			for _, r := range proof.Merge.SumCheck.Rounds {
				for i := range r {
					elements = append(elements, &r[i])
				}
			}
			elements = append(elements, &proof.Merge.Evaluation)
		}
		for i, x := range elements {
			saved := *x
			P(x).Add(x, &one)
			if nativeAppendAccepts[E, P](f, proof, out) {
				t.Errorf("%+v: element %d tampered: native accepts", cfg, i)
			}
			if solved() {
				t.Errorf("%+v: element %d tampered: circuit accepts", cfg, i)
			}
			*x = saved
		}
		// A previous cache with two rows swapped.
		if cfg.Position >= 2 {
			swapped := append([]int64(nil), f.prev...)
			for c := range cfg.Width {
				swapped[c], swapped[cfg.Width+c] = swapped[cfg.Width+c], swapped[c]
			}
			g := &appendFixed{cfg: cfg, prev: swapped, rows: f.rows, live: f.live}
			if nativeAppendAccepts[E, P](g, proof, out) {
				t.Errorf("%+v: swapped previous cache: native accepts", cfg)
			}
			if test.IsSolved(placeholderAppend(g), &appendCircuit{Proof: gkvcache.ValueOfProof(proof), Out: claimsAssignment[E, P](out), Position: cfg.Position, Live: g.live, fixed: g}, curve.ScalarField()) == nil {
				t.Errorf("%+v: swapped previous cache: circuit accepts", cfg)
			}
		}
		// The rows written at another position: one circuit for every
		// position.
		if cfg.Position+c.live < cfg.Context {
			if test.IsSolved(circuit, &appendCircuit{Proof: gkvcache.ValueOfProof(proof), Out: claimsAssignment[E, P](out), Position: cfg.Position + 1, Live: f.live, fixed: f}, curve.ScalarField()) == nil {
				t.Errorf("%+v: rows written at position %d: circuit accepts", cfg, cfg.Position+1)
			}
		}
		// Another count of rows written: one more (a pad row kept) or
		// one fewer (a new row dropped).
		for _, other := range []int{c.live - 1, c.live + 1} {
			if other < 0 || other > cfg.NewRows() {
				continue
			}
			g := &appendFixed{cfg: cfg, prev: f.prev, rows: f.rows, live: other}
			if nativeAppendAccepts[E, P](g, proof, out) {
				t.Errorf("%+v: %d rows written claimed as %d: native accepts", cfg, c.live, other)
			}
			if test.IsSolved(placeholderAppend(g), &appendCircuit{Proof: gkvcache.ValueOfProof(proof), Out: claimsAssignment[E, P](out), Position: cfg.Position, Live: other, fixed: g}, curve.ScalarField()) == nil {
				t.Errorf("%+v: %d rows written claimed as %d: circuit accepts", cfg, c.live, other)
			}
		}
	}
}

func TestAppendBothFaces(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testAppendBothFaces[bn254fr.Element](t, ecc.BN254, seed) })
	t.Run("bls12-377", func(t *testing.T) { testAppendBothFaces[bls12377fr.Element](t, ecc.BLS12_377, seed) })
}

func TestConstraintCounts(t *testing.T) {
	rows := [][]string{{"step", "context", "rows", "width", "position", "claims", "nb_constraints"}}
	compile := func(c frontend.Circuit) int {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
		if err != nil {
			t.Fatal(err)
		}
		return ccs.GetNbConstraints()
	}
	// GPT-2 small: 12 key/value heads of 64 (width 768), context 64 (the
	// benchmark's) and 1024 (the model's).
	for _, cfg := range []kvcache.Config{
		{Context: 64, Width: 768, Position: 16, Claims: 1},
		{Context: 64, Width: 768, Position: 16, Claims: 2},
		{Context: 1024, Width: 768, Position: 16, Claims: 2},
		// A turn of a bucket of 16 rows.
		{Context: 1024, Width: 768, Position: 16, Rows: 16, Claims: 2},
	} {
		n := compile(placeholderAppend(&appendFixed{cfg: cfg}))
		rows = append(rows, []string{"append", strconv.Itoa(cfg.Context), strconv.Itoa(cfg.NewRows()), strconv.Itoa(cfg.Width), strconv.Itoa(cfg.Position), strconv.Itoa(cfg.Claims), strconv.Itoa(n)})
	}
	snapshot.CheckCSV(t, constraintsFile, rows, *update)
}

func TestShapeErrors(t *testing.T) {
	bad := []frontend.Circuit{
		&appendCircuit{fixed: &appendFixed{cfg: kvcache.Config{Context: 4, Width: 2, Position: 4, Claims: 1}}, Out: []poly.Claim{{Point: make([]frontend.Variable, 3)}}},
		&appendCircuit{fixed: &appendFixed{cfg: kvcache.Config{Context: 4, Width: 2, Position: 1, Claims: 2}}, Out: []poly.Claim{{Point: make([]frontend.Variable, 3)}}},
	}
	for i, c := range bad {
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
			t.Errorf("malformed circuit %d compiled", i)
		}
	}
}

// constantTable is the zero-padded table of rows × cols values as circuit
// constants, rows and columns padded to powers of two.
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

// randomInts returns n values in [−bound, bound].
func randomInts(rng *rand.Rand, n int, bound int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = rng.Int64N(2*bound+1) - bound
	}
	return out
}
