// Package lookup is the in-circuit twin of package
// github.com/veriformer/veriformer/lookup: it verifies a LogUp proof (GKR
// over fraction trees) of lookups into a table.Set with committed
// multiplicities, with frontend.API only, in the native verifier's
// transcript order, and returns the claims on the looked-up columns and on
// the multiplicities.
//
// The direction of conversion follows gnark's std/recursion/groth16: this
// package imports the native proof type, and [PlaceholderCommittedProof]
// sizes a circuit while [ValueOfCommittedProof] fills an assignment from a
// native proof. The native package knows nothing of circuits.
//
// # Table sets and committed multiplicities
//
// [VerifyCommitted] is the twin of the native VerifyCommitted: lookups
// into a table.Set (a table-id column, closed-form columns) with the
// multiplicities committed; the caller passes the commitment digest,
// absorbed before β and α, and receives the claims on the lookup columns
// (id first) and on the multiplicities' MLE at the table tree's leaf
// point ([CommittedClaims]), to be proven by the later opening. Nothing is
// proportional to the table size except dense table columns: the set's
// columns cost O(T·k) multiplications, and a dense column of 2ᵏ rows
// about 2ᵏ⁻¹ more (its first fold is linear in the constants). With
// native.WithTableClaims (the same option on both sides) the
// dense columns are claims instead ([CommittedClaims].Tables, the proof's
// TableEvals), for the caller to prove against fixed commitments: on a
// set with a 2¹⁶-row function table and a 15-bit range, 2⁸ lookups cost
// 159,873 R1CS instead of 192,449. Tested with the native verifier on
// the same proofs: both accept, return the same claims, and reject every
// proof element, the table values included, changed.
//
// # Cost
//
// testdata/committed_constraints.csv holds BLS12-377 counts; go test -run
// TestCommittedConstraintCounts -large -v ./gadgets/lookup also compiles
// the large rows. Measured on BLS12-377 with a set of 2¹⁶ rows (15-, 14-,
// 8- and 4-bit ranges and a dense 2¹⁰-row function table): 2⁸ lookups
// 146,669 R1CS; 2¹⁶ lookups 227,753; 2²⁰ lookups 286,655. From these
// differences a degree-3 GKR round costs ≈ 765 R1CS and each GKR layer
// another ≈ 1,340 (eq, the layer summand, absorbing four values, λ, γ);
// gadgets/sumcheck's Verify alone measures 763 R1CS per degree-3 round on
// BLS12-377 ((7,058 − 954)/8 over 9 and 1 rounds).
package lookup
