package committed

import (
	"flag"
	"runtime"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/inference"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
)

var (
	gpt2Small = flag.Bool("committed.gpt2small", false, "compile the segment circuits of GPT-2 small's shape (random weights) and report their sizes")
	gpt2Rows  = flag.Int("committed.rows", 16, "rows of the GPT-2-small pass's bucket (the request: half of them prompt tokens, half generated, its pass one row less)")
	gpt2Block = flag.Bool("committed.blockonly", false, "with -committed.gpt2small: compile a middle block's segment only")
	gpt2Cut   = flag.Int("committed.blocks", 1, "with -committed.gpt2small: blocks per segment; above 1, compile a middle segment of that many blocks and the LM head in a segment of its own (prove's --segment-size N --vocab-chunk 50257)")
)

// TestGPT2SmallSegments compiles the committed segment circuits of a
// GPT-2-small-shaped model (its exact shape, random weights) over a pass
// of -committed.rows rows: the first segment (embedding and block 0), a
// middle block and the last segment (block 11, the LM head and the
// argmax), and logs their constraint counts; with -committed.blocks=k
// above 1, a middle segment of k blocks and the LM head in a segment of
// its own instead (the cut of docs/measurements.md, "Cuts of the pass").
// Only the shapes are needed, no proof. Behind -committed.gpt2small
// (minutes, several GB).
func TestGPT2SmallSegments(t *testing.T) {
	if !*gpt2Small {
		t.Skip("set -committed.gpt2small to compile GPT-2 small's segment circuits")
	}
	m, err := model.Builtin(model.GPT2SmallRandom)
	if err != nil {
		t.Fatal(err)
	}
	half := *gpt2Rows / 2
	pass := native.Pass{Rows: *gpt2Rows}
	for i := range half {
		pass.Prompt = append(pass.Prompt, 100+i)
		pass.Output = append(pass.Output, 200+i)
	}
	view, err := inference.ShapePass(m, len(pass.Tokens()))
	if err != nil {
		t.Fatal(err)
	}
	n := len(view.Layers)
	segs := []inference.Segment{{From: 1, To: 2}, {From: 0, To: 1}, {From: n - 1, To: n}}
	if k := *gpt2Cut; k > 1 {
		if k >= n {
			t.Fatalf("-committed.blocks=%d: GPT-2 small has %d blocks", k, n)
		}
		vocab := m.Config.Vocab
		segs = []inference.Segment{{From: 1, To: 1 + k}, {From: n, To: n, VocabFrom: 0, VocabTo: vocab}}
	}
	if *gpt2Block {
		segs = segs[:1]
	}
	for _, seg := range segs {
		start := time.Now()
		s, err := native.NewShape(view, seg, pass)
		if err != nil {
			t.Fatal(err)
		}
		ph, err := newSegmentCircuit(m, s)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, ph)
		if err != nil {
			t.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		t.Logf("GPT-2 small, %d rows, segment %v: %d R1CS, %d public inputs, stacked MLE 2^%d, opening 2^%d; compiled in %v (heap %d MB)",
			len(pass.Tokens()), seg, cs.GetNbConstraints(), cs.GetNbPublicVariables()-1, s.Layout.NbVars, s.OpeningVars(), time.Since(start).Round(time.Second), ms.HeapAlloc>>20)
	}
}
