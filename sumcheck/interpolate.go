package sumcheck

import "github.com/veriformer/veriformer/field"

// lagrangeWeights returns wᵢ = 1 / ∏_{j ≠ i} (i − j) = (−1)^{d−i} / (i!·(d−i)!)
// for the nodes 0, 1, …, d, in O(d) operations.
func lagrangeWeights[E field.Scalar, P field.Ptr[E]](d int) []E {
	factorial := make([]E, d+1)
	factorial[0] = field.One[E, P]()
	for k := 1; k <= d; k++ {
		v := field.FromInt64[E, P](int64(k))
		P(&factorial[k]).Mul(&factorial[k-1], &v)
	}
	w := make([]E, d+1)
	for i := range w {
		P(&w[i]).Mul(&factorial[i], &factorial[d-i])
		if (d-i)%2 == 1 {
			P(&w[i]).Neg(&w[i])
		}
		P(&w[i]).Inverse(&w[i])
	}
	return w
}

// interpolate returns p(r) for the polynomial of degree ≤ d with p(i) =
// values[i], i = 0, …, d: Σᵢ values[i] · wᵢ · ∏_{j ≠ i} (r − j), the
// products taken as prefix · suffix.
func interpolate[E field.Scalar, P field.Ptr[E]](values []E, r *E, weights []E) E {
	n := len(values)
	diffs := make([]E, n)
	for j := range diffs {
		v := field.FromInt64[E, P](int64(j))
		P(&diffs[j]).Sub(r, &v)
	}
	prefix := make([]E, n) // prefix[i] = ∏_{j < i} (r − j)
	prefix[0] = field.One[E, P]()
	for i := 1; i < n; i++ {
		P(&prefix[i]).Mul(&prefix[i-1], &diffs[i-1])
	}
	var res E
	suffix := field.One[E, P]() // ∏_{j > i} (r − j)
	for i := n - 1; i >= 0; i-- {
		var term E
		P(&term).Mul(&prefix[i], &suffix)
		P(&term).Mul(&term, &weights[i])
		P(&term).Mul(&term, &values[i])
		P(&res).Add(&res, &term)
		P(&suffix).Mul(&suffix, &diffs[i])
	}
	return res
}
