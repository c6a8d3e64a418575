package committed

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/consensys/gnark/constraint/solver"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gkvcache "github.com/veriformer/veriformer/gadgets/kvcache"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
	npoly "github.com/veriformer/veriformer/poly"
)

// Turn holds a turn's variables in the segment circuit: Start, the
// number of rows cached before it (the state in's, a public input), and
// Keep, the number of the pass's rows it caches (native TurnKeep,
// min(s + g, rows), from the request). The capacity is the shape's
// constant.
type Turn struct {
	Start, Keep frontend.Variable
}

func init() {
	solver.RegisterHint(copyHint)
}

// copyHint returns its input.
func copyHint(_ *big.Int, in, out []*big.Int) error {
	if len(in) != 1 || len(out) != 1 {
		return fmt.Errorf("committed: copy hint of %d inputs and %d outputs", len(in), len(out))
	}
	out[0].Set(in[0])
	return nil
}

// privateCopy returns a new internal variable asserted equal to v: the
// turn's public Start and Keep enter lookups (the position rows), whose
// Pedersen commitment must not read a public input (the aggregator's
// contract, recursion.SegmentShapeOf), so the circuit reads them through
// copies.
func privateCopy(api frontend.API, v frontend.Variable) (frontend.Variable, error) {
	out, err := api.Compiler().NewHint(copyHint, 1, v)
	if err != nil {
		return nil, fmt.Errorf("committed: copy: %w", err)
	}
	api.AssertIsEqual(out[0], v)
	return out[0], nil
}

// turnKeep is native TurnKeep in circuit: s + g, less one when s + g =
// rows + 1 (the bound request has s + g − 1 ≤ rows).
func turnKeep(api frontend.API, promptLen, outputLen frontend.Variable, rows int) frontend.Variable {
	total := api.Add(promptLen, outputLen)
	return api.Sub(total, api.IsZero(api.Sub(total, rows+1)))
}

// startBits is the number of bits of a turn's Start: those of the cache's
// row index (Start < Capacity).
func startBits(s *native.Shape) int {
	if t := s.Turn(); t != nil {
		return npoly.Log2Ceil(t.Capacity)
	}
	return 0
}

// CacheProof is a block's native CacheProof in circuit (its commitments
// enter with the others as digests).
type CacheProof struct {
	ReadKeys, ReadValues   gkvcache.Proof
	KeysEval, ValuesEval   frontend.Variable
	WriteKeys, WriteValues gkvcache.WritesProof
}

// PlaceholderCache sizes the cache proofs of a turn's segment.
func PlaceholderCache(s *native.Shape) []CacheProof {
	out := make([]CacheProof, len(s.Cache))
	for b, st := range s.Cache {
		out[b] = CacheProof{
			ReadKeys: gkvcache.PlaceholderProof(st.Config), ReadValues: gkvcache.PlaceholderProof(st.Config),
			WriteKeys: gkvcache.PlaceholderWritesProof(st.Config), WriteValues: gkvcache.PlaceholderWritesProof(st.Config),
		}
	}
	return out
}

// ValueOfCache returns the assignment of a native proof's cache proofs.
func ValueOfCache(ps []native.CacheProof) []CacheProof {
	out := make([]CacheProof, len(ps))
	for b := range ps {
		p := &ps[b]
		out[b] = CacheProof{
			ReadKeys: gkvcache.ValueOfProof(p.ReadKeys), ReadValues: gkvcache.ValueOfProof(p.ReadValues),
			KeysEval: field.BigInt(&p.KeysEval), ValuesEval: field.BigInt(&p.ValuesEval),
			WriteKeys: gkvcache.ValueOfWritesProof(p.WriteKeys), WriteValues: gkvcache.ValueOfWritesProof(p.WriteValues),
		}
	}
	return out
}

// cacheReads is native cacheReads in circuit: per block, the claims the
// attention leaves on the cache it reads (the keys' at the key
// sum-check's end, the values' at the context's end with V bound at r_c).
func cacheReads(s *native.Shape, points, ends [][]frontend.Variable, proofs []FactorProof, keyEnds [][]frontend.Variable, keys []KeyProof) [][2]gpoly.Claim {
	var out [][2]gpoly.Claim
	m := 0
	for n := range s.Contractions {
		k := &s.Contractions[n]
		h, _, j, c := native.SplitEnd(k, ends[n])
		g := h[:k.BH-k.S]
		if k.Scores {
			if k.Cached {
				out = append(out, [2]gpoly.Claim{{Point: slices.Concat(keyEnds[m], g, c), Value: keys[m].K}})
			}
			m++
			continue
		}
		if k.Cached {
			r := points[k.Q]
			out[len(out)-1][1] = gpoly.Claim{Point: slices.Concat(j, g, r[k.BI+k.BH:]), Value: proofs[n].B}
		}
	}
	return out
}

