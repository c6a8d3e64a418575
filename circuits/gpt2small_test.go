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

// BenchmarkGPT2SmallSegments compiles the first, a middle and the last
// one-block segment circuit of a GPT-2-small-shaped model (12 blocks,
// d = 768, V = 50,257, random weights) for a pass of 4 rows (3 prompt
// tokens, 2 generated) on BLS12-377 and reports their sizes as metrics.
// The middle blocks are all the same circuit, so the three give the whole
// aggregated shape. Each compilation takes minutes and several GB. Run it
// with
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
	segments := []struct {
		seg    inference.Segment
		metric string
		count  int // how many of the 12 segments share this circuit
	}{
		{inference.Segment{From: 0, To: 1}, "first-R1CS", 1},
		{inference.Segment{From: 5, To: 6}, "middle-R1CS", 10},
		{inference.Segment{From: 11, To: 12}, "last-R1CS", 1},
	}
	for b.Loop() {
		total := 0
		for _, s := range segments {
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
			n := cs.GetNbConstraints()
			b.Logf("segment %v: %d R1CS constraints on BLS12-377, %d public inputs, compiled in %v (heap %d MiB)",
				s.seg, n, cs.GetNbPublicVariables()-1, time.Since(start).Round(time.Second), ms.HeapAlloc>>20)
			b.ReportMetric(float64(n), s.metric)
			total += s.count * n
		}
		b.ReportMetric(float64(total), "all-R1CS")
	}
}
