//go:build full

package pipeline

import (
	"math/big"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	bw6761fr "github.com/consensys/gnark-crypto/ecc/bw6-761/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/statement"
)

// TestCommittedChain (full tier) runs the aggregated design's stages over
// committed tensors on the built-in micro model, as RunAggregated does,
// up to the aggregator: the segment circuit's real Groth16 keys, the
// native segment proof, its Groth16 proof verified, and the committed
// aggregator compiled and solved on that real witness. The aggregator
// refuses a statement with any value changed, the segment proof with a
// point changed, and the opening's points moved. The default tier's
// TestRunAggregated (package test) proves the same chain to the wrapper
// with a real aggregator proof; recursion's TestCommittedAggregator
// (full tier) refuses more changes on the default model's two segments.
func TestCommittedChain(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	opts := &AggregatedOptions{Options: Options{Model: m, Prompt: []int{'H', 'i'}, Tokens: 2, Log: logWriter{t}, CacheDir: t.TempDir()}}
	if err := opts.checkRun(); err != nil {
		t.Fatal(err)
	}
	if err := opts.defaults(); err != nil {
		t.Fatal(err)
	}
	r := &runner{opts: &opts.Options, report: &Report{Prompt: opts.Prompt}}
	rows, err := opts.rows(len(opts.Prompt), opts.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	req, tr, err := inference.Generate(m, opts.Prompt, opts.Tokens, rows)
	output := req.Output
	if err != nil {
		t.Fatal(err)
	}
	gen, err := m.Generate(opts.Prompt, opts.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(output, gen.Tokens) {
		t.Fatalf("proven output %v, the greedy generation's %v", output, gen.Tokens)
	}
	cat, err := r.catalog(Aggregated, opts, len(opts.Prompt), len(output), func(size int) (*pcs.SRS, error) {
		return r.loadSRS(opts, size)
	})
	if err != nil {
		t.Fatal(err)
	}
	k := &AggregatedKeys{Catalog: cat, Segments: cat.Segments}
	if err := r.setupSegments(opts, k); err != nil {
		t.Fatal(err)
	}
	st, _, segments, err := r.proveSegments(opts, k, req, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.ModelID.Cmp(k.ModelID) != 0 {
		t.Fatalf("the statement's model id %#x, the keys' %#x", st.ModelID, k.ModelID)
	}

	key := gpcs.KeyOf(k.Committed.PCS)
	layout := []recursion.PassShape{recursion.RequestPass(k.Shapes)}
	ccs, err := r.compileAggregator(opts.CacheDir, layout, key)
	if err != nil {
		t.Fatal(err)
	}
	solve := func(segments []recursion.SegmentProof, st statement.Statement) error {
		a, err := recursion.AggregatorAssignment(layout, key, st.List(), []recursion.PassWitness{{Statement: st, Segments: segments}})
		if err != nil {
			return err
		}
		w, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
		if err != nil {
			return err
		}
		return ccs.IsSolved(w)
	}
	if err := solve(segments, st); err != nil {
		t.Fatalf("the aggregator on the honest segment proof: %v", err)
	}
	one := big.NewInt(1)
	for name, wrong := range map[string]statement.Statement{
		"model id":      {ModelID: new(big.Int).Add(st.ModelID, one), InputDigest: st.InputDigest, OutputDigest: st.OutputDigest},
		"input digest":  {ModelID: st.ModelID, InputDigest: new(big.Int).Add(st.InputDigest, one), OutputDigest: st.OutputDigest},
		"output digest": {ModelID: st.ModelID, InputDigest: st.InputDigest, OutputDigest: new(big.Int).Add(st.OutputDigest, one)},
	} {
		if err := solve(segments, wrong); err == nil {
			t.Errorf("the aggregator accepts the segment proof for a wrong %s", name)
		}
	}
	_, _, g1, _ := bls12377.Generators()
	moved := func(p sw_bls12377.G1Affine) sw_bls12377.G1Affine {
		var q bls12377.G1Affine
		q.X.SetBigInt(toBig(t, p.X))
		q.Y.SetBigInt(toBig(t, p.Y))
		q.Add(&q, &g1)
		return sw_bls12377.NewG1Affine(q)
	}
	for name, tamper := range map[string]func(s *recursion.SegmentProof){
		"the segment proof's Ar":  func(s *recursion.SegmentProof) { s.Proof.Ar = moved(s.Proof.Ar) },
		"the segment proof's Krs": func(s *recursion.SegmentProof) { s.Proof.Krs = moved(s.Proof.Krs) },
		"a commitment": func(s *recursion.SegmentProof) {
			s.Commitments = slices.Clone(s.Commitments)
			s.Commitments[0] = moved(s.Commitments[0])
		},
		"a fold": func(s *recursion.SegmentProof) {
			s.Folds = slices.Clone(s.Folds)
			s.Folds[0] = moved(s.Folds[0])
		},
		"the quotient": func(s *recursion.SegmentProof) { s.Quotient = moved(s.Quotient) },
	} {
		bad := slices.Clone(segments)
		tamper(&bad[0])
		if err := solve(bad, st); err == nil {
			t.Errorf("the aggregator accepts the segment with %s changed", name)
		}
	}
}

// toBig reads an assigned coordinate.
func toBig(t *testing.T, v frontend.Variable) *big.Int {
	t.Helper()
	switch x := v.(type) {
	case *big.Int:
		return x
	case big.Int:
		return &x
	case bw6761fr.Element:
		return x.BigInt(new(big.Int))
	case *bw6761fr.Element:
		return x.BigInt(new(big.Int))
	}
	t.Fatalf("a coordinate of type %T", v)
	return nil
}

// logWriter sends a run's progress lines to the test's log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