// verifyCache is native verifyCache in circuit: under "committed/cache",
// per block the reads (gadgets/kvcache.Verify of all the pass's rows from
// Start) and the writes (the point, W's two values absorbed, then
// gadgets/kvcache.VerifyWrites of Keep rows from Start). It returns the
// claims they leave, in the native order.
func verifyCache(api frontend.API, t *transcript.Transcript, s *native.Shape, turn *Turn, reads [][2]gpoly.Claim, proofs []CacheProof) ([]gpcs.Claim, error) {
	if len(proofs) != len(s.Cache) || len(reads) != len(s.Cache) {
		return nil, fmt.Errorf("committed: %d cache proofs and %d reads for %d blocks", len(proofs), len(reads), len(s.Cache))
	}
	if len(s.Cache) == 0 {
		return nil, nil
	}
	t.Label("committed/cache")
	l := s.Layout
	first := s.CacheCommitment()
	var claims []gpcs.Claim
	for b := range s.Cache {
		st, p := &s.Cache[b], &proofs[b]
		cfg := st.Config
		kc, err := gkvcache.Verify(api, t, cfg, turn.Start, cfg.NewRows(), p.ReadKeys, []gpoly.Claim{reads[b][0]})
		if err != nil {
			return nil, fmt.Errorf("committed: block %d: the keys it reads: %w", st.Layer, err)
		}
		vc, err := gkvcache.Verify(api, t, cfg, turn.Start, cfg.NewRows(), p.ReadValues, []gpoly.Claim{reads[b][1]})
		if err != nil {
			return nil, fmt.Errorf("committed: block %d: the values it reads: %w", st.Layer, err)
		}
		point := t.Challenges(cfg.RowVars() + cfg.ColVars())
		t.Absorb(p.KeysEval, p.ValuesEval)
		kw, err := gkvcache.VerifyWrites(api, t, cfg, turn.Start, turn.Keep, p.WriteKeys, gpoly.Claim{Point: point, Value: p.KeysEval})
		if err != nil {
			return nil, fmt.Errorf("committed: block %d: the keys it writes: %w", st.Layer, err)
		}
		vw, err := gkvcache.VerifyWrites(api, t, cfg, turn.Start, turn.Keep, p.WriteValues, gpoly.Claim{Point: point, Value: p.ValuesEval})
		if err != nil {
			return nil, fmt.Errorf("committed: block %d: the values it writes: %w", st.Layer, err)
		}
		c := first + 4*b
		claims = append(claims,
			gpcs.Claim{Commitment: c, Point: kc.Prev.Point, Value: kc.Prev.Value},
			blockClaim(l, st.Keys, kc.New.Point, kc.New.Value),
			gpcs.Claim{Commitment: c + 1, Point: vc.Prev.Point, Value: vc.Prev.Value},
			blockClaim(l, st.Values, vc.New.Point, vc.New.Value),
			gpcs.Claim{Commitment: c + 2, Point: point, Value: p.KeysEval},
			gpcs.Claim{Commitment: c + 3, Point: point, Value: p.ValuesEval},
			blockClaim(l, st.Keys, kw.Point, kw.Value),
			blockClaim(l, st.Values, vw.Point, vw.Value))
	}
	return claims, nil
}

// turnMaskSum is maskSum in a turn: Σ_{a,b} x(a)·y(b)·[b ≤ Start + a]
// with Start a circuit variable and x, y tables that factor by bit (wx,
// wy: per coordinate the factors of bits 0 and 1), by the shifted causal
// automaton (gadgets/poly.ShiftedCausalWeights) over all 2^len(wx) query
// rows.
func turnMaskSum(api frontend.API, s *native.Shape, turn *Turn, wx, wy [][2]frontend.Variable) frontend.Variable {
	return gpoly.ShiftedCausalWeights(api, wx, wy, 1<<len(wx), turn.Start, startBits(s))
}

// productPairs are the factors of eq(x, ·)·eq(y, ·)'s bits: ((1 − x)(1 −
// y), x·y).
func productPairs(api frontend.API, x, y []frontend.Variable) [][2]frontend.Variable {
	out := make([][2]frontend.Variable, len(x))
	for i := range x {
		one := api.Mul(x[i], y[i])
		// (1 − x)(1 − y) = 1 − x − y + xy
		out[i] = [2]frontend.Variable{api.Add(api.Sub(1, x[i], y[i]), one), one}
	}
	return out
}
