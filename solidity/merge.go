package solidity

import (
	"fmt"
	"strings"

	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
)

// Template selects the Solidity verifier exported for a verifying key.
type Template int

const (
	// Merged is gnark's exported verifier with verifyProof changed to check
	// the Pedersen commitment's proof of knowledge in the same pairing call
	// as the Groth16 equation (see [mergeCommitmentCheck]). For a key without
	// a commitment it is gnark's verifier unchanged.
	Merged Template = iota
	// Gnark is gnark's exported verifier unchanged: the proof of knowledge
	// is checked by a separate pairing call.
	Gnark
)

// String names the template as the --verifier flag of the commands does.
// Other returns the template measured beside t: Gnark for Merged, Merged
// for Gnark.
func (t Template) Other() Template {
	if t == Gnark {
		return Merged
	}
	return Gnark
}

func (t Template) String() string {
	switch t {
	case Merged:
		return "merged"
	case Gnark:
		return "gnark"
	default:
		return fmt.Sprintf("Template(%d)", int(t))
	}
}

// ParseTemplate reads a template name ("merged" or "gnark").
func ParseTemplate(name string) (Template, error) {
	for _, t := range []Template{Merged, Gnark} {
		if t.String() == name {
			return t, nil
		}
	}
	return 0, fmt.Errorf("solidity: unknown verifier template %q (want merged or gnark)", name)
}

// The pieces of gnark's exported verifyProof (one commitment) that
// mergeCommitmentCheck replaces. Each must occur exactly once after the
// start of verifyProof; a gnark version that exports anything else makes
// the export fail instead of producing a verifier nobody reviewed.
const (
	verifyProofStart = "    function verifyProof(\n"

	gnarkPedersenCheck = `        // Verify pedersen commitments
        bool success;
        assembly ("memory-safe") {
            let f := mload(0x40)

            calldatacopy(f, add(proof.offset, 0x100), 0x40) // Copy first commitment
            mstore(add(f, 0x40), PEDERSEN_GSIGMANEG_X_1)
            mstore(add(f, 0x60), PEDERSEN_GSIGMANEG_X_0)
            mstore(add(f, 0x80), PEDERSEN_GSIGMANEG_Y_1)
            mstore(add(f, 0xa0), PEDERSEN_GSIGMANEG_Y_0)
            calldatacopy(add(f, 0xc0), add(proof.offset, 0x140), 0x40) // Copy PoK
            mstore(add(f, 0x100), PEDERSEN_G_X_1)
            mstore(add(f, 0x120), PEDERSEN_G_X_0)
            mstore(add(f, 0x140), PEDERSEN_G_Y_1)
            mstore(add(f, 0x160), PEDERSEN_G_Y_0)

            success := staticcall(gas(), PRECOMPILE_VERIFY, f, 0x180, f, 0x20)
            success := and(success, mload(f))
        }
        if (!success) {
            revert CommitmentInvalid();
        }
`

	gnarkMSMCall = `        (uint256 x, uint256 y) = publicInputMSM(
            input,
            publicCommitments,
            commitments
        );
`

	gnarkPairingCall = `            mstore(add(f, 0x2e0), GAMMA_NEG_Y_0)

            // Check pairing equation.
            success := staticcall(gas(), PRECOMPILE_VERIFY, f, 0x300, f, 0x20)
`
)

// mergedPedersenCheck replaces gnarkPedersenCheck: it derives the challenge
// rho and scales the commitment D and its proof of knowledge by it. With
// foldPoK, the scaled proof of knowledge is stored negated, to be added to
// the public-input point (its G2 point is γ).
func mergedPedersenCheck(nbPublic int, foldPoK bool) string {
	negate := ""
	if foldPoK {
		negate = `
            // -(rho·PoK), added to L_pub below: e(L_pub, -γ)·e(rho·PoK, γ) = e(L_pub - rho·PoK, -γ)
            mstore(add(pok, 0x60), mod(sub(P, mload(add(pok, 0x60))), P))`
	}
	return fmt.Sprintf(`        // Pedersen proof of knowledge e(D, GSigmaNeg)·e(PoK, G) = 1, checked in
        // the pairing call below raised to the power rho, a challenge derived
        // by keccak256 from the whole proof (A, B, C, D, PoK) and the public
        // inputs (Fiat–Shamir). rho = 0 would drop the check: rejected.
        uint256[4] memory pok; // rho·D, rho·PoK
        bool success;
        assembly ("memory-safe") {
            let f := mload(0x40)
            calldatacopy(f, proof.offset, 0x180)
            calldatacopy(add(f, 0x180), input, %#x)
            let rho := mod(keccak256(f, %#x), R)
            success := gt(rho, 0)
            calldatacopy(f, add(proof.offset, 0x100), 0x40) // D
            mstore(add(f, 0x40), rho)
            success := and(success, staticcall(gas(), PRECOMPILE_MUL, f, 0x60, pok, 0x40))
            calldatacopy(f, add(proof.offset, 0x140), 0x40) // PoK
            mstore(add(f, 0x40), rho)
            success := and(success, staticcall(gas(), PRECOMPILE_MUL, f, 0x60, add(pok, 0x40), 0x40))%s
        }
        if (!success) {
            revert ProofInvalid();
        }
`, 32*nbPublic, 0x180+32*nbPublic, negate)
}

