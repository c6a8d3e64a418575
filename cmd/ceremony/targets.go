package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/circuits"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/statement"
)

// circuitFlags name the circuit a ceremony is for.
type circuitFlags struct {
	circuit      *string
	model        *string
	promptTokens *int
	tokens       *int
	segmentSize  *int
	segment      *int
}

func addCircuitFlags(fs *flag.FlagSet) *circuitFlags {
	return &circuitFlags{
		circuit:      fs.String("circuit", "", "circuit: direct, segment, aggregator, wrapper (or srs: the BLS12-377 KZG SRS, phase 1 only)"),
		model:        fs.String("model", model.Tiny, "built-in model ("+strings.Join(model.BuiltinNames(), ", ")+") or directory with config.json and model.safetensors"),
		promptTokens: fs.Int("prompt-tokens", 5, "number of prompt tokens the circuit takes"),
		tokens:       fs.Int("tokens", 3, "number of generated tokens the circuit takes"),
		segmentSize:  fs.Int("segment-size", 1, "blocks per segment (aggregated shape)"),
		segment:      fs.Int("segment", 0, "which segment, from 0 (--circuit segment)"),
	}
}

// target is a kind of circuit: its curve and how to compile it.
type target struct {
	curve   ecc.ID
	compile func(f *circuitFlags) (constraint.ConstraintSystem, string, error)
}

// targets are the circuits a ceremony can be for; srs has no circuit.
var targets = map[string]target{
	"direct":     {ecc.BN254, compileDirect},
	"segment":    {ecc.BLS12_377, compileSegment},
	"aggregator": {ecc.BW6_761, compileAggregator},
	"wrapper":    {ecc.BN254, compileWrapper},
	"srs":        {ecc.BLS12_377, nil},
}

func (f *circuitFlags) target() (target, error) {
	t, ok := targets[*f.circuit]
	if !ok {
		return target{}, fmt.Errorf("--circuit %q: want direct, segment, aggregator, wrapper or srs", *f.circuit)
	}
	return t, nil
}

// compileTarget compiles the circuit named by the flags, logging the time.
func (f *circuitFlags) compileTarget(out io.Writer) (constraint.ConstraintSystem, string, error) {
	t, err := f.target()
	if err != nil {
		return nil, "", err
	}
	if t.compile == nil {
		return nil, "", fmt.Errorf("--circuit %s has no phase 2", *f.circuit)
	}
	fmt.Fprintf(out, "compiling the %s circuit …\n", *f.circuit)
	start := time.Now()
	ccs, name, err := t.compile(f)
	if err != nil {
		return nil, "", err
	}
	fmt.Fprintf(out, "%s: %d R1CS constraints over %s, compiled in %v\n", name, ccs.GetNbConstraints(), t.curve, time.Since(start).Round(time.Millisecond))
	return ccs, name, nil
}

func (f *circuitFlags) layout() (*model.Model, *circuits.Layout, error) {
	if *f.promptTokens < 1 || *f.tokens < 1 {
		return nil, nil, fmt.Errorf("--prompt-tokens and --tokens must be at least 1")
	}
	src, err := model.ParseSource(*f.model, model.Tiny)
	if err != nil {
		return nil, nil, err
	}
	m, err := src.Load(tokenizer.BOSAuto)
	if err != nil {
		return nil, nil, err
	}
	l, err := circuits.NewLayout(m, *f.promptTokens, *f.tokens)
	return m, l, err
}

func compileDirect(f *circuitFlags) (constraint.ConstraintSystem, string, error) {
	m, l, err := f.layout()
	if err != nil {
		return nil, "", err
	}
	placeholder, err := l.Placeholder()
	if err != nil {
		return nil, "", err
	}
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder)
	return ccs, fmt.Sprintf("direct circuit of model %#x for %d+%d tokens", statement.ModelID(m), *f.promptTokens, *f.tokens), err
}

// segments compiles every segment circuit up to and including last (all
// of them when last < 0).
func (f *circuitFlags) segments(last int) ([]constraint.ConstraintSystem, []inference.Segment, *model.Model, error) {
	m, l, err := f.layout()
	if err != nil {
		return nil, nil, nil, err
	}
	segs, err := inference.Segments(m.Config.Layers, *f.segmentSize)
	if err != nil {
		return nil, nil, nil, err
	}
	if last >= len(segs) {
		return nil, nil, nil, fmt.Errorf("--segment %d: the model has %d segments of %d blocks", last, len(segs), *f.segmentSize)
	}
	var out []constraint.ConstraintSystem
	for i := 0; i <= last; i++ {
		placeholder, err := l.SegmentPlaceholder(segs[i])
		if err != nil {
			return nil, nil, nil, err
		}
		ccs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, placeholder)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("segment %d: %w", i, err)
		}
		out = append(out, ccs)
	}
	return out, segs, m, nil
}

func compileSegment(f *circuitFlags) (constraint.ConstraintSystem, string, error) {
	if *f.segment < 0 {
		return nil, "", fmt.Errorf("--segment %d", *f.segment)
	}
	ccss, segs, m, err := f.segments(*f.segment)
	if err != nil {
		return nil, "", err
	}
	seg := segs[*f.segment]
	return ccss[*f.segment], fmt.Sprintf("segment %d (blocks %d–%d) of model %#x for %d+%d tokens", *f.segment, seg.From, seg.To-1, statement.ModelID(m), *f.promptTokens, *f.tokens), nil
}

func (f *circuitFlags) aggregator() (constraint.ConstraintSystem, int, error) {
	ccss, segs, _, err := f.segments(0)
	if err != nil {
		return nil, 0, err
	}
	shape, err := recursion.SegmentShapeOf(ccss[0])
	if err != nil {
		return nil, 0, err
	}
	ccs, err := recursion.CompileAggregator(len(segs), shape)
	return ccs, len(segs), err
}

func compileAggregator(f *circuitFlags) (constraint.ConstraintSystem, string, error) {
	ccs, k, err := f.aggregator()
	return ccs, fmt.Sprintf("aggregator of arity %d", k), err
}

func compileWrapper(f *circuitFlags) (constraint.ConstraintSystem, string, error) {
	agg, _, err := f.aggregator()
	if err != nil {
		return nil, "", err
	}
	ccs, err := recursion.CompileWrapper(recursion.AggregatorCommitments(agg))
	return ccs, "wrapper", err
}
