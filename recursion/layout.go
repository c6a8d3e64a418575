package recursion

import "fmt"

// PassShape is what an aggregator knows of one pass of the model at
// compile time: its segments' shapes, and its kind. A request's pass
// (neither field set) states one request leaf; a conversation's turn
// (Turn: the model's blocks and the cache's capacity, its segments turn
// shapes) one turn leaf; a list's pass (List: stacked requests, whose
// segments state (model id, list digest, count)) a list of requests,
// and is the aggregator's only pass.
type PassShape struct {
	Segments []SegmentShape
	Turn     *AggregatorTurn
	List     bool
}

// RequestPass, TurnPass and ListPass return the shape of a pass of each
// kind.
func RequestPass(segments []SegmentShape) PassShape { return PassShape{Segments: segments} }

// TurnPass returns the shape of a conversation's turn's pass.
func TurnPass(segments []SegmentShape, turn AggregatorTurn) PassShape {
	return PassShape{Segments: segments, Turn: &turn}
}

// ListPass returns the shape of a list's pass of stacked requests.
func ListPass(segments []SegmentShape) PassShape { return PassShape{Segments: segments, List: true} }

// MaxPasses bounds the passes of one aggregator.
const MaxPasses = 1 << 6

// checkLayout checks the passes of an aggregator: 1 to MaxPasses of
// them, a list's pass alone, every segment's shape, each pass's
// segments linked and its first reading no incoming stream nor its last
// handing one on, a turn's segments covering the model's blocks once,
// and at most MaxArity segments in all.
func checkLayout(layout []PassShape) error {
	if len(layout) < 1 || len(layout) > MaxPasses {
		return fmt.Errorf("recursion: an aggregator of %d passes, want 1 to %d", len(layout), MaxPasses)
	}
	total := 0
	for p, pass := range layout {
		if pass.List && len(layout) > 1 {
			return fmt.Errorf("recursion: pass %d, a list's, is not the aggregator's only pass", p)
		}
		if pass.List && pass.Turn != nil {
			return fmt.Errorf("recursion: pass %d is a turn's and a list's", p)
		}
		k := len(pass.Segments)
		if k < 1 {
			return fmt.Errorf("recursion: pass %d has no segment", p)
		}
		total += k
		if total > MaxArity {
			return fmt.Errorf("recursion: an aggregator of more than %d segments", MaxArity)
		}
		for i, s := range pass.Segments {
			if err := s.check(); err != nil {
				return fmt.Errorf("recursion: pass %d, segment %d: %w", p, i, err)
			}
			if err := checkLink(pass.Segments, i); err != nil {
				return fmt.Errorf("pass %d: %w", p, err)
			}
			if s.NbPedersen != layout[0].Segments[0].NbPedersen {
				return fmt.Errorf("recursion: pass %d, segment %d has %d Pedersen commitments, the first segment %d", p, i, s.NbPedersen, layout[0].Segments[0].NbPedersen)
			}
		}
		if pass.Segments[0].Incoming >= 0 || pass.Segments[k-1].Boundary >= 0 {
			return fmt.Errorf("recursion: pass %d: the first committed segment reads an incoming stream or the last hands one on", p)
		}
		if err := checkTurnShapes(pass.Segments, pass.Turn); err != nil {
			return fmt.Errorf("pass %d: %w", p, err)
		}
	}
	return nil
}
