package pipeline

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"

	"github.com/veriformer/veriformer/circuits"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
)

// Design is how a model's inference is proven.
type Design string

const (
	// Direct proves the pass in one BN254 circuit that takes the tensors
	// no sum-check produces as witnesses (packages inference and
	// circuits): its size grows with the activations, so it serves small
	// models; the fastest first run.
	Direct Design = "direct"
	// Aggregated commits those tensors (multilinear KZG, package pcs) and
	// proves the pass in segments (inference/committed natively, one
	// BLS12-377 circuit per segment, gadgets/committed), completed by the
	// BW6-761 aggregator and wrapped into one BN254 proof (recursion).
	Aggregated Design = "aggregated"
)

// ParseDesign parses a design name ("" is Direct).
func ParseDesign(s string) (Design, error) {
	switch Design(s) {
	case "", Direct:
		return Direct, nil
	case Aggregated:
		return Aggregated, nil
	}
	return "", fmt.Errorf("pipeline: design %q: want direct or aggregated", s)
}

// Circuit is one circuit a deployed model needs Groth16 keys for.
type Circuit struct {
	// Kind is "direct", "segment", "aggregator" or "wrapper"; Name says
	// which one ("segment 2/13 (blocks 1–1)").
	Kind, Name string
	// Curve is the circuit's curve.
	Curve   ecc.ID
	compile func() (constraint.ConstraintSystem, error)
}

// Compile compiles the circuit, or reads it from the circuit cache
// (setup.CompileCached) when it was compiled before.
func (c *Circuit) Compile() (constraint.ConstraintSystem, error) {
	ccs, err := c.compile()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return ccs, nil
}

// Catalog lists every circuit of one design of a model for one row
// bucket, in the order their keys are made: the
// direct circuit; or each segment's, the aggregator's and (when asked
// for) the wrapper's. prove, its --plan, export and cmd/ceremony all take
// their circuits from it.
type Catalog struct {
	Design   Design
	Circuits []*Circuit
	// Rows is the circuits' row bucket; Slots, for a batch's circuits,
	// their number of request slots (0 otherwise).
	Rows, Slots int

	// Direct design: the circuit's layout.
	Layout *circuits.Layout

	// Aggregated design: the cut of the pass into segments and their
	// native shapes.
	Segments []inference.Segment
	Shapes   []*committed.Shape

	// segmentShapes[i] is what the aggregator knows of segment i's
	// circuit, set when that circuit is compiled.
	segmentShapes []*recursion.SegmentShape
	// loadSRS returns the KZG SRS of opts.SRS or of the cache, of a
	// size (nil when there is none); srs is the one it returned, once
	// read.
	loadSRS func(size int) (*pcs.SRS, error)
	srs     *pcs.SRS
	srsRead bool
	// standIn compiles the aggregator on a stand-in SRS key of the same
	// size when there is no SRS (a plan); usedStandIn says it did.
	standIn, usedStandIn bool
	// aggregatorCommitments is recursion.AggregatorCommitments of the
	// aggregator's circuit, the wrapper's shape (-1 until compiled).
	aggregatorCommitments int
	// aggTurn is a turn aggregator's shape (nil for other passes).
	aggTurn *recursion.AggregatorTurn
}

// Circuits returns the catalog of design d for opts.Model, a prompt of
// promptLen tokens and opts.Tokens generated ones. The wrapper is listed
// when opts.Wrap is set (it is the aggregated design's final circuit;
// compiling it takes minutes and about 10 GB). The aggregator holds the
// KZG SRS's G2 points as constants: its Compile reads the SRS of
// opts.SRS, a ceremony file, or the development SRS in the cache, and
// fails when there is neither. The wrapper depends on the aggregator's
// shape only, not on the SRS.
func Circuits(d Design, opts AggregatedOptions, promptLen int) (*Catalog, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts.Options, report: &Report{}}
	return r.catalog(d, &opts, promptLen, opts.Tokens, func(size int) (*pcs.SRS, error) {
		return r.cachedSRS(&opts, size)
	})
}

