package circuits

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/frontend"

	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	"github.com/veriformer/veriformer/statement"
)

// assertStatementDigest binds the direct circuit's one public input to its
// statement: StatementDigest = statement.Digest(ModelID, InputDigest,
// OutputDigest), computed with SHA-256 in circuit.
func assertStatementDigest(api frontend.API, c *Direct) error {
	digest, err := gstatement.Digest(api, c.ModelID, c.InputDigest, c.OutputDigest)
	if err != nil {
		return fmt.Errorf("circuits: %w", err)
	}
	api.AssertIsEqual(c.StatementDigest, digest)
	return nil
}

// statementAssignment returns a direct-circuit assignment holding the
// statement and its digest.
func (l *Layout) statementAssignment(st statement.Statement) (*Direct, error) {
	digest, err := st.Digest()
	if err != nil {
		return nil, fmt.Errorf("circuits: %w", err)
	}
	return &Direct{layout: l, StatementDigest: digest, ModelID: st.ModelID, InputDigest: st.InputDigest, OutputDigest: st.OutputDigest}, nil
}

// PublicWitness returns the public witness of a direct proof of the
// statement: its digest, the one public input.
func PublicWitness(st statement.Statement) (witness.Witness, error) {
	digest, err := st.Digest()
	if err != nil {
		return nil, fmt.Errorf("circuits: %w", err)
	}
	return frontend.NewWitness(&Direct{StatementDigest: digest}, ecc.BN254.ScalarField(), frontend.PublicOnly())
}
