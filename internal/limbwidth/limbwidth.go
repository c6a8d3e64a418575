// Package limbwidth lets the tests of both verifiers of a committed
// segment proof (inference/committed natively, gadgets/committed in the
// circuit) fix the width of the range-check limbs that a layout would
// otherwise choose from its sizes (committed.Layout.LimbBits). The small
// models of the tests choose 15-bit limbs; the tests set Force to 16 to
// prove and verify the width that GPT-2 small's segments choose. It is
// not on the product path: nothing outside tests sets it, and a prover
// and a verifier that disagreed on it would only reject.
package limbwidth

// Force is the limb width every layout takes when it is not 0.
var Force int
