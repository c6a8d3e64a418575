// Package poly is the in-circuit twin of package
// github.com/veriformer/veriformer/poly: β/eq ([Eq]), small dense MLE
// evaluation ([EvaluateDense]) and the structured MLEs, each in O(n)
// constraints for n variables, with the variable order of the native
// package (X₁ is the most significant bit of a table index).
package poly
