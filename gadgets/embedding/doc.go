// Package embedding checks, in a circuit, the rows of the token embedding
// against the model's constant tables: [CheckRows] asserts x[r] =
// E[tokens[r]] + P[r] for every row r of an opened tensor x, with E the
// V × w token table and P the rows' position offsets (none for Llama),
// the tokens being circuit variables that the caller binds to the
// statement.
//
// Each row is compressed with the powers of a challenge γ,
// Σⱼ (x[r][j] − P[r][j])·γʲ, and looked up (gnark's log-derivative lookup)
// among the V values Σⱼ E[v][j]·γʲ — about V + rows·w constraints instead
// of a lookup table of V·w entries; a wrong row survives with probability
// below w/|F| when γ is drawn after x and the tokens are fixed, and a
// token outside [0, V) fails the lookup. The direct circuit
// (circuits.Direct) draws γ from a fork of its transcript after every
// opened tensor is absorbed.
package embedding
