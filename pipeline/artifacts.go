package pipeline

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/consensys/gnark/backend/groth16"
)

// WriteArtifacts writes a run's outputs to dir: the proof the run ends
// with and what checks it ([VerifyArtifacts]: list.json, and proof.bin
// with proof.vk, or an aggregated run's aggregate.bin, aggregator.vk and
// deployment.json), native-proof.bin (the direct design's sum-check proof,
// inference.FormatVersion), statement.json, and with the chain
// stage Verifier.sol, Verifier.abi.json, Verifier.bin, InferenceRegistry.abi.json,
// InferenceRegistry.bin.
func WriteArtifacts(dir string, r *Report) error {
	files := map[string][]byte{}
	if err := proofFiles(files, r); err != nil {
		return err
	}
	if r.NativeProof != nil {
		files["native-proof.bin"] = r.NativeProof
	}
	digest, err := r.Statement.Digest()
	if err != nil {
		return err
	}
	st, err := json.MarshalIndent(map[string]any{
		"modelId":         fmt.Sprintf("%#x", r.Statement.ModelID),
		"inputDigest":     fmt.Sprintf("%#x", r.Statement.InputDigest),
		"outputDigest":    fmt.Sprintf("%#x", r.Statement.OutputDigest),
		"statementDigest": fmt.Sprintf("%#x", digest),
		"prompt":          r.Prompt,
		"output":          r.Output,
	}, "", "  ")
	if err != nil {
		return err
	}
	files["statement.json"] = append(st, '\n')
	if c := r.Contracts; c != nil {
		files["Verifier.sol"] = []byte(c.VerifierSource)
		files["Verifier.abi.json"] = []byte(c.Verifier.ABIJSON)
		files["Verifier.bin"] = []byte(hex.EncodeToString(c.Verifier.Bytecode) + "\n")
		files["InferenceRegistry.abi.json"] = []byte(c.Registry.ABIJSON)
		files["InferenceRegistry.bin"] = []byte(hex.EncodeToString(c.Registry.Bytecode) + "\n")
	}
	return writeFiles(dir, files)
}

// addProof adds proof.bin, gnark's binary encoding of a final proof, to
// files (nothing without a proof).
func addProof(files map[string][]byte, p groth16.Proof) error {
	if p == nil {
		return nil
	}
	var proof bytes.Buffer
	if _, err := p.WriteTo(&proof); err != nil {
		return err
	}
	files["proof.bin"] = proof.Bytes()
	return nil
}
