package poly

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/hugepage"
)

// TensorVars returns the number of variables of each dimension of a tensor
// padded dimension by dimension to powers of two, and their total: entry
// (i₁, …, i_t) sits at index Σ_d i_d·2^(v_{d+1} + … + v_t), so the first
// dimension takes the most significant variables.
func TensorVars(shape []int) (dims []int, total int, err error) {
	if len(shape) == 0 {
		return nil, 0, fmt.Errorf("poly: tensor with no dimension")
	}
	for d, n := range shape {
		if n <= 0 {
			return nil, 0, fmt.Errorf("poly: dimension %d of shape %v is %d", d, shape, n)
		}
		dims = append(dims, Log2Ceil(n))
		total += dims[d]
	}
	if total > 40 {
		return nil, 0, fmt.Errorf("poly: shape %v pads to 2^%d entries", shape, total)
	}
	return dims, total, nil
}

// PaddedIndices returns, for each entry of a row-major tensor of the given
// shape, its index in the padded layout of [TensorVars].
func PaddedIndices(shape []int) ([]int, error) {
	dims, _, err := TensorVars(shape)
	if err != nil {
		return nil, err
	}
	count := 1
	for _, n := range shape {
		count *= n
	}
	out := hugepage.Make[int](count)
	coord := make([]int, len(shape))
	for i := range out {
		idx := 0
		for d := range shape {
			idx = idx<<dims[d] | coord[d]
		}
		out[i] = idx
		for d := len(shape) - 1; d >= 0; d-- {
			coord[d]++
			if coord[d] < shape[d] {
				break
			}
			coord[d] = 0
		}
	}
	return out, nil
}

// PadTensor lays out integer values of the given shape in the padded
// layout of [TensorVars], zeros elsewhere, as field elements.
func PadTensor[E field.Scalar, P field.Ptr[E]](values []int64, shape []int) ([]E, error) {
	idx, err := PaddedIndices(shape)
	if err != nil {
		return nil, err
	}
	if len(values) != len(idx) {
		return nil, fmt.Errorf("poly: %d values for shape %v", len(values), shape)
	}
	_, total, _ := TensorVars(shape)
	out := hugepage.Make[E](1 << total)
	for i, v := range values {
		P(&out[idx[i]]).SetInt64(v)
	}
	return out, nil
}

// EvaluateTensor returns the MLE of the zero-padded tensor at point.
func EvaluateTensor[E field.Scalar, P field.Ptr[E]](values []int64, shape []int, point []E) (E, error) {
	table, err := PadTensor[E, P](values, shape)
	if err != nil {
		var z E
		return z, err
	}
	if len(table) != 1<<len(point) {
		var z E
		return z, fmt.Errorf("poly: shape %v evaluated at a point of %d variables", shape, len(point))
	}
	return Evaluate[E, P](table, point), nil
}

// EvaluateIndexed returns the MLE at point (nbVars = len(point)) of the
// table holding values[i] at index[i] and zeros elsewhere: the evaluation
// of an opened tensor laid out by any padding rule.
func EvaluateIndexed[E field.Scalar, P field.Ptr[E]](values []int64, index []int, point []E) (E, error) {
	var res E
	if len(values) != len(index) {
		return res, fmt.Errorf("poly: %d values for %d indices", len(values), len(index))
	}
	eq := EqTable[E, P](point)
	var t E
	for i, v := range values {
		if index[i] < 0 || index[i] >= len(eq) {
			return res, fmt.Errorf("poly: index %d outside a table of %d entries", index[i], len(eq))
		}
		if v == 0 {
			continue
		}
		P(&t).SetInt64(v)
		P(&t).Mul(&t, &eq[index[i]])
		P(&res).Add(&res, &t)
	}
	return res, nil
}
