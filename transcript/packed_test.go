package transcript

import (
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

func TestLayout(t *testing.T) {
	for _, tc := range []struct {
		lo, hi     int64
		bits, per  int
		fieldBits  int
		shouldFail bool
	}{
		{0, 255, 8, 31, 254, false},
		{-32767, 32767, 16, 15, 254, false},
		{-(1<<20 - 1), 1<<20 - 1, 21, 12, 253, false},
		{5, 5, 1, 252, 253, false},
		{1, 0, 0, 0, 254, true},
		{-(1 << 62), 1 << 62, 0, 0, 254, true},
	} {
		l, err := Layout(tc.lo, tc.hi, tc.fieldBits)
		if tc.shouldFail {
			if err == nil {
				t.Errorf("[%d, %d] accepted", tc.lo, tc.hi)
			}
			continue
		}
		if err != nil || l.Bits != tc.bits || l.PerElement != tc.per {
			t.Errorf("[%d, %d]: %+v, %v", tc.lo, tc.hi, l, err)
		}
	}
}

func TestPack(t *testing.T) {
	l, _ := Layout(-2, 4, 254) // 3 bits, 84 per element
	got, err := Pack[bn254fr.Element](l, []int64{-2, 4, 0})
	if err != nil {
		t.Fatal(err)
	}
	// (−2+2) + (4+2)·2³ + (0+2)·2⁶ = 48 + 128
	want := field.FromInt64[bn254fr.Element](176)
	if len(got) != 1 || !got[0].Equal(&want) {
		t.Fatalf("packed %v", got)
	}
	// 5 lies in [lo, lo + 2³) and is accepted (the circuit's range); −3
	// and 6 are not.
	if _, err := Pack[bn254fr.Element](l, []int64{5}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []int64{-3, 6} {
		if _, err := Pack[bn254fr.Element](l, []int64{bad}); err == nil {
			t.Errorf("%d packed in [-2, 6)", bad)
		}
	}
}

func testAbsorbPacked[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	a := New[E, P]("packed")
	if err := a.AbsorbPacked([]int64{1, 2, 3}, 0, 7); err != nil {
		t.Fatal(err)
	}
	b := New[E, P]("packed")
	if err := b.AbsorbPacked([]int64{1, 2, 4}, 0, 7); err != nil {
		t.Fatal(err)
	}
	c := New[E, P]("packed")
	if err := c.AbsorbPacked([]int64{1, 2, 3, 0}, 0, 7); err != nil {
		t.Fatal(err)
	}
	sa, sb, sc := a.State(), b.State(), c.State()
	if P(&sa).Equal(&sb) || P(&sa).Equal(&sc) {
		t.Fatal("different tensors give the same transcript state")
	}
	if err := a.AbsorbPacked([]int64{8}, 0, 7); err == nil {
		t.Fatal("out-of-range value absorbed")
	}
}

func TestAbsorbPacked(t *testing.T) {
	t.Run("bn254", testAbsorbPacked[bn254fr.Element])
	t.Run("bls12-377", testAbsorbPacked[bls12377fr.Element])
}