// catalog builds the catalog of design d for a prompt of promptLen and
// outputLen generated tokens: the circuits of the bucket of opts.Bucket,
// or of the smallest that holds them; srs returns the SRS of a size.
func (r *runner) catalog(d Design, opts *AggregatedOptions, promptLen, outputLen int, srs func(size int) (*pcs.SRS, error)) (*Catalog, error) {
	rows, err := opts.rows(promptLen, outputLen)
	if err != nil {
		return nil, err
	}
	m := opts.Model
	id := r.modelID()
	c := &Catalog{Design: d, Rows: rows, Slots: opts.Slots, loadSRS: srs, aggregatorCommitments: -1}
	if d == Direct {
		if c.Layout, err = circuits.NewLayoutOf(m, id, rows); err != nil {
			return nil, err
		}
		c.Circuits = []*Circuit{{Kind: "direct", Name: fmt.Sprintf("direct circuit (bucket %d)", rows), Curve: ecc.BN254, compile: func() (constraint.ConstraintSystem, error) {
			return compileDirect(c.Layout)
		}}}
		return c, nil
	}
	if d != Aggregated {
		return nil, fmt.Errorf("pipeline: design %q", d)
	}
	if c.Segments, err = aggregatedSegments(m, opts.SegmentSize, opts.VocabChunk); err != nil {
		return nil, err
	}
	var turn *committed.Turn
	var aggTurn *recursion.AggregatorTurn
	if opts.Capacity > 0 {
		if rows > opts.Capacity {
			return nil, fmt.Errorf("pipeline: a bucket of %d rows in a cache of %d", rows, opts.Capacity)
		}
		turn = &committed.Turn{Start: 0, Capacity: opts.Capacity}
		aggTurn = &recursion.AggregatorTurn{Layers: m.Config.Layers, Capacity: opts.Capacity}
		c.aggTurn = aggTurn
	}
	if c.Shapes, err = committedShapes(m, c.Segments, placeholderPass(rows, opts.Slots > 0), turn); err != nil {
		return nil, err
	}
	c.segmentShapes = make([]*recursion.SegmentShape, len(c.Segments))
	for i, s := range c.Shapes {
		name := segmentName(i, c.Segments)
		c.Circuits = append(c.Circuits, &Circuit{Kind: "segment", Name: name, Curve: ecc.BLS12_377, compile: func() (constraint.ConstraintSystem, error) {
			ccs, err := r.compileSegment(opts.CacheDir, m, id, s, opts.Slots, name)
			if err != nil {
				return nil, err
			}
			shape, err := committedShapeOf(ccs, s)
			if err != nil {
				return nil, err
			}
			c.segmentShapes[i] = &shape
			return ccs, nil
		}})
	}
	aggregator := &Circuit{Kind: "aggregator", Name: fmt.Sprintf("aggregator of %d segments", len(c.Segments)), Curve: ecc.BW6_761}
	// compileAggregator compiles the aggregator, on a stand-in key when
	// standIn allows one and there is no SRS.
	compileAggregator := func(standIn bool) (constraint.ConstraintSystem, bool, error) {
		shapes, err := c.SegmentShapes()
		if err != nil {
			return nil, false, err
		}
		key, used, err := c.aggregatorKey(standIn)
		if err != nil {
			return nil, false, err
		}
		ccs, err := r.compileAggregator(opts.CacheDir, shapes, key, aggTurn, opts.Slots > 0)
		if err != nil {
			return nil, false, err
		}
		c.aggregatorCommitments = recursion.AggregatorCommitments(ccs)
		return ccs, used, nil
	}
	aggregator.compile = func() (constraint.ConstraintSystem, error) {
		ccs, used, err := compileAggregator(c.standIn)
		c.usedStandIn = used
		return ccs, err
	}
	c.Circuits = append(c.Circuits, aggregator)
	if opts.Wrap {
		c.Circuits = append(c.Circuits, &Circuit{Kind: "wrapper", Name: "BN254 wrapper", Curve: ecc.BN254, compile: func() (constraint.ConstraintSystem, error) {
			if c.aggregatorCommitments < 0 {
				// The count does not depend on the SRS's points: a
				// stand-in serves when there is no SRS yet.
				if _, _, err := compileAggregator(true); err != nil {
					return nil, err
				}
			}
			return r.compileWrapper(opts.CacheDir, c.aggregatorCommitments)
		}})
	}
	return c, nil
}

// SegmentShapes returns what the aggregator knows of every segment
// circuit, compiling (or reading from the circuit cache) those not
// compiled yet.
func (c *Catalog) SegmentShapes() ([]recursion.SegmentShape, error) {
	out := make([]recursion.SegmentShape, len(c.segmentShapes))
	for i := range c.segmentShapes {
		if c.segmentShapes[i] == nil {
			if _, err := c.Circuits[i].Compile(); err != nil {
				return nil, err
			}
		}
		out[i] = *c.segmentShapes[i]
	}
	return out, nil
}

// SRS returns the KZG SRS the segments' openings need, read once; nil
// when there is none yet (a plan, or a catalog of Circuits before a
// run has made the development SRS).
func (c *Catalog) SRS() (*pcs.SRS, error) {
	if !c.srsRead {
		srs, err := c.loadSRS(srsSize(c.Shapes))
		if err != nil {
			return nil, err
		}
		c.srs, c.srsRead = srs, true
	}
	return c.srs, nil
}

// aggregatorKey returns the SRS's key the aggregator holds as constants,
// or with standIn a stand-in of the same size when there is no SRS, and
// whether it is the stand-in.
func (c *Catalog) aggregatorKey(standIn bool) (gpcs.Key, bool, error) {
	srs, err := c.SRS()
	if err != nil {
		return gpcs.Key{}, false, err
	}
	if srs == nil {
		if !standIn {
			return gpcs.Key{}, false, fmt.Errorf("pipeline: the aggregator needs the KZG SRS of %d powers: a ceremony's (--srs) or a development one made by a run", srsSize(c.Shapes))
		}
		return gpcs.GeneratorKey(), true, nil
	}
	return gpcs.KeyOf(srs.VerifyingKey()), false, nil
}

// aggregatorOptions are the options of the catalog's aggregator: a
// turn's, a list's (a batch's pass) or none (a request's).
func (c *Catalog) aggregatorOptions() []recursion.AggregatorOption {
	switch {
	case c.aggTurn != nil:
		return []recursion.AggregatorOption{recursion.WithTurn(*c.aggTurn)}
	case c.Slots > 0:
		return []recursion.AggregatorOption{recursion.WithList()}
	}
	return nil
}

// compileWrapper compiles the one wrapper for aggregators of
// nbCommitments commitments, or reads it from the circuit cache.
func (r *runner) compileWrapper(dir string, nbCommitments int) (constraint.ConstraintSystem, error) {
	return r.compileCached(dir, wrapperName(nbCommitments), ecc.BN254, "BN254 wrapper", func() (constraint.ConstraintSystem, error) {
		return recursion.CompileWrapper(nbCommitments)
	})
}
