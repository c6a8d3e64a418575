package field

import (
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

// The vector kernels below dispatch once per call to gnark-crypto's
// concrete vector code (AVX-512 where the CPU has it), so loops over large
// tables make no per-element indirect call. All slices of one call have the
// same length; res may alias an input.

func bn(v any) bn254fr.Vector     { return bn254fr.Vector(v.([]bn254fr.Element)) }
func bls(v any) bls12377fr.Vector { return bls12377fr.Vector(v.([]bls12377fr.Element)) }
func isBN[E Scalar](v []E) bool   { _, ok := any(v).([]bn254fr.Element); return ok }

// Add sets res[i] = a[i] + b[i].
func Add[E Scalar](res, a, b []E) {
	if isBN(res) {
		r := bn(res)
		r.Add(bn(a), bn(b))
		return
	}
	r := bls(res)
	r.Add(bls(a), bls(b))
}

// Sub sets res[i] = a[i] − b[i].
func Sub[E Scalar](res, a, b []E) {
	if isBN(res) {
		r := bn(res)
		r.Sub(bn(a), bn(b))
		return
	}
	r := bls(res)
	r.Sub(bls(a), bls(b))
}

// Mul sets res[i] = a[i] · b[i].
func Mul[E Scalar](res, a, b []E) {
	if isBN(res) {
		r := bn(res)
		r.Mul(bn(a), bn(b))
		return
	}
	r := bls(res)
	r.Mul(bls(a), bls(b))
}

// ScalarMul sets res[i] = a[i] · s.
func ScalarMul[E Scalar](res, a []E, s *E) {
	switch r := any(res).(type) {
	case []bn254fr.Element:
		v := bn254fr.Vector(r)
		v.ScalarMul(bn(a), any(s).(*bn254fr.Element))
	case []bls12377fr.Element:
		v := bls12377fr.Vector(r)
		v.ScalarMul(bls(a), any(s).(*bls12377fr.Element))
	}
}

// Sum returns Σᵢ a[i].
func Sum[E Scalar](a []E) E {
	var res E
	switch v := any(a).(type) {
	case []bn254fr.Element:
		w := bn254fr.Vector(v)
		s := w.Sum()
		*any(&res).(*bn254fr.Element) = s
	case []bls12377fr.Element:
		w := bls12377fr.Vector(v)
		s := w.Sum()
		*any(&res).(*bls12377fr.Element) = s
	}
	return res
}

// InnerProduct returns Σᵢ a[i]·b[i].
func InnerProduct[E Scalar](a, b []E) E {
	var res E
	switch v := any(a).(type) {
	case []bn254fr.Element:
		w := bn254fr.Vector(v)
		s := w.InnerProduct(bn(b))
		*any(&res).(*bn254fr.Element) = s
	case []bls12377fr.Element:
		w := bls12377fr.Vector(v)
		s := w.InnerProduct(bls(b))
		*any(&res).(*bls12377fr.Element) = s
	}
	return res
}
