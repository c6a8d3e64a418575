package inference

import (
	"errors"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

type segmented struct {
	m              *model.Model
	st             statement.Statement
	prompt, output []int
	segs           []Segment
	proofs         []*SegmentProof[bls12377fr.Element]
	chains         []bls12377fr.Element
}

func proveSegmented(t *testing.T, size int) *segmented {
	t.Helper()
	m := model.Default()
	prompt := []int{'s', 'e', 'g'}
	output, tr, err := Generate(m, prompt, 2)
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.New[bls12377fr.Element](m, prompt, output)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := Segments(len(tr.Layers), size)
	if err != nil {
		t.Fatal(err)
	}
	proofs, chains, err := ProveSegments[bls12377fr.Element](m, st, tr, segs)
	if err != nil {
		t.Fatal(err)
	}
	return &segmented{m: m, st: st, prompt: prompt, output: output, segs: segs, proofs: proofs, chains: chains}
}

func (s *segmented) verify(k int) error {
	return VerifySegment[bls12377fr.Element](s.m, s.st, s.prompt, s.output, s.segs[k], s.chains[k], s.chains[k+1], s.proofs[k])
}

// TestSegments proves the default model's pass in one-block segments
// (BLS12-377, the aggregated shape's field): each verifies between its
// chain values, and the segments' transcript ends where the unsegmented
// one would start its blocks.
func TestSegments(t *testing.T) {
	s := proveSegmented(t, 1)
	if len(s.proofs) != 2 || len(s.chains) != 3 {
		t.Fatalf("%d segments, %d chain values", len(s.proofs), len(s.chains))
	}
	for k := range s.proofs {
		if err := s.verify(k); err != nil {
			t.Fatalf("segment %d: %v", k, err)
		}
	}
	if want := InitialChain[bls12377fr.Element](s.st); !s.chains[0].Equal(&want) {
		t.Fatal("the first chain value is not the statement's initial state")
	}
}

// TestSegmentsTampered: a changed boundary, previous state, opened value,
// proof element or chain value, and segments verified out of order, are
// all rejected.
func TestSegmentsTampered(t *testing.T) {
	s := proveSegmented(t, 1)
	var one bls12377fr.Element
	one.SetOne()
	p1 := s.proofs[1]
	cases := map[string]func() func(){
		"boundary value": func() func() { p1.Boundary[3]++; return func() { p1.Boundary[3]-- } },
		"previous state": func() func() {
			p1.Previous.Add(&p1.Previous, &one)
			return func() { p1.Previous.Sub(&p1.Previous, &one) }
		},
		"opened value":  func() func() { p1.Tensors[2][0]++; return func() { p1.Tensors[2][0]-- } },
		"lm head round": func() func() { e := &p1.LMHead.SumCheck.Rounds[0][0]; e.Add(e, &one); return func() { e.Sub(e, &one) } },
		"chain input": func() func() {
			s.chains[1].Add(&s.chains[1], &one)
			return func() { s.chains[1].Sub(&s.chains[1], &one) }
		},
		"chain output": func() func() {
			s.chains[2].Add(&s.chains[2], &one)
			return func() { s.chains[2].Sub(&s.chains[2], &one) }
		},
		"first segment chain": func() func() {
			s.chains[0].Add(&s.chains[0], &one)
			return func() { s.chains[0].Sub(&s.chains[0], &one) }
		},
	}
	for name, tamper := range cases {
		restore := tamper()
		if errors.Is(s.verify(0), ErrRejected) || errors.Is(s.verify(1), ErrRejected) {
			restore()
			continue
		}
		restore()
		t.Errorf("%s: accepted", name)
	}
	for k := range s.proofs {
		if err := s.verify(k); err != nil {
			t.Fatalf("segment %d no longer verifies after restoring: %v", k, err)
		}
	}
	// The second segment's proof does not verify as the first.
	if err := VerifySegment[bls12377fr.Element](s.m, s.st, s.prompt, s.output, s.segs[0], s.chains[0], s.chains[1], s.proofs[1]); !errors.Is(err, ErrRejected) {
		t.Fatalf("segments swapped: %v", err)
	}
	// Bad cuts.
	for _, segs := range [][]Segment{{{From: 0, To: 1}}, {{From: 0, To: 1}, {From: 2, To: 2}}, {{From: 1, To: 2}}, {{From: 0, To: 3}}, {{From: 0, To: 2, NoHead: true}}, {{From: 0, To: 2}, {From: 2, To: 2, VocabTo: 4}}} {
		if err := checkSegments(segs, 2); err == nil {
			t.Errorf("cut %v accepted", segs)
		}
	}
	if _, err := Segments(2, 0); err == nil {
		t.Error("segments of 0 blocks accepted")
	}
}
