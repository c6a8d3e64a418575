package poly

import "github.com/consensys/gnark/frontend"

// Thermometer returns τ with τᵢ = [i < x] for i in [0, size), x a circuit
// variable, and asserts 0 ≤ x ≤ size. The one-hot vector hⱼ = [x = j] for
// j in [0, size] (api.IsZero of x − j) must sum to 1, which holds only
// for an integer x in that range; τᵢ is its suffix sum Σ_{j>i} hⱼ, free.
// About 3(size + 1) constraints.
func Thermometer(api frontend.API, x frontend.Variable, size int) []frontend.Variable {
	h := make([]frontend.Variable, size+1)
	var sum frontend.Variable = 0
	for j := range h {
		h[j] = api.IsZero(api.Sub(x, j))
		sum = api.Add(sum, h[j])
	}
	api.AssertIsEqual(sum, 1)
	tau := make([]frontend.Variable, size)
	var suffix frontend.Variable = 0
	for i := size - 1; i >= 0; i-- {
		suffix = api.Add(suffix, h[i+1])
		tau[i] = suffix
	}
	return tau
}
