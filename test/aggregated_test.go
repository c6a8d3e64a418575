package test

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bw6761 "github.com/consensys/gnark-crypto/ecc/bw6-761"
	groth16bls12377 "github.com/consensys/gnark/backend/groth16/bls12-377"
	groth16bw6761 "github.com/consensys/gnark/backend/groth16/bw6-761"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/internal/tier"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/test/internal/local"
)

// TestRunAggregated proves the built-in micro model in the aggregated
// design: its one-block committed segment proof, the segment circuit on
// BLS12-377 with real Groth16 keys and proof, the aggregator on BW6-761
// with real keys and proof, and in the full tier the BN254 wrapper
// solved on that proof with gnark's test engine (its Groth16 setup is
// the full tier's TestRunAggregatedFull). The plan of the same run then
// finds every circuit's keys in the cache. It needs more than a minute:
// the segment's and the aggregator's setups (real keys) take most of
// two minutes on 2 cores. A deployment of two buckets is the full
// tier's (TestRunAggregatedBuckets).
//
// The same run then goes through the workers of an embedded NATS
// JetStream server (package distributed): two in-process workers, each
// with a key cache of its own that it fills from the object store, take
// the segment's native proof, its Groth16 proof and the aggregation as
// jobs. Each worker returns a tampered output for the first attempt of
// every job it takes (a proof that decodes but does not verify): the
// coordinator refuses each one and publishes the job again, which the
// other worker takes and proves honestly; the run states the same
// statement.
func TestRunAggregated(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	inProcess := runAggregated(t, aggregatedOptions(t, m), 1)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	q := local.Queue(t, ctx, lyingFirst)
	opts := aggregatedOptions(t, m)
	opts.Queue = q
	var log bytes.Buffer
	opts.Log = io.MultiWriter(&log, testWriter{t})
	rep, err := pipeline.RunAggregated(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Statement.String() != inProcess.Statement.String() {
		t.Fatalf("on the workers the run states %v, in process %v", rep.Statement, inProcess.Statement)
	}
	for _, job := range []string{pipeline.JobNative + "-0", pipeline.JobSegment + "-0", pipeline.JobAggregate} {
		refused := regexp.MustCompile(`refused ` + job + ` \(attempt 1, worker (w[12])\)`).FindStringSubmatch(log.String())
		done := regexp.MustCompile(`done ` + job + ` \(attempt 2, worker (w[12])\)`).FindStringSubmatch(log.String())
		if refused == nil || done == nil || refused[1] == done[1] {
			t.Errorf("job %s: not refused on its first attempt and done by the other worker on its second (%q, %q)", job, refused, done)
		}
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
}

// lyingFirst wraps a worker's handlers so that the first attempt of
// every job returns a wrong output: the native proof with its first
// tensor commitment replaced by its first multiplicities' one, the
// segment's Groth16 proof with its A and C points swapped, and, without
// proving (the aggregation is the run's longest job), an aggregator
// proof of the curves' generators. Each decodes; none verifies.
func lyingFirst(t *testing.T, handlers map[string]distributed.Handler) map[string]distributed.Handler {
	out := make(map[string]distributed.Handler, len(handlers))
	for kind, h := range handlers {
		out[kind] = func(ctx context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			if kind == pipeline.JobAggregate && job.Attempt == 1 {
				_, _, g1, g2 := bw6761.Generators()
				p := &groth16bw6761.Proof{Ar: g1, Krs: g1, Bs: g2}
				var buf bytes.Buffer
				_, err := p.WriteTo(&buf)
				return buf.Bytes(), err
			}
			data, err := h(ctx, job, in)
			if err != nil || job.Attempt > 1 {
				return data, err
			}
			switch kind {
			case pipeline.JobNative:
				p, err := committed.UnmarshalProof(data)
				if err != nil {
					t.Fatal(err)
				}
				p.Tensors[0] = p.Multiplicities[0]
				return p.MarshalBinary()
			case pipeline.JobSegment:
				p := new(groth16bls12377.Proof)
				if _, err := p.ReadFrom(bytes.NewReader(data)); err != nil {
					t.Fatal(err)
				}
				p.Ar, p.Krs = p.Krs, p.Ar
				var buf bytes.Buffer
				_, err := p.WriteTo(&buf)
				return buf.Bytes(), err
			}
			return data, nil
		}
	}
	return out
}

// aggregatedOptions proves "Hi" and two generated tokens of m, one block
// per segment.
func aggregatedOptions(t *testing.T, m *model.Model) pipeline.AggregatedOptions {
	return pipeline.AggregatedOptions{Options: pipeline.Options{Model: m, Prompt: []int{'H', 'i'}, Tokens: 2, Log: testWriter{t}}, SegmentSize: 1}
}

// runAggregated runs opts, whose cut has nbSegments segments, and checks
// the plan of the same run; it returns the run's report.
func runAggregated(t *testing.T, opts pipeline.AggregatedOptions, nbSegments int) *pipeline.Report {
	// go test's -timeout bounds the run; the context only ends a run
	// that hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Minute)
	defer cancel()
	rep, err := pipeline.RunAggregated(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.Statement.ModelID == nil || rep.Statement.ModelID.Sign() == 0 {
		t.Fatal("no final statement")
	}
	// The wrapper's solve on the real aggregator proof (most of a
	// minute, single-threaded) is the full tier's; the default tier's is
	// recursion's TestWrapperTestEngine, on a toy aggregator proof of the
	// same public inputs.
	if !opts.Wrap && tier.Full {
		solveWrapper(t, rep)
	}
	checkArtifacts(t, rep)
	gen, err := opts.Model.Generate(opts.Prompt, opts.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Output, gen.Tokens) {
		t.Fatalf("proven output %v, the greedy generation's %v", rep.Output, gen.Tokens)
	}
	all, err := pipeline.Plan(pipeline.Aggregated, opts, len(opts.Prompt))
	if err != nil {
		t.Fatal(err)
	}
	// The run's bucket's circuits (a deployment of several buckets lists
	// each one's).
	var plan []pipeline.PlanItem
	for _, it := range all {
		if it.Bucket == rep.Rows {
			plan = append(plan, it)
		}
	}
	if len(opts.Buckets) > 0 && len(all) != len(opts.Buckets)*(nbSegments+1) {
		t.Errorf("plan of %d circuits for %d buckets of %d each", len(all), len(opts.Buckets), nbSegments+1)
	}
	if len(plan) != nbSegments+1 {
		t.Fatalf("plan of %d circuits: %+v", len(plan), plan)
	}
	segments := 0
	for i, it := range plan {
		kind := "segment"
		if i == nbSegments {
			kind = "aggregator"
		} else {
			segments += it.Constraints
		}
		if it.Kind != kind || !it.Cached || it.KeyKind != "development" || it.Constraints == 0 || it.SetupEstimateS != 0 || it.ProveEstimateS <= 0 {
			t.Errorf("plan item %d: %+v", i, it)
		}
	}
	if plan[0].Curve != "bls12_377" || plan[nbSegments].Curve != "bw6_761" || segments != rep.Constraints {
		t.Errorf("plan: %+v, the run's segments %d constraints", plan, rep.Constraints)
	}
	return rep
}

// solveWrapper solves the BN254 wrapper on the run's aggregator proof
// with gnark's test engine and checks that it states the report's final
// list.
func solveWrapper(t *testing.T, rep *pipeline.Report) {
	a := rep.Aggregated
	if a == nil {
		t.Fatal("no aggregator proof in the report")
	}
	placeholder, err := recursion.NewWrapper(a.Commitments)
	if err != nil {
		t.Fatal(err)
	}
	assignment, final, err := recursion.WrapperAssignment(a.Proof, a.Key, a.List, a.Deployment, a.Slot)
	if err != nil {
		t.Fatal(err)
	}
	got, err := final.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if want, err := rep.List.Digest(); err != nil || got.Cmp(want) != 0 {
		t.Fatalf("the wrapper states list digest %#x, the report %#x (%v)", got, want, err)
	}
	start := time.Now()
	if err := test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField()); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrapper solved by the test engine in %v", time.Since(start).Round(time.Millisecond))
	// Its rejections (a wrong final id, another statement's digest) are
	// recursion's TestWrapperTestEngine, on the same circuit: a solve
	// here takes 40 s.
}
