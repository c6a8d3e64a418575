package committed

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/memlimit"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

var (
	gpt2Small  = flag.Bool("committed.gpt2small", false, "also benchmark one block of a GPT-2-small-shaped model (12 layers, d=768, random weights)")
	benchRows  = flag.Int("committed.rows", 16, "rows of the benchmarked passes")
	wholePass  = flag.Bool("committed.pass", false, "with -committed.gpt2small, prove the whole pass (the LM head in the last segment) rather than block 1")
	segBlocks  = flag.Int("committed.blocks", 1, "with -committed.pass, blocks per segment")
	benchBlock = flag.Int("committed.block", 1, "without -committed.pass, the block whose segment is proven (the last one holds the LM head and the argmax)")
	benchParts = flag.Int("committed.parts", PartVars, "variables of the committed MLEs' parts (WithPartVars)")
	chunkWidth = flag.Int("committed.chunk", 0, "with -committed.gpt2small, prove the LM head in segments of its own of this many vocabulary columns (0: in the last segment of blocks); with -committed.block=11 (no -committed.pass), block 11 alone, without the LM head")
	benchJobs  = flag.Int("committed.jobs", 1, "segments proven at once (ProveSegments)")
	headOnly   = flag.Bool("committed.head", false, "with -committed.chunk, prove only the LM head's segments")
)

// benchSRS loads (or creates once and caches in the user cache directory)
// a development SRS of size powers.
func benchSRS(b testing.TB, size int) *pcs.SRS {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	s, err := pcs.LoadOrCreateDevelopment(filepath.Join(dir, "veriformer", "committed-bench"), size, nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkProve measures the committed prover of the segments of a pass
// (one block each) against the integer forward pass of the same tokens in
// the same run: prove-ratio = (Σ over the benchmarked segments of the
// prover time) / forward time. The prover time is split into commit,
// GKR (the LogUp instance), sum-check (every other sum-check: the
// decomposition zero-check, the requantization, projections,
// contractions, norms, softmax and argmax) and open (the grouped opening).
// peak-rss-MiB is the process's peak resident memory (Linux; absent
// elsewhere).
func BenchmarkProve(b *testing.B) {
	rows := *benchRows
	b.Run(fmt.Sprintf("default/s=%d", rows), func(b *testing.B) {
		m := model.Default()
		benchProve(b, m, rows, []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}})
	})
	if *gpt2Small {
		// As the commands do: the last segment at 64 rows fits in 24 GB
		// only with the collector paced by a memory limit.
		memlimit.Default()
		m := gpt2SmallModel(b, rows)
		c := m.Config
		if *chunkWidth > 0 && (*wholePass || *headOnly) {
			segs, err := inference.ChunkedSegments(c.Layers, max(*segBlocks, 1), c.Vocab, *chunkWidth)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("gpt2-small/pass/s=%d/blocks=%d/chunk=%d", rows, max(*segBlocks, 1), *chunkWidth)
			if *headOnly {
				segs = slices.DeleteFunc(segs, func(s inference.Segment) bool { return !s.Chunk() })
				name = fmt.Sprintf("gpt2-small/head/s=%d/chunk=%d", rows, *chunkWidth)
			}
			b.Run(name, func(b *testing.B) { benchProve(b, m, rows, segs) })
			return
		}
		if !*wholePass {
			k := *benchBlock
			if k < 0 || k >= c.Layers {
				b.Fatalf("-committed.block=%d: GPT-2 small has blocks 0 to %d", k, c.Layers-1)
			}
			seg := inference.Segment{From: k, To: k + 1}
			name := fmt.Sprintf("gpt2-small/block%d/s=%d", k, rows)
			if k == c.Layers-1 && *chunkWidth > 0 {
				// The last block as the pass in chunks has it: without
				// the LM head.
				seg.NoHead = true
				name += "/nohead"
			}
			b.Run(name, func(b *testing.B) { benchProve(b, m, rows, []inference.Segment{seg}) })
			return
		}
		k := max(*segBlocks, 1)
		var segs []inference.Segment
		for i := 0; i < c.Layers; i += k {
			segs = append(segs, inference.Segment{From: i, To: min(i+k, c.Layers)})
		}
		b.Run(fmt.Sprintf("gpt2-small/pass/s=%d/blocks=%d", rows, k), func(b *testing.B) { benchProve(b, m, rows, segs) })
	}
}

