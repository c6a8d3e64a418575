package pipeline

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/circuits"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
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

	// segmentShapes[i] is what the aggregator knows of segment circuit
	// i (Circuits[i], Shapes[i]), set when that circuit is compiled.
	segmentShapes []*recursion.SegmentShape
	// passes lists, per pass of the aggregator, the indices of its
	// segment circuits and its kind: one pass, or a mixed list's
	// requests' and turns' ([Mix]).
	passes []catalogPass
	// aggregator and wrapper are the aggregator's and the wrapper's
	// circuits (the wrapper nil unless asked for).
	aggregator, wrapper *Circuit
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
	if err := r.addSegments(c, opts, id); err != nil {
		return nil, err
	}
	r.addOuter(c, opts)
	return c, nil
}

// addSegments adds the segment circuits of the catalog's passes: a
// request's or a batch's, a turn's, or a mixed list's requests' then
// turns', the passes' kinds and their circuits' indices.
func (r *runner) addSegments(c *Catalog, opts *AggregatedOptions, id *big.Int) error {
	m, rows := opts.Model, c.Rows
	// The kinds of segment circuits: a request's or a batch's (nil), or
	// a turn's; a mixed list's requests' and turns'.
	var kinds []*committed.Turn
	if opts.Capacity > 0 {
		if rows > opts.Capacity {
			return fmt.Errorf("pipeline: a bucket of %d rows in a cache of %d", rows, opts.Capacity)
		}
		c.aggTurn = &recursion.AggregatorTurn{Layers: m.Config.Layers, Capacity: opts.Capacity}
	}
	n := len(c.Segments)
	switch {
	case opts.mixedList():
		if opts.Mix.Requests > 0 {
			kinds = append(kinds, nil)
		}
		kinds = append(kinds, &committed.Turn{Start: 0, Capacity: opts.Capacity})
		for p := range opts.Mix.Requests + opts.Mix.Turns {
			kind, first := passRequest, 0
			if p >= opts.Mix.Requests {
				kind, first = passTurn, n*(len(kinds)-1)
			}
			c.passes = append(c.passes, catalogPass{kind: kind, segments: indices(first, n)})
		}
	case opts.Capacity > 0:
		kinds = []*committed.Turn{{Start: 0, Capacity: opts.Capacity}}
		c.passes = []catalogPass{{kind: passTurn, segments: indices(0, n)}}
	case opts.Slots > 0:
		kinds = []*committed.Turn{nil}
		c.passes = []catalogPass{{kind: passList, segments: indices(0, n)}}
	default:
		kinds = []*committed.Turn{nil}
		c.passes = []catalogPass{{kind: passRequest, segments: indices(0, n)}}
	}
	for _, turn := range kinds {
		shapes, err := committedShapes(m, c.Segments, placeholderPass(rows, opts.Slots > 0), turn)
		if err != nil {
			return err
		}
		c.Shapes = append(c.Shapes, shapes...)
	}
	c.segmentShapes = make([]*recursion.SegmentShape, len(c.Shapes))
	for i, s := range c.Shapes {
		name := segmentName(i%n, c.Segments)
		if len(kinds) > 1 {
			name = "request " + name
			if i >= n {
				name = "turn " + name[len("request "):]
			}
		}
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
	return nil
}

// addOuter adds the aggregator of the catalog's passes and, with
// opts.Wrap, the wrapper.
func (r *runner) addOuter(c *Catalog, opts *AggregatedOptions) {
	aggregator := &Circuit{Kind: "aggregator", Name: "aggregator of " + Count(len(c.Segments), "segment"), Curve: ecc.BW6_761}
	switch {
	case len(c.passes) > 1:
		aggregator.Name = fmt.Sprintf("aggregator of %s and %s", Count(opts.Mix.Requests, "request"), Count(opts.Mix.Turns, "turn"))
	case c.passes[0].kind == passTurn:
		aggregator.Name = "turn " + aggregator.Name
	case c.passes[0].kind == passList:
		aggregator.Name = "list " + aggregator.Name
	}
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
		ccs, err := r.compileAggregator(opts.CacheDir, c.layout(shapes), key)
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
	c.aggregator = aggregator
	if opts.Wrap {
		c.wrapper = &Circuit{Kind: "wrapper", Name: "BN254 wrapper", Curve: ecc.BN254, compile: func() (constraint.ConstraintSystem, error) {
			if c.aggregatorCommitments < 0 {
				// The count does not depend on the SRS's points: a
				// stand-in serves when there is no SRS yet.
				if _, _, err := compileAggregator(true); err != nil {
					return nil, err
				}
			}
			return r.compileWrapper(opts.CacheDir, c.aggregatorCommitments)
		}}
		c.Circuits = append(c.Circuits, c.wrapper)
	}
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

// Count returns "1 noun" or "n nouns" ("n passes", "n leaves").
func Count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "s"):
		return fmt.Sprintf("%d %ses", n, noun)
	case strings.HasSuffix(noun, "f"):
		return fmt.Sprintf("%d %sves", n, noun[:len(noun)-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// passKind is the kind of one pass of an aggregator.
type passKind int

const (
	passRequest passKind = iota
	passTurn
	passList
)

// catalogPass is one pass of a catalog's aggregator: its kind and the
// indices of its segment circuits.
type catalogPass struct {
	kind     passKind
	segments []int
}

// indices returns first, first + 1, …, first + n − 1.
func indices(first, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// layout is the layout of the catalog's aggregator, given what it knows
// of each segment circuit: per pass, a request's, a turn's or a list's
// (a batch's), of its segment circuits' shapes.
func (c *Catalog) layout(shapes []recursion.SegmentShape) []recursion.PassShape {
	out := make([]recursion.PassShape, len(c.passes))
	for p, pass := range c.passes {
		segs := make([]recursion.SegmentShape, len(pass.segments))
		for i, k := range pass.segments {
			segs[i] = shapes[k]
		}
		switch pass.kind {
		case passTurn:
			out[p] = recursion.TurnPass(segs, *c.aggTurn)
		case passList:
			out[p] = recursion.ListPass(segs)
		default:
			out[p] = recursion.RequestPass(segs)
		}
	}
	return out
}

// passItems returns, in the aggregator's pass order, items[k] for each
// segment circuit k of each pass: the keys or table commitments of the
// passes' segments, flattened as recursion.ModelID reads them.
func passItems[T any](c *Catalog, items []T) []T {
	var out []T
	for _, pass := range c.passes {
		for _, k := range pass.segments {
			out = append(out, items[k])
		}
	}
	return out
}

// compileWrapper compiles the one wrapper for aggregators of
// nbCommitments commitments, or reads it from the circuit cache.
func (r *runner) compileWrapper(dir string, nbCommitments int) (constraint.ConstraintSystem, error) {
	return r.compileCached(dir, wrapperName(nbCommitments), ecc.BN254, "BN254 wrapper", func() (constraint.ConstraintSystem, error) {
		return recursion.CompileWrapper(nbCommitments)
	})
}

// compileSegment compiles the segment circuit (circuits.Committed, or
// with slots > 0 circuits.CommittedBatch of that many request slots) of
// a shape (BLS12-377), or reads it from the circuit cache in dir
// (setup.CompileCached): a GPT-2-small segment takes minutes to compile.
func (r *runner) compileSegment(dir string, m *model.Model, id *big.Int, s *committed.Shape, slots int, what string) (constraint.ConstraintSystem, error) {
	// The segment's String tells apart the segments of a cut with
	// chunks of the LM head from those of the same blocks with it.
	name := fmt.Sprintf("committed segment\nmodel %x\nsegment %v\nbucket %d", id, s.Segment, s.Pass.Rows)
	if t := s.Turn(); t != nil {
		name += fmt.Sprintf("\nturn capacity %d", t.Capacity)
	}
	if slots > 0 {
		name += fmt.Sprintf("\nbatch slots %d", slots)
		return r.compileCached(dir, name, ecc.BLS12_377, what, func() (constraint.ConstraintSystem, error) {
			placeholder, err := circuits.NewCommittedBatch(m, s, slots)
			if err != nil {
				return nil, err
			}
			return frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, placeholder)
		})
	}
	return r.compileCached(dir, name, ecc.BLS12_377, what, func() (constraint.ConstraintSystem, error) {
		placeholder, err := circuits.NewCommitted(m, s)
		if err != nil {
			return nil, err
		}
		return frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, placeholder)
	})
}

// compileAggregator compiles the aggregator of the passes of layout for
// an SRS's key, or reads it from the circuit cache.
func (r *runner) compileAggregator(dir string, layout []recursion.PassShape, key gpcs.Key) (constraint.ConstraintSystem, error) {
	var points []byte
	for i := range key.G1 {
		b := key.G1[i].Bytes()
		points = append(points, b[:]...)
	}
	for i := range key.G2 {
		b := key.G2[i].Bytes()
		points = append(points, b[:]...)
	}
	name := fmt.Sprintf("committed aggregator\nkey %x", points)
	segments := 0
	for _, pass := range layout {
		segments += len(pass.Segments)
		name += fmt.Sprintf("\n%s pass", passName(pass))
		for _, s := range pass.Segments {
			name += fmt.Sprintf("\nsegment %+v", s)
			if s.Turn != nil {
				// The shapes print their turns' pointers: name them by
				// value.
				name += fmt.Sprintf(" turn %+v", *s.Turn)
			}
		}
		if pass.Turn != nil {
			name += fmt.Sprintf("\nturn %+v", *pass.Turn)
		}
	}
	what := fmt.Sprintf("%s aggregator of %s", passName(layout[0]), Count(segments, "segment"))
	if len(layout) > 1 {
		what = fmt.Sprintf("aggregator of %s, %s", Count(len(layout), "pass"), Count(segments, "segment"))
	}
	return r.compileCached(dir, name, ecc.BW6_761, what, func() (constraint.ConstraintSystem, error) {
		return recursion.CompileAggregator(layout, key)
	})
}

// passName names the kind of a pass: a request's, a turn's or a list's.
func passName(p recursion.PassShape) string {
	switch {
	case p.Turn != nil:
		return "turn"
	case p.List:
		return "list"
	}
	return "request"
}

// compileCached is setup.CompileCached with a progress line: what
// names the circuit, its size and where it came from.
func (r *runner) compileCached(dir, name string, curve ecc.ID, what string, compile func() (constraint.ConstraintSystem, error)) (constraint.ConstraintSystem, error) {
	start := time.Now()
	if r.circuitsFrom != "" {
		if ccs, err := setup.CachedCircuit(r.circuitsFrom, name, curve); err == nil {
			r.logf("  %s: %s R1CS constraints, read from the trusted circuit cache in %v", what, groupDigits(ccs.GetNbConstraints()), time.Since(start).Round(time.Millisecond))
			return ccs, nil
		}
	}
	ccs, hit, err := setup.CompileCached(dir, name, curve, compile)
	if err != nil {
		return nil, err
	}
	how := "compiled"
	if hit {
		how = "read from the circuit cache"
	}
	r.logf("  %s: %s R1CS constraints, %s in %v", what, groupDigits(ccs.GetNbConstraints()), how, time.Since(start).Round(time.Millisecond))
	return ccs, nil
}

// groupDigits writes n with thousands separators.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
