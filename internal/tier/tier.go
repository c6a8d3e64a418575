// Package tier tells a test which tier of the test suite it runs in.
//
// The default tier is what `scripts/test.sh` runs (and CI): a cheap test
// of every property, within the suite's time budget. The full tier,
// `scripts/test.sh --full` (the build tag full), adds the heavy shapes:
// big models, large setups, and every value of the tamper walks that the
// default tier samples. Only tests import this package; it is off the
// proving path.
package tier

// Stride is the step of a tamper walk that changes the values of a proof
// one at a time: 1 (every value) in the full tier, n (every n-th value)
// in the default tier.
func Stride(n int) int {
	if Full || n < 1 {
		return 1
	}
	return n
}

// Sampled reports whether the walk of stride Stride(n) changes the i-th
// value; offset shifts the sample, so that the cases of one test together
// cover every residue.
func Sampled(i, n, offset int) bool {
	s := Stride(n)
	return (i+offset)%s == 0
}