// gpt2SmallModel is a model of GPT-2 small's shape with random weights
// (seed 1) and a context of at least 64 rows.
func gpt2SmallModel(t testing.TB, rows int) *model.Model {
	c := model.GPT2SmallConfig(max(64, rows))
	w, err := model.RandomWeights(c, 1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func benchProve(b *testing.B, m *model.Model, rows int, segs []inference.Segment) {
	f := newFixture(b, m, rows)
	need := 2
	last := ""
	for _, seg := range segs {
		l, err := NewLayout(f.tr, seg, f.pass)
		if err != nil {
			b.Fatal(err)
		}
		set, _, err := TableSet(l)
		if err != nil {
			b.Fatal(err)
		}
		need = max(need, 1<<min(max(l.NbVars, set.NbVars), *benchParts))
		// One line per segment that differs from the one before.
		line := fmt.Sprintf("%d blocks, stacked MLE and %d limb rows of 2^%d entries, %d lookup slots in 2^%d entries, table set of 2^%d rows", len(l.Blocks), limbRows, l.NbVars, len(l.Slots), l.LookupVars, set.NbVars)
		if line == last {
			continue
		}
		last = line
		b.Logf("segment %v: %s", seg, line)
	}
	s := benchSRS(b, need)
	vk, err := NewVerifyingKey(s, m, WithPartVars(*benchParts))
	if err != nil {
		b.Fatal(err)
	}
	var infer, prove, verify, verifyPass time.Duration
	var total Timings
	size := 0
	var works []FieldWork
	perSeg := make([]time.Duration, len(segs))
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		tr, err := m.Forward(m.NewCache(), f.pass.Tokens())
		if err != nil {
			b.Fatal(err)
		}
		infer += time.Since(start)
		size = 0
		var proofs []*Proof
		start = time.Now()
		results, err := ProveSegments(s, m, f.st, f.pass, tr, segs, *benchJobs, nil, WithPartVars(*benchParts))
		if err != nil {
			b.Fatal(err)
		}
		prove += time.Since(start)
		for k, seg := range segs {
			proof, t := results[k].Proof, results[k].Timings
			perSeg[k] += results[k].Wall
			total.Commit += t.Commit
			total.GKR += t.GKR
			total.SumCheck += t.SumCheck
			total.Open += t.Open
			size += proof.Size()
			proofs = append(proofs, proof)
			if b.N == 1 || len(works) < len(segs) {
				works = append(works, proof.FieldWork())
			}
			start = time.Now()
			if _, err := Verify(vk, m, f.st, f.pass, seg, proof); err != nil {
				b.Fatal(err)
			}
			verify += time.Since(start)
		}
		if segs[0].From == 0 && segs[len(segs)-1].To == len(tr.Layers) {
			start = time.Now()
			if err := VerifyPass(vk, m, f.st, f.pass, segs, proofs); err != nil {
				b.Fatal(err)
			}
			verifyPass += time.Since(start)
		}
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / n }
	b.ReportMetric(float64(prove)/float64(infer), "prove-ratio")
	b.ReportMetric(ms(prove), "prove-ms")
	b.ReportMetric(ms(total.Commit), "commit-ms")
	b.ReportMetric(ms(total.GKR), "gkr-ms")
	b.ReportMetric(ms(total.SumCheck), "sumcheck-ms")
	b.ReportMetric(ms(total.Open), "open-ms")
	b.ReportMetric(ms(infer), "infer-ms")
	b.ReportMetric(ms(verify), "verify-ms")
	b.ReportMetric(float64(size), "proof-bytes")
	if verifyPass > 0 {
		b.ReportMetric(ms(verifyPass), "verify-pass-ms")
	}
	if peak := memlimit.PeakRSS(); peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MiB")
	}
	if len(segs) > 1 {
		secs := make([]string, len(segs))
		for k, d := range perSeg {
			secs[k] = fmt.Sprintf("%.1f", d.Seconds()/n)
		}
		b.Logf("prover per segment (s): %s", strings.Join(secs, " "))
	}
	last = ""
	for k, w := range works[:len(segs)] {
		line := fmt.Sprintf("field work: rounds by degree %v (GKR %d), %d scalars, %d points, %d fold checks: ≈ %d R1CS of transcript and sum-checks", w.Rounds, w.GKRRounds, w.Scalars, w.Points, w.FoldChecks, w.EstimatedR1CS())
		if line != last {
			b.Logf("segment %v: %s", segs[k], line)
		}
		last = line
	}
}

var (
	benchCapacity = flag.Int("committed.capacity", 0, "BenchmarkTurn: the cache's capacity (0, or beyond a model's context: its context, at most 128)")
	benchHistory  = flag.Int("committed.history", 0, "BenchmarkTurn: the cached rows before the token's one-row turn (0: the capacity − 2)")
	benchWhole    = flag.Bool("committed.whole", false, "BenchmarkTurn with -committed.gpt2small: every block and the LM head (three blocks a segment, the LM head alone, as prove --segment-size 3 --vocab-chunk 50257) instead of one block")
)

