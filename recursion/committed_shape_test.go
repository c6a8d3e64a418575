package recursion

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
	"github.com/consensys/gnark/test"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
)

// TestCommittedShapes: the committed aggregator refuses shapes outside
// the contract (Pedersen commitments, commitment counts, the boundary
// and incoming indices, the chain's links and ends) before compiling
// anything.
func TestCommittedShapes(t *testing.T) {
	first := SegmentShape{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: 10, Incoming: -1}
	last := SegmentShape{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: 10}
	if got, want := first.NbPublic(), 3+3+11+3+17+5; got != want {
		t.Errorf("NbPublic %d, want %d", got, want)
	}
	if _, err := NewAggregator(onePass(first, last), gpcs.Key{}); err != nil {
		t.Fatalf("a first and a last segment: %v", err)
	}
	bad := map[string][]SegmentShape{
		"no segment":                     nil,
		"two Pedersen":                   {{NbPedersen: 2, NbCommitments: 11, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: -1}},
		"boundary on the tensors":        {{NbCommitments: 11, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: 0, Incoming: -1}},
		"incoming out of range":          {{NbCommitments: 11, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: 11}},
		"no variables":                   {{NbCommitments: 11, NbVars: 0, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: -1}},
		"multiplicities first":           {{NbCommitments: 11, NbVars: 18, Multiplicities: 0, NbMultiplicities: 1, Boundary: -1, Incoming: -1}},
		"boundary on the tensors' parts": {{NbCommitments: 14, NbVars: 18, Multiplicities: 4, NbMultiplicities: 1, Boundary: 3, Incoming: -1}},
		"the first reads a stream":       {last, last},
		"the last hands one on":          {first, first},
		"two segments unlinked":          {{NbCommitments: 11, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: -1}, last},
	}
	for name, shapes := range bad {
		if _, err := NewAggregator(onePass(shapes...), gpcs.Key{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}

	// Chunks of the LM head: linked to the segment before by its
	// boundary, to each other by their incoming streams.
	chunk := SegmentShape{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: 10, NbChosen: 4}
	if got, want := chunk.NbPublic(), 3+3+11+3+17+5+4; got != want {
		t.Errorf("a chunk's NbPublic %d, want %d", got, want)
	}
	if _, err := NewAggregator(onePass(first, chunk, chunk, chunk), gpcs.Key{}); err != nil {
		t.Fatalf("a first segment and three chunks: %v", err)
	}
	other := chunk
	other.NbChosen = 3
	noStream := chunk
	noStream.Incoming = -1
	negative := chunk
	negative.NbChosen = -1
	for name, shapes := range map[string][]SegmentShape{
		"chunks of other numbers of chosen logits": {first, chunk, other},
		"a chunk that reads no stream":             {first, chunk, noStream},
		"a segment after the chunks":               {first, chunk, last},
		"a negative number of chosen logits":       {first, negative},
	} {
		if _, err := NewAggregator(onePass(shapes...), gpcs.Key{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestCommittedAggregatorCommitments: the committed aggregator of a first
// and a last segment compiles without a Pedersen commitment (its scalars
// are native variables, no emulated arithmetic range-checks them), so the
// one wrapper of the opened aggregators serves it.
func TestCommittedAggregatorCommitments(t *testing.T) {
	// The second segment's commitments are in parts: 2 of the tensors, 2
	// of the multiplicities.
	shapes := []SegmentShape{
		{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: 10, Incoming: -1},
		{NbPedersen: 1, NbCommitments: 13, NbTables: 3, NbVars: 17, Multiplicities: 2, NbMultiplicities: 2, Boundary: -1, Incoming: 12},
	}
	ccs, err := CompileAggregator(onePass(shapes...), gpcs.GeneratorKey())
	if err != nil {
		t.Fatal(err)
	}
	if n := AggregatorCommitments(ccs); n != 0 {
		t.Fatalf("the committed aggregator has %d Pedersen commitments, want 0", n)
	}
	t.Logf("committed aggregator of 2 segments: %d R1CS", ccs.GetNbConstraints())
}

// linkCircuit asserts the links of committed segments of the given shapes
// (linkSegments) on their commitments and chosen logits alone.
type linkCircuit struct {
	Commitments [][]sw_bls12377.G1Affine
	Chosen      [][]frontend.Variable
	shapes      []SegmentShape `gnark:"-"`
}

func (c *linkCircuit) Define(api frontend.API) error {
	segments := make([]SegmentProof, len(c.Commitments))
	for i := range segments {
		segments[i] = SegmentProof{Commitments: c.Commitments[i], Chosen: c.Chosen[i]}
	}
	return linkSegments(api, c.shapes, segments)
}

// TestLinkSegments: a first segment then three chunks of the LM head are
// linked when the first's boundary is every chunk's incoming stream and
// the chunks state the same chosen logits; a chunk reading another
// stream, the first chunk reading another boundary, or a chunk with
// other chosen logits is refused; a commitment outside the links may
// differ.
func TestLinkSegments(t *testing.T) {
	first := SegmentShape{NbCommitments: 3, NbVars: 1, Multiplicities: 1, NbMultiplicities: 1, Boundary: 2, Incoming: -1}
	chunk := SegmentShape{NbCommitments: 3, NbVars: 1, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: 2, NbChosen: 2}
	shapes := []SegmentShape{first, chunk, chunk, chunk}
	assignment := func() *linkCircuit {
		c := &linkCircuit{shapes: shapes}
		for i := range shapes {
			var points []sw_bls12377.G1Affine
			for j := range 3 {
				x, y := 10*i+j, 100*i+j
				if j == 2 {
					x, y = 7, 8 // the stream every segment shares
				}
				points = append(points, sw_bls12377.G1Affine{X: x, Y: y})
			}
			c.Commitments = append(c.Commitments, points)
			var chosen []frontend.Variable
			for range shapes[i].NbChosen {
				chosen = append(chosen, 5)
			}
			c.Chosen = append(c.Chosen, chosen)
		}
		return c
	}
	placeholder := &linkCircuit{shapes: shapes}
	for _, s := range shapes {
		placeholder.Commitments = append(placeholder.Commitments, make([]sw_bls12377.G1Affine, s.NbCommitments))
		placeholder.Chosen = append(placeholder.Chosen, make([]frontend.Variable, s.NbChosen))
	}
	field := ecc.BW6_761.ScalarField()
	if err := test.IsSolved(placeholder, assignment(), field); err != nil {
		t.Fatalf("the honest links: %v", err)
	}
	for name, c := range map[string]struct {
		change func(a *linkCircuit)
		ok     bool
	}{
		"a chunk reading another stream":       {func(a *linkCircuit) { a.Commitments[2][2].X = 9 }, false},
		"the first chunk reading another one":  {func(a *linkCircuit) { a.Commitments[1][2].Y = 9 }, false},
		"the first segment's boundary moved":   {func(a *linkCircuit) { a.Commitments[0][2].X = 9 }, false},
		"the last chunk's chosen logit":        {func(a *linkCircuit) { a.Chosen[3][1] = 6 }, false},
		"the first chunk's chosen logit":       {func(a *linkCircuit) { a.Chosen[1][0] = 6 }, false},
		"a commitment outside the links moved": {func(a *linkCircuit) { a.Commitments[2][0].X = 9 }, true},
	} {
		a := assignment()
		c.change(a)
		if err := test.IsSolved(placeholder, a, field); (err == nil) != c.ok {
			t.Errorf("%s: solved %v, want %v", name, err == nil, c.ok)
		}
	}
}

// onePass is the layout of a request's pass of the given segments.
func onePass(shapes ...SegmentShape) []PassShape { return []PassShape{RequestPass(shapes)} }

// TestAggregatorLayouts: the aggregator takes passes of requests and
// turns in any order, each checked as a pass of its own, and refuses a
// list's pass beside another, a pass of no segment, passes of another
// number of Pedersen commitments and a turn's pass whose segments do not
// cache the model's blocks.
func TestAggregatorLayouts(t *testing.T) {
	request := SegmentShape{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: -1}
	turn := request
	turn.NbCommitments = 15
	turn.Turn = &SegmentTurn{From: 0, Blocks: 1, Cache: 10}
	layers := AggregatorTurn{Layers: 1, Capacity: 8}
	mixed := []PassShape{RequestPass([]SegmentShape{request}), RequestPass([]SegmentShape{request}), TurnPass([]SegmentShape{turn}, layers)}
	if _, err := NewAggregator(mixed, gpcs.Key{}); err != nil {
		t.Fatalf("two requests and a turn: %v", err)
	}
	if _, err := NewAggregator([]PassShape{mixed[2], mixed[0], mixed[2]}, gpcs.Key{}); err != nil {
		t.Fatalf("a turn, a request and a turn: %v", err)
	}
	other := request
	other.NbPedersen = 0
	for name, layout := range map[string][]PassShape{
		"no pass":                        nil,
		"a list's pass and a request's":  {ListPass([]SegmentShape{request}), mixed[0]},
		"a request's pass and a list's":  {mixed[0], ListPass([]SegmentShape{request})},
		"a pass of no segment":           {mixed[0], RequestPass(nil)},
		"another Pedersen count":         {mixed[0], RequestPass([]SegmentShape{other})},
		"a turn's shapes as a request's": {mixed[0], RequestPass([]SegmentShape{turn})},
		"a request's shapes as a turn's": {mixed[0], TurnPass([]SegmentShape{request}, layers)},
		"a turn of two blocks":           {TurnPass([]SegmentShape{turn}, AggregatorTurn{Layers: 2, Capacity: 8})},
		"a turn and a list":              {{Segments: []SegmentShape{turn}, Turn: &layers, List: true}},
	} {
		if _, err := NewAggregator(layout, gpcs.Key{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
