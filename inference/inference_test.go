package inference

import (
	"errors"
	"reflect"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

// proveDefault proves the default model's greedy generation of n tokens
// after the prompt in a bucket of rows (0 for the smallest).
func proveDefault[E field.Scalar, P field.Ptr[E]](t testing.TB, prompt []int, n, rows int) (*model.Model, statement.Statement, statement.Request, *Proof[E]) {
	t.Helper()
	m := model.Default()
	st, req, _, proof := proveModel[E, P](t, m, prompt, n, rows)
	return m, st, req, proof
}

// proveModel generates n tokens of m after prompt in a bucket of rows
// (0: the smallest) and proves them.
func proveModel[E field.Scalar, P field.Ptr[E]](t testing.TB, m *model.Model, prompt []int, n, rows int) (statement.Statement, statement.Request, *model.Trace, *Proof[E]) {
	t.Helper()
	req, tr, err := Generate(m, prompt, n, rows)
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.Of[E, P](m.ID(), req.Prompt, req.Output)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := Prove[E, P](m, st, req, tr)
	if err != nil {
		t.Fatal(err)
	}
	return st, req, tr, proof
}

func testHonest[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	prompt := []int{'H', 'e', 'l', 'l', 'o'}
	m, st, req, proof := proveDefault[E, P](t, prompt, 3, 0)
	if req.Rows != 8 {
		t.Fatalf("a pass of 7 rows in a bucket of %d, want 8", req.Rows)
	}
	if err := Verify[E, P](m, st, req, proof); err != nil {
		t.Fatalf("honest proof rejected: %v", err)
	}
	// Another output, another prompt, another statement: rejected.
	other := req
	other.Output = append([]int(nil), req.Output...)
	other.Output[0] = (other.Output[0] + 1) % 256
	if err := Verify[E, P](m, st, other, proof); !errors.Is(err, ErrRejected) {
		t.Fatalf("other output: %v", err)
	}
	other = req
	other.Prompt = []int{'J', 'e', 'l', 'l', 'o'}
	if err := Verify[E, P](m, st, other, proof); !errors.Is(err, ErrRejected) {
		t.Fatalf("other prompt: %v", err)
	}
}

func TestHonest(t *testing.T) {
	t.Run("bn254", testHonest[bn254fr.Element])
	t.Run("bls12-377", testHonest[bls12377fr.Element])
}

// TestTamperedTensors changes one value of every opened tensor in turn:
// either an element-wise check or a sum-check claim must reject it.
func TestTamperedTensors(t *testing.T) {
	prompt := []int{'a', 'b', 'c'}
	m, st, req, proof := proveDefault[bn254fr.Element](t, prompt, 2, 8)
	for i, values := range proof.Tensors {
		for _, k := range []int{0, len(values) - 1} {
			saved := values[k]
			values[k]++
			if err := Verify[bn254fr.Element](m, st, req, proof); !errors.Is(err, ErrRejected) {
				t.Errorf("tensor %d value %d changed: %v", i, k, err)
			}
			values[k] = saved
		}
	}
}

func TestOtherModel(t *testing.T) {
	prompt := []int{'x', 'y'}
	_, st, req, proof := proveDefault[bn254fr.Element](t, prompt, 2, 0)
	c := model.DefaultConfig()
	w, err := model.RandomWeights(c, model.DefaultSeed+1, model.DefaultEmbedScale, model.DefaultGain)
	if err != nil {
		t.Fatal(err)
	}
	other, err := model.New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify[bn254fr.Element](other, st, req, proof); !errors.Is(err, ErrRejected) {
		t.Fatalf("proof accepted for another model: %v", err)
	}
}

// visitElements calls f with a pointer to every field element reachable
// from v (structs, pointers, slices, arrays).
func visitElements[E field.Scalar](v reflect.Value, f func(*E)) {
	if v.CanAddr() && v.Type() == reflect.TypeFor[E]() {
		f(v.Addr().Interface().(*E))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			visitElements[E](v.Elem(), f)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				visitElements[E](v.Field(i), f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			visitElements[E](v.Index(i), f)
		}
	}
}

// TestTamperedProof changes, one at a time, every sum-check round value and
// every claimed evaluation of every contraction proof: all are rejected.
func TestTamperedProof(t *testing.T) {
	prompt := []int{'o', 'k'}
	m, st, req, proof := proveDefault[bn254fr.Element](t, prompt, 2, 0)
	var elems []*bn254fr.Element
	visitElements[bn254fr.Element](reflect.ValueOf(proof.Layers), func(e *bn254fr.Element) { elems = append(elems, e) })
	visitElements[bn254fr.Element](reflect.ValueOf(proof.LMHead), func(e *bn254fr.Element) { elems = append(elems, e) })
	if len(elems) < 100 {
		t.Fatalf("only %d proof elements found", len(elems))
	}
	tested := 0
	for i := range elems {
		e := elems[i]
		saved := *e
		var one bn254fr.Element
		one.SetOne()
		e.Add(e, &one)
		if err := Verify[bn254fr.Element](m, st, req, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("proof element %d of %d changed: %v", i, len(elems), err)
		}
		*e = saved
		tested++
	}
	t.Logf("%d of %d proof elements tampered", tested, len(elems))
}

func TestLlama(t *testing.T) {
	c := &model.Config{Family: model.Llama, Vocab: 64, Hidden: 48, Layers: 2, Heads: 4, KVHeads: 2,
		Intermediate: 96, MaxPositions: 16, NormEps: 1e-5, RopeTheta: 10000}
	w, err := model.RandomWeights(c, 3, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, req, _, proof := proveModel[bn254fr.Element](t, m, []int{5, 9, 2}, 3, 8)
	if err := Verify[bn254fr.Element](m, st, req, proof); err != nil {
		t.Fatalf("honest Llama proof rejected: %v", err)
	}
	for i, values := range proof.Tensors {
		values[0]++
		if err := Verify[bn254fr.Element](m, st, req, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("tensor %d changed: %v", i, err)
		}
		values[0]--
	}
}

// TestBucket: one bucket serves requests of several lengths; a proof is
// refused as one of another bucket, with a token moved from the output
// to the prompt (the same pass tokens, another statement) and with a
// live row's argmax changed under a statement made for it.
func TestBucket(t *testing.T) {
	m := model.Default()
	for _, c := range []struct{ prompt, tokens int }{{1, 8}, {5, 3}, {8, 1}} {
		prompt := []int{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}[:c.prompt]
		_, st, req, proof := proveDefault[bn254fr.Element](t, prompt, c.tokens, 8)
		if err := Verify[bn254fr.Element](m, st, req, proof); err != nil {
			t.Fatalf("%d + %d tokens in bucket 8: %v", c.prompt, c.tokens, err)
		}
	}
	_, st, req, proof := proveDefault[bn254fr.Element](t, []int{'o', 'k'}, 3, 8)
	other := req
	other.Rows = 16
	if err := Verify[bn254fr.Element](m, st, other, proof); !errors.Is(err, ErrRejected) {
		t.Errorf("verified as a proof of bucket 16: %v", err)
	}
	moved := statement.Request{Prompt: append(append([]int(nil), req.Prompt...), req.Output[0]), Output: req.Output[1:], Rows: 8}
	movedSt, err := statement.Of[bn254fr.Element](m.ID(), moved.Prompt, moved.Output)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify[bn254fr.Element](m, movedSt, moved, proof); !errors.Is(err, ErrRejected) {
		t.Errorf("a token moved from the output to the prompt: %v", err)
	}
	wrong := req
	wrong.Output = append([]int(nil), req.Output...)
	wrong.Output[1] = (wrong.Output[1] + 1) % 256
	wrongSt, err := statement.Of[bn254fr.Element](m.ID(), wrong.Prompt, wrong.Output)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify[bn254fr.Element](m, wrongSt, wrong, proof); !errors.Is(err, ErrRejected) {
		t.Errorf("a live row's argmax changed: %v", err)
	}
}