// BenchmarkTurn measures the prover of a conversation's turns against
// a pass from position 0 of the same rows in the same run, each over
// the segments of BenchmarkProve (the built-in model's two blocks; with
// -committed.gpt2small one block of GPT-2 small's shape, or with
// -committed.whole all of it): turn 1 is a prompt of rows/2 tokens and
// rows/2 generated from the empty state, turn 2 the same over turn 1's
// history; token is a turn of one row (one generated token) over
// -committed.history cached rows (the capacity's last row but one by
// default).
// turn2/turn1 and turn2/pass are the prover-time ratios.
func BenchmarkTurn(b *testing.B) {
	rows := *benchRows
	run := func(name string, m *model.Model, segs []inference.Segment) {
		capacity := *benchCapacity
		if capacity == 0 || capacity > m.Config.MaxPositions {
			capacity = min(m.Config.MaxPositions, 128)
		}
		history := *benchHistory
		if history == 0 {
			history = capacity - 2
		}
		b.Run(fmt.Sprintf("%s/s=%d/capacity=%d/history=%d", name, rows, capacity, history), func(b *testing.B) {
			if history < 1 || history >= capacity {
				b.Fatalf("a token after %d cached rows in a cache of %d", history, capacity)
			}
			benchTurn(b, m, segs, rows, capacity, history)
		})
	}
	run("default", model.Default(), []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}})
	if *gpt2Small {
		memlimit.Default()
		m := gpt2SmallModel(b, 128)
		if *benchWhole {
			segs, err := inference.ChunkedSegments(m.Config.Layers, 3, m.Config.Vocab, m.Config.Vocab)
			if err != nil {
				b.Fatal(err)
			}
			run("gpt2-small/whole", m, segs)
		} else {
			run(fmt.Sprintf("gpt2-small/block%d", *benchBlock), m, []inference.Segment{{From: *benchBlock, To: *benchBlock + 1}})
		}
	}
}

func benchTurn(b *testing.B, m *model.Model, segs []inference.Segment, rows, capacity, history int) {
	prompt := make([]int, max(rows/2, 1))
	for i := range prompt {
		prompt[i] = (i*37 + 11) % m.Config.Vocab
	}
	request := func(cache *model.Cache, prompt []int, g, rows int) Pass {
		out, err := m.Continue(cache, prompt, g)
		if err != nil {
			b.Fatal(err)
		}
		return Pass{Prompt: prompt, Output: out, Rows: rows}
	}
	pass1 := request(m.NewCache(), prompt, rows-len(prompt), rows)
	tr1, cache1, err := TurnTrace(m, m.NewCache(), pass1, capacity)
	if err != nil {
		b.Fatal(err)
	}
	pass2 := request(cache1, prompt, rows-len(prompt), rows)
	tr2, _, err := TurnTrace(m, cache1, pass2, capacity)
	if err != nil {
		b.Fatal(err)
	}
	// The token: one row over history cached rows (a cache filled with
	// the prompt repeated).
	filled := m.NewCache()
	if _, err := m.Forward(filled, slices.Repeat(prompt, capacity)[:history]); err != nil {
		b.Fatal(err)
	}
	pass3 := request(filled, prompt[:1], 1, 1)
	tr3, _, err := TurnTrace(m, filled, pass3, capacity)
	if err != nil {
		b.Fatal(err)
	}
	plain, err := m.Forward(m.NewCache(), pass2.Tokens())
	if err != nil {
		b.Fatal(err)
	}
	s := benchSRS(b, 1<<*benchParts)
	st, err := statementOf(m, pass1)
	if err != nil {
		b.Fatal(err)
	}
	prove := func(pass Pass, tr *model.Trace, turn *Turn) (time.Duration, int) {
		opts := []Option{WithPartVars(*benchParts)}
		if turn != nil {
			opts = append(opts, WithTurn(*turn))
		}
		start := time.Now()
		results, err := ProveSegments(s, m, st, pass, tr, segs, *benchJobs, nil, opts...)
		if err != nil {
			b.Fatal(err)
		}
		size := 0
		for _, r := range results {
			size += r.Proof.Size()
		}
		return time.Since(start), size
	}
	var passT, turn1T, turn2T, tokenT time.Duration
	var size2, sizeToken int
	b.ResetTimer()
	for b.Loop() {
		d, _ := prove(pass2, plain, nil)
		passT += d
		d, _ = prove(pass1, tr1, &Turn{Start: 0, Capacity: capacity})
		turn1T += d
		d, size2 = prove(pass2, tr2, &Turn{Start: cache1.Len, Capacity: capacity})
		turn2T += d
		d, sizeToken = prove(pass3, tr3, &Turn{Start: filled.Len, Capacity: capacity})
		tokenT += d
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / n }
	b.ReportMetric(ms(passT), "pass-ms")
	b.ReportMetric(ms(turn1T), "turn1-ms")
	b.ReportMetric(ms(turn2T), "turn2-ms")
	b.ReportMetric(ms(tokenT), "token-ms")
	b.ReportMetric(float64(turn2T)/float64(turn1T), "turn2/turn1")
	b.ReportMetric(float64(turn2T)/float64(passT), "turn2/pass")
	b.ReportMetric(float64(size2), "turn-bytes")
	b.ReportMetric(float64(sizeToken), "token-bytes")
}

