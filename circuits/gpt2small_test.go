package circuits

import (
	"runtime"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
)

// BenchmarkGPT2SmallSegments compiles one-block segment circuits of a
// GPT-2-small-shaped model (12 blocks, d = 768, V = 50,257, random
// weights) for a pass of 4 rows (3 prompt tokens, 2 generated) on
// BLS12-377 and reports their sizes as metrics: the first (the embedding
// and block 0), a middle block (blocks 1 to 10 are all this circuit) and
// the last (block 11, the final norm, the LM head and the argmax over the
// vocabulary). Run it with
//
//	go test ./circuits -run '^$' -bench GPT2SmallSegments -benchtime 1x -timeout 60m
func BenchmarkGPT2SmallSegments(b *testing.B) {
	c := model.GPT2SmallConfig(64)
	w, err := model.RandomWeights(c, 1, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	m, err := model.New(c, w, nil)
	if err != nil {
		b.Fatal(err)
	}
	layout, err := NewLayout(m, 3, 2)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []struct {
		name string
		seg  inference.Segment
	}{
		{"first", inference.Segment{From: 0, To: 1}},
		{"middle", inference.Segment{From: 5, To: 6}},
		{"last", inference.Segment{From: 11, To: 12}},
	} {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				placeholder, err := layout.SegmentPlaceholder(s.seg)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				cs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, placeholder)
				if err != nil {
					b.Fatal(err)
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.Logf("segment %v: %d R1CS constraints on BLS12-377, %d public inputs, compiled in %v (heap %d MiB)",
					s.seg, cs.GetNbConstraints(), cs.GetNbPublicVariables()-1, time.Since(start).Round(time.Second), ms.HeapAlloc>>20)
				b.ReportMetric(float64(cs.GetNbConstraints()), "R1CS")
			}
		})
	}
}
