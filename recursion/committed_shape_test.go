package recursion

import (
	"testing"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
)

// TestCommittedShapes: the committed aggregator refuses shapes outside
// the contract (Pedersen commitments, commitment counts, the boundary
// and incoming indices, the chain's links and ends) before compiling
// anything.
func TestCommittedShapes(t *testing.T) {
	first := CommittedShape{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: 10, Incoming: -1}
	last := CommittedShape{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: 10}
	if got, want := first.NbPublic(), 3+3+11+3+17+5; got != want {
		t.Errorf("NbPublic %d, want %d", got, want)
	}
	if _, err := NewCommittedAggregator([]CommittedShape{first, last}, gpcs.Key{}); err != nil {
		t.Fatalf("a first and a last segment: %v", err)
	}
	bad := map[string][]CommittedShape{
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
		if _, err := NewCommittedAggregator(shapes, gpcs.Key{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}

	// Chunks of the LM head: linked to the segment before by its
	// boundary, to each other by their incoming streams.
	chunk := CommittedShape{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: 10, NbChosen: 4}
	if got, want := chunk.NbPublic(), 3+3+11+3+17+5+4; got != want {
		t.Errorf("a chunk's NbPublic %d, want %d", got, want)
	}
	if _, err := NewCommittedAggregator([]CommittedShape{first, chunk, chunk, chunk}, gpcs.Key{}); err != nil {
		t.Fatalf("a first segment and three chunks: %v", err)
	}
	other := chunk
	other.NbChosen = 3
	noStream := chunk
	noStream.Incoming = -1
	negative := chunk
	negative.NbChosen = -1
	for name, shapes := range map[string][]CommittedShape{
		"chunks of other numbers of chosen logits": {first, chunk, other},
		"a chunk that reads no stream":             {first, chunk, noStream},
		"a segment after the chunks":               {first, chunk, last},
		"a negative number of chosen logits":       {first, negative},
	} {
		if _, err := NewCommittedAggregator(shapes, gpcs.Key{}); err == nil {
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
	shapes := []CommittedShape{
		{NbPedersen: 1, NbCommitments: 11, NbTables: 3, NbVars: 18, Multiplicities: 1, NbMultiplicities: 1, Boundary: 10, Incoming: -1},
		{NbPedersen: 1, NbCommitments: 13, NbTables: 3, NbVars: 17, Multiplicities: 2, NbMultiplicities: 2, Boundary: -1, Incoming: 12},
	}
	ccs, err := CompileCommittedAggregator(shapes, gpcs.GeneratorKey())
	if err != nil {
		t.Fatal(err)
	}
	if n := AggregatorCommitments(ccs); n != 0 {
		t.Fatalf("the committed aggregator has %d Pedersen commitments, want 0", n)
	}
	t.Logf("committed aggregator of 2 segments: %d R1CS", ccs.GetNbConstraints())
}
