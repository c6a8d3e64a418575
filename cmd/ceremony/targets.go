package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"

	"github.com/veriformer/veriformer/cmd/internal/flags"
	"github.com/veriformer/veriformer/pipeline"
)

// circuitFlags name the circuit a ceremony is for: a kind and, for the
// aggregated design's segments, which one, in the catalog of a model's
// circuits (pipeline.Circuits) that prove and export use too.
type circuitFlags struct {
	circuit *string
	segment *int
	model   *flags.Model
	lengths *flags.Lengths
	deploy  *flags.Deployment
}

func addCircuitFlags(fs *flag.FlagSet) *circuitFlags {
	return &circuitFlags{
		circuit: fs.String("circuit", "", "circuit: direct, segment, aggregator, wrapper (or srs: the BLS12-377 KZG SRS, phase 1 only)"),
		segment: fs.Int("segment", 0, "which segment, from 0 (--circuit segment)"),
		model:   flags.AddModel(fs),
		lengths: flags.AddLengths(fs),
		deploy:  flags.AddDeployment(fs, false),
	}
}

// target is a kind of circuit: its curve and how to compile it.
type target struct {
	curve   ecc.ID
	compile func(f *circuitFlags) (constraint.ConstraintSystem, string, error)
}

// targets are the circuits a ceremony can be for; srs has no circuit.
// Every circuit of both designs' catalogs is one of them.
var targets = map[string]target{
	"direct":     {ecc.BN254, compileCatalog("direct")},
	"segment":    {ecc.BLS12_377, compileCatalog("segment")},
	"aggregator": {ecc.BW6_761, compileCatalog("aggregator")},
	"wrapper":    {ecc.BN254, compileCatalog("wrapper")},
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

// compileCatalog returns the compiler of the circuit of a kind in the
// model's catalog: the direct design's for "direct", the aggregated
// design's otherwise (--segment picks the segment). The aggregator holds
// the KZG SRS's G2 points as constants: it needs --srs, the SRS sealed by
// a "--circuit srs" ceremony. The wrapper depends on the aggregator's
// shape only.
func compileCatalog(kind string) func(f *circuitFlags) (constraint.ConstraintSystem, string, error) {
	return func(f *circuitFlags) (constraint.ConstraintSystem, string, error) {
		design := pipeline.Aggregated
		if kind == "direct" {
			design = pipeline.Direct
		}
		if err := f.lengths.Check(); err != nil {
			return nil, "", err
		}
		dep, err := f.deploy.ParseFor(design)
		if err != nil {
			return nil, "", err
		}
		if kind == "aggregator" && dep.SRS == "" {
			// Production keys of an aggregator over a development SRS
			// would be keys of an SRS whose τ is known.
			return nil, "", errors.New("--circuit aggregator needs --srs FILE, the SRS sealed by a \"--circuit srs\" ceremony")
		}
		m, err := f.model.Load()
		if err != nil {
			return nil, "", err
		}
		opts := pipeline.AggregatedOptions{Options: pipeline.Options{Model: m, Tokens: *f.lengths.Tokens, Bucket: *f.lengths.Bucket}, Wrap: kind == "wrapper"}
		dep.Apply(&opts)
		// With --mix, the mixed lists' circuits (the lone turns' are
		// those of --capacity alone).
		opts.MixedList = opts.Mix != nil
		cat, err := pipeline.Circuits(design, opts, *f.lengths.PromptTokens)
		if err != nil {
			return nil, "", err
		}
		var matching []*pipeline.Circuit
		for _, c := range cat.Circuits {
			if c.Kind == kind {
				matching = append(matching, c)
			}
		}
		i := 0
		if kind == "segment" {
			i = *f.segment
		}
		if i < 0 || i >= len(matching) {
			return nil, "", fmt.Errorf("--segment %d: the model has %d segments of %d blocks", i, len(matching), dep.SegmentSize)
		}
		c := matching[i]
		ccs, err := c.Compile()
		if err != nil {
			return nil, "", err
		}
		return ccs, fmt.Sprintf("%s of model %#x for %d+%d tokens", c.Name, m.ID(), *f.lengths.PromptTokens, *f.lengths.Tokens), nil
	}
}
