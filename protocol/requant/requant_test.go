package requant

import (
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
)

// instance requantizes random accumulators with the model's rule.
func instance(t testing.TB, rng *rand.Rand, shape []int, perColumn bool) (s Spec, acc, out, rem []int64) {
	s = Spec{Shape: shape, Shift: 24, OutLo: -(1<<15 - 1), OutHi: 1<<15 - 1}
	cols := shape[len(shape)-1]
	if perColumn {
		for range cols {
			s.Multiplier = append(s.Multiplier, 1<<19+rng.Int64N(1<<19))
		}
	} else {
		s.Multiplier = []int64{1<<19 + 12345}
	}
	n := s.Size()
	acc, out, rem = make([]int64, n), make([]int64, n), make([]int64, n)
	for i := range acc {
		acc[i] = rng.Int64N(1<<19) - 1<<18
		var ok bool
		out[i], rem[i], ok = model.Requantize(acc[i], s.Multiplier[i%len(s.Multiplier)], s.Shift)
		if !ok {
			t.Fatal("requantize")
		}
	}
	return s, acc, out, rem
}

func testEvaluateAcc[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, shape := range [][]int{{5, 3}, {1}, {2, 3, 7}, {16}} {
		for _, perColumn := range []bool{false, true} {
			s, acc, out, rem := instance(t, rng, shape, perColumn)
			_, total, _ := poly.TensorVars(shape)
			point := field.RandomVector[E, P](rng, total)
			got, err := EvaluateAcc[E, P](&s, out, rem, point)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := poly.EvaluateTensor[E, P](acc, shape, point)
			if !P(&got).Equal(&want) {
				t.Fatalf("shape %v: accumulator MLE differs", shape)
			}
		}
	}
}

func TestEvaluateAcc(t *testing.T) {
	t.Run("bn254", testEvaluateAcc[bn254fr.Element])
	t.Run("bls12-377", testEvaluateAcc[bls12377fr.Element])
}

// TestSpecValidate: malformed specs are refused.
func TestSpecValidate(t *testing.T) {
	for _, bad := range []Spec{
		{Shape: []int{2}, Multiplier: []int64{1, 2, 3}, Shift: 3, OutHi: 1},
		{Shape: []int{2}, Multiplier: []int64{0}, Shift: 3, OutHi: 1},
		{Shape: []int{2}, Multiplier: []int64{1}, Shift: 0, OutHi: 1},
		{Shape: []int{2}, Multiplier: []int64{1}, Shift: 63, OutHi: 1},
		{Shape: []int{0}, Multiplier: []int64{1}, Shift: 3, OutHi: 1},
		{Shape: []int{2}, Multiplier: []int64{1}, Shift: 3, OutLo: 2, OutHi: 1},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("spec %+v accepted", bad)
		}
	}
}
