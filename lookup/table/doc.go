// Package table describes lookup tables: 2ᵏ rows of integer tuples whose
// first (key) column is affine, so a tuple's row follows from its key.
// Both the native LogUp prover and verifier (package lookup) and the
// in-circuit verifier (gadgets/lookup) read tables from here.
package table
