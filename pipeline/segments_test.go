package pipeline

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/setup"
)

func TestParseDesign(t *testing.T) {
	for in, want := range map[string]Design{"": Direct, "direct": Direct, "aggregated": Aggregated} {
		if got, err := ParseDesign(in); err != nil || got != want {
			t.Errorf("ParseDesign(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"opened", "committed", "Direct"} {
		if _, err := ParseDesign(in); err == nil {
			t.Errorf("ParseDesign(%q) accepted", in)
		}
	}
}

// TestLoadSRS: a development SRS is made once and read back from the
// cache (same τ: same commitments, so the same model id); ceremony keys
// refuse it.
func TestLoadSRS(t *testing.T) {
	opts := &AggregatedOptions{Options: Options{CacheDir: t.TempDir()}}
	r := &runner{opts: &opts.Options, report: &Report{}}
	if s, err := r.cachedSRS(opts, 16); err != nil || s != nil {
		t.Fatalf("an empty cache gives %v, %v", s, err)
	}
	first, err := r.loadSRS(opts, 16)
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.cachedSRS(opts, 16)
	if err != nil || again == nil {
		t.Fatalf("the cached SRS: %v, %v", again, err)
	}
	if first.Hash() != again.Hash() {
		t.Error("the cached development SRS differs from the one made")
	}
	opts.KeyKind = setup.Ceremony
	if _, err := r.loadSRS(opts, 16); err == nil {
		t.Error("a development SRS accepted with ceremony keys")
	}
	opts.SRS = "no such ceremony file"
	if _, err := r.loadSRS(opts, 16); err == nil {
		t.Error("a missing ceremony file accepted")
	}
}

// TestVocabChunks: chunks of the LM head cut the pass after its blocks
// (the last without the LM head) and are refused with opened tensors or
// a negative width; each chunk's segment gets a circuit name of its own.
func TestVocabChunks(t *testing.T) {
	m := model.Default()
	segs, err := aggregatedSegments(m, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []inference.Segment{
		{From: 0, To: 1}, {From: 1, To: 2, NoHead: true},
		{From: 2, To: 2, VocabFrom: 0, VocabTo: 100}, {From: 2, To: 2, VocabFrom: 100, VocabTo: 200}, {From: 2, To: 2, VocabFrom: 200, VocabTo: 256},
	}
	if !slices.Equal(segs, want) {
		t.Fatalf("segments %v, want %v", segs, want)
	}
	for i, want := range map[int]string{1: "segment 2/5 (blocks 1–1, without the LM head)", 3: "segment 4/5 (LM head, vocabulary 100–199)"} {
		if name := segmentName(i, segs); name != want {
			t.Errorf("name %q, want %q", name, want)
		}
	}
	for _, opts := range []AggregatedOptions{
		{Options: Options{Model: m}, VocabChunk: -1},
	} {
		if err := opts.defaults(); err == nil {
			t.Errorf("options %+v accepted", opts)
		}
	}
	ok := AggregatedOptions{Options: Options{Model: m}, VocabChunk: 100}
	if err := ok.defaults(); err != nil {
		t.Errorf("chunks of 100 columns: %v", err)
	}
}

// TestNativeJobs: two segments at once only when the two largest
// estimated peaks fit the memory left, with two segments and two cores;
// a negative count is refused.
func TestNativeJobs(t *testing.T) {
	const gib = uint64(1) << 30
	for _, c := range []struct {
		sizes  []uint64
		budget uint64
		procs  int
		want   int
	}{
		{[]uint64{gib, 3 * gib, 2 * gib}, 5 * gib, 2, 2},
		{[]uint64{gib, 3 * gib, 2 * gib}, 5*gib - 1, 2, 1},
		{[]uint64{gib, 3 * gib, 2 * gib}, 5 * gib, 1, 1},
		{[]uint64{gib}, 5 * gib, 2, 1},
		{nil, 5 * gib, 2, 1},
		{[]uint64{math.MaxUint64, 2}, math.MaxUint64, 2, 1},
	} {
		if got := nativeJobs(c.sizes, c.budget, c.procs); got != c.want {
			t.Errorf("sizes %v, budget %d, %d cores: %d jobs, want %d", c.sizes, c.budget, c.procs, got, c.want)
		}
	}
	opts := AggregatedOptions{Options: Options{Model: model.Default()}, NativeJobs: -1}
	if err := opts.defaults(); err == nil {
		t.Error("a negative count of native jobs accepted")
	}
}

// TestCircuits: the catalog lists the direct circuit, or each segment's,
// the aggregator's and (with Wrap) the wrapper's, on their curves, without
// compiling anything; the aggregator refuses to compile without an SRS.
func TestCircuits(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	opts := AggregatedOptions{Options: Options{Model: m, Tokens: 2, CacheDir: t.TempDir()}, VocabChunk: 100}
	direct, err := Circuits(Direct, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(direct.Circuits) != 1 || direct.Circuits[0].Kind != "direct" || direct.Circuits[0].Curve != ecc.BN254 || direct.Layout == nil {
		t.Fatalf("direct catalog %+v", direct.Circuits)
	}
	opts.Wrap = true
	agg, err := Circuits(Aggregated, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range agg.Circuits {
		kinds = append(kinds, c.Kind+"/"+c.Curve.String())
	}
	want := []string{"segment/bls12_377", "segment/bls12_377", "segment/bls12_377", "segment/bls12_377", "aggregator/bw6_761", "wrapper/bn254"}
	if !slices.Equal(kinds, want) || len(agg.Segments) != 4 || len(agg.Shapes) != 4 {
		t.Fatalf("aggregated catalog %v, want %v", kinds, want)
	}
	if _, err := agg.Circuits[4].Compile(); err == nil || !strings.Contains(err.Error(), "SRS") {
		t.Fatalf("the aggregator compiled without an SRS: %v", err)
	}
	if _, err := Circuits(Direct, opts, 0); err == nil {
		t.Fatal("a catalog for an empty prompt")
	}
}
