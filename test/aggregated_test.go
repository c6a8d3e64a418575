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
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
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
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/test/internal/local"
)

// TestRunAggregated proves the built-in micro model in the aggregated
// design on the workers of an embedded NATS JetStream server (package
// distributed): its one-block committed segment proof, the segment
// circuit on BLS12-377 with real Groth16 keys and proof, the aggregator
// on BW6-761 with real keys and proof, each a job, and in the full tier
// the BN254 wrapper solved on that proof with gnark's test engine (its
// Groth16 setup is the full tier's TestRunAggregatedFull). The segment's
// and the aggregator's setups (real keys) take most of two minutes on 2
// cores. The two in-process workers each have a key cache of their own
// that they fill from the object store. Each returns a tampered output
// for the first attempt of every job it takes (a proof that decodes but
// does not verify): the coordinator refuses each one and publishes the
// job again, which the other worker takes and proves honestly. The run
// states the statement the keys and the greedy generation give,
// computed natively; the plan of the same run then finds every
// circuit's keys in the cache. The in-process orchestration of the same
// stages is test/batches' (a batch's pass goes through it); a turn's in
// process is the full tier's (TestRunTurns, TestRunListOnChain). A
// deployment of two buckets is the full tier's
// (TestRunAggregatedBuckets).
func TestRunAggregated(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	opts := aggregatedOptions(t, m)
	opts.Queue = local.Queue(t, ctx, lyingFirst, "")
	var log bytes.Buffer
	opts.Log = io.MultiWriter(&log, testWriter{t})
	rep := runAggregated(t, opts, 1)
	if want := reference(t, opts); rep.Statement.String() != want.String() {
		t.Fatalf("on the workers the run states %v, the keys and the generation %v", rep.Statement, want)
	}
	for _, job := range []string{pipeline.JobNative + "-0", pipeline.JobSegment + "-0", pipeline.JobAggregate} {
		refused := regexp.MustCompile(`refused ` + job + ` \(attempt 1, worker (w[12])\)`).FindStringSubmatch(log.String())
		done := regexp.MustCompile(`done ` + job + ` \(attempt 2, worker (w[12])\)`).FindStringSubmatch(log.String())
		if refused == nil || done == nil || refused[1] == done[1] {
			t.Errorf("job %s: not refused on its first attempt and done by the other worker on its second (%q, %q)", job, refused, done)
		}
	}
}

// reference returns the final statement of opts's request as the
// deployment's keys give it, computed natively: the final model id of
// the cached keys' verifying keys, and the digests of the prompt and of
// the greedy generation.
func reference(t *testing.T, opts pipeline.AggregatedOptions) statement.Statement {
	t.Helper()
	gen, err := opts.Model.Generate(opts.Prompt, opts.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pipeline.VerifyingKeysAggregated(opts, len(opts.Prompt), len(gen.Tokens))
	if err != nil {
		t.Fatal(err)
	}
	// The aggregated design's statement is over BLS12-377's scalar field,
	// the segments'.
	st, err := statement.Of[fr.Element](keys.FinalModelID, opts.Prompt, gen.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// lyingFirst wraps a worker's handlers so that the first attempt of
// every job returns a wrong output: the native proof with its first
// tensor commitment replaced by its first multiplicities' one and,
// without proving (the Groth16 jobs are the run's longest), a segment
// proof and an aggregator proof of their curves' generators. Each
// decodes; none verifies.
func lyingFirst(t *testing.T, handlers map[string]distributed.Handler) map[string]distributed.Handler {
	out := make(map[string]distributed.Handler, len(handlers))
	for kind, h := range handlers {
		out[kind] = func(ctx context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			if job.Attempt > 1 {
				return h(ctx, job, in)
			}
			var forged io.WriterTo
			switch kind {
			case pipeline.JobAggregate:
				_, _, g1, g2 := bw6761.Generators()
				forged = &groth16bw6761.Proof{Ar: g1, Krs: g1, Bs: g2}
			case pipeline.JobSegment:
				_, _, g1, g2 := bls12377.Generators()
				forged = &groth16bls12377.Proof{Ar: g1, Krs: g1, Bs: g2}
			}
			if forged != nil {
				var buf bytes.Buffer
				_, err := forged.WriteTo(&buf)
				return buf.Bytes(), err
			}
			data, err := h(ctx, job, in)
			if err != nil || kind != pipeline.JobNative {
				return data, err
			}
			p, err := committed.UnmarshalProof(data)
			if err != nil {
				t.Fatal(err)
			}
			p.Tensors[0] = p.Multiplicities[0]
			return p.MarshalBinary()
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