// foldedMSMCall replaces gnarkMSMCall when the proof of knowledge is folded
// into the public-input pair: L_pub − rho·PoK.
const foldedMSMCall = gnarkMSMCall + `        assembly ("memory-safe") {
            let f := mload(0x40)
            mstore(f, x)
            mstore(add(f, 0x20), y)
            mstore(add(f, 0x40), mload(add(pok, 0x40)))
            mstore(add(f, 0x60), mload(add(pok, 0x60)))
            success := staticcall(gas(), PRECOMPILE_ADD, f, 0x80, f, 0x40)
            x := mload(f)
            y := mload(add(f, 0x20))
        }
        if (!success) {
            revert ProofInvalid();
        }
`

// mergedPairingCall replaces gnarkPairingCall: the pairs of the proof of
// knowledge appended to the four Groth16 pairs.
func mergedPairingCall(foldPoK bool) string {
	pairs := `            mstore(add(f, 0x2e0), GAMMA_NEG_Y_0)
            // e(rho·D, GSigmaNeg)
            mstore(add(f, 0x300), mload(pok))
            mstore(add(f, 0x320), mload(add(pok, 0x20)))
            mstore(add(f, 0x340), PEDERSEN_GSIGMANEG_X_1)
            mstore(add(f, 0x360), PEDERSEN_GSIGMANEG_X_0)
            mstore(add(f, 0x380), PEDERSEN_GSIGMANEG_Y_1)
            mstore(add(f, 0x3a0), PEDERSEN_GSIGMANEG_Y_0)
`
	if foldPoK {
		return pairs + `
            // Check pairing equation: five pairs (the PoK's is folded into L_pub's).
            success := staticcall(gas(), PRECOMPILE_VERIFY, f, 0x3c0, f, 0x20)
`
	}
	return pairs + `            // e(rho·PoK, G)
            mstore(add(f, 0x3c0), mload(add(pok, 0x40)))
            mstore(add(f, 0x3e0), mload(add(pok, 0x60)))
            mstore(add(f, 0x400), PEDERSEN_G_X_1)
            mstore(add(f, 0x420), PEDERSEN_G_X_0)
            mstore(add(f, 0x440), PEDERSEN_G_Y_1)
            mstore(add(f, 0x460), PEDERSEN_G_Y_0)

            // Check pairing equation: six pairs.
            success := staticcall(gas(), PRECOMPILE_VERIFY, f, 0x480, f, 0x20)
`
}

// mergedNotice is inserted before the contract: what differs from gnark's
// template.
const mergedNotice = `/// @notice verifyProof is gnark's, with one change: the Pedersen commitment's
/// proof of knowledge is not checked by a pairing call of its own but in the
/// Groth16 pairing call, raised to a power rho derived by keccak256 from the
/// proof and the public inputs (a random linear combination of the two
/// checks). verifyCompressedProof and compressProof are gnark's unchanged.
`

// FoldsProofOfKnowledge reports whether the merged verifier of key folds
// the proof of knowledge's pair into the public-input pair, which it does
// when the commitment key's G2 point is the key's γ (as in keys from gnark's
// MPC ceremony, where both are the G2 generator): five pairs instead of six.
func FoldsProofOfKnowledge(key *groth16bn254.VerifyingKey) bool {
	return len(key.CommitmentKeys) == 1 && key.CommitmentKeys[0].G.Equal(&key.G2.Gamma)
}

// mergeCommitmentCheck turns gnark's exported source for key (one
// commitment, nbPublic public inputs besides it) into the merged verifier.
//
// gnark checks e(A, B)·e(C, −δ)·e(α, −β)·e(L, −γ) = 1 (four pairs) and
// e(D, −σG)·e(PoK, G) = 1 (two pairs, another call). The merged verifier
// checks their product with the second raised to rho: one call of six
// pairs, or five when G = γ. Both sides of every pairing are the same
// points gnark pairs, so a gnark upgrade that changes neither the layout of
// the proof nor these pieces of source regenerates the verifier unchanged;
// one that changes them makes this function fail.
func mergeCommitmentCheck(source string, key *groth16bn254.VerifyingKey, nbPublic int) (string, error) {
	start := strings.Index(source, verifyProofStart)
	if start < 0 || strings.Count(source, verifyProofStart) != 1 {
		return "", fmt.Errorf("solidity: gnark's exported verifier has no single verifyProof function; the merged template does not know this gnark version")
	}
	head, body := source[:start], source[start:]
	fold := FoldsProofOfKnowledge(key)
	msm := gnarkMSMCall
	if fold {
		msm = foldedMSMCall
	}
	for _, r := range []struct{ name, old, new string }{
		{"the commitment check", gnarkPedersenCheck, mergedPedersenCheck(nbPublic, fold)},
		{"the public-input MSM call", gnarkMSMCall, msm},
		{"the pairing call", gnarkPairingCall, mergedPairingCall(fold)},
	} {
		if n := strings.Count(body, r.old); n != 1 {
			return "", fmt.Errorf("solidity: %s occurs %d times in gnark's exported verifyProof, want 1; the merged template does not know this gnark version", r.name, n)
		}
		body = strings.Replace(body, r.old, r.new, 1)
	}
	const contract = "contract Verifier"
	if strings.Count(head, contract) != 1 {
		return "", fmt.Errorf("solidity: gnark's exported verifier has no single contract Verifier")
	}
	head = strings.Replace(head, contract, mergedNotice+contract, 1)
	return head + body, nil
}