// statementOf is the statement of a request of m.
func statementOf(m *model.Model, p Pass) (statement.Statement, error) {
	return statement.Of[fr.Element](m.ID(), p.Prompt, p.Output)
}

var (
	batchRequests = flag.Int("committed.batch", 32, "requests of BenchmarkBatch's batch (4 to 12 rows each)")
	batchRows     = flag.Int("committed.batchrows", 0, "BenchmarkBatch: the rows of every request (0: 4 to 12)")
)

// BenchmarkBatch measures a batch's stacked pass against one request in
// the same run, the segments proven one at a time: the batch of
// -committed.batch requests of 4 to 12 rows each, or -committed.batchrows
// each (greedy generations, half of each request's rows its prompt), in
// the smallest bucket of a power of two holding them, and the first of
// them alone in its own bucket. On the built-in model by default, its two
// segments; with -committed.gpt2small on GPT-2 small's shape cut as prove
// --segment-size 3 --vocab-chunk 50257 (four segments of three blocks,
// the LM head alone). per-inference-ratio = (batch time / n) / single
// time; each iteration proves both.
func BenchmarkBatch(b *testing.B) {
	m := model.Default()
	name := "default"
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: m.Config.Layers}}
	if *gpt2Small {
		memlimit.Default()
		m, name = gpt2SmallModel(b, 64), "gpt2-small"
		var err error
		if segs, err = inference.ChunkedSegments(m.Config.Layers, 3, m.Config.Vocab, m.Config.Vocab); err != nil {
			b.Fatal(err)
		}
	}
	n := *batchRequests
	var requests []statement.Request
	for k := range n {
		rows := 4 + (k*5)%9 // 4 … 12
		if *batchRows > 0 {
			rows = *batchRows
		}
		prompt := make([]int, max(rows/2, 1))
		for i := range prompt {
			prompt[i] = (i*37 + 11 + 13*k) % m.Config.Vocab
		}
		gen, err := m.Generate(prompt, rows-len(prompt)+1)
		if err != nil {
			b.Fatal(err)
		}
		requests = append(requests, statement.Request{Prompt: prompt, Output: gen.Tokens})
	}
	stack := statement.Stack{Requests: requests}
	total := stack.Len()
	stack.Rows = 1
	for stack.Rows < total {
		stack.Rows *= 2
	}
	batch := Pass{Rows: stack.Rows, Batch: requests}
	single := requests[0]
	single.Rows = 1
	for single.Rows < single.Len() {
		single.Rows *= 2
	}
	s := benchSRS(b, 1<<20)
	prove := func(pass Pass, st statement.Statement, tr *model.Trace) time.Duration {
		start := time.Now()
		for _, seg := range segs {
			if _, _, err := Prove(s, m, st, pass, tr, seg); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	btr, err := m.ForwardStacked(batch.Tokens(), batch.Begins())
	if err != nil {
		b.Fatal(err)
	}
	bst, _, err := statement.StackStatement[fr.Element](m.ID(), stack)
	if err != nil {
		b.Fatal(err)
	}
	str, err := m.Forward(m.NewCache(), single.Tokens())
	if err != nil {
		b.Fatal(err)
	}
	sst, err := statement.Of[fr.Element](m.ID(), single.Prompt, single.Output)
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("%s/n=%d/rows=%d", name, n, batch.Rows), func(b *testing.B) {
		var tb, ts time.Duration
		for range b.N {
			tb += prove(batch, bst, btr)
			ts += prove(single, sst, str)
		}
		b.ReportMetric(float64(tb.Milliseconds())/float64(b.N), "batch-ms")
		b.ReportMetric(float64(ts.Milliseconds())/float64(b.N), "single-ms")
		b.ReportMetric(float64(tb)/float64(n)/float64(ts), "per-inference-ratio")
	})
}
