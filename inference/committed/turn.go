package committed

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"slices"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/kvcache"
	"github.com/veriformer/veriformer/statement"
)

// Turn places a pass in a conversation (package documentation, "Turns"):
// Start rows are cached before it, in a cache of Capacity rows.
type Turn struct {
	Start, Capacity int
}

// cacheCommitments is the number of a turn's commitments per block: the
// state in's keys and values, the written keys and values.
const cacheCommitments = 4

// CacheStep is the cache of one block of a turn's segment.
type CacheStep struct {
	Layer int
	// Keys and Values are the blocks of the pass's new keys (after RoPE)
	// and values, [Rows, ŵ].
	Keys, Values int
	// Config is the shape of the reads and the writes: the cache's
	// Capacity rows of the key/value width, the turn's Start, the pass's
	// rows, one claim.
	Config kvcache.Config
	// Keep is the number of the pass's rows the cache keeps
	// ([TurnKeep]).
	Keep int
}

// CacheProof is a block's part of a turn's proof.
type CacheProof struct {
	// KeysIn and ValuesIn are the state in's commitments to the block's
	// cache; Keys and Values commit to the rows the turn writes, W
	// (kvcache.Writes), Capacity × ŵ each.
	KeysIn, ValuesIn pcs.Commitment
	Keys, Values     pcs.Commitment
	// ReadKeys and ReadValues prove the attention's claims on the cache it
	// reads, the state in's rows followed by the pass's Rows new ones.
	ReadKeys, ReadValues *kvcache.Proof[fr.Element]
	// KeysEval and ValuesEval are W's MLEs at the writes' point, which
	// WriteKeys and WriteValues prove from the new rows.
	KeysEval, ValuesEval   fr.Element
	WriteKeys, WriteValues *kvcache.WritesProof[fr.Element]
}

// TurnKeep is the number of rows a turn of the request pass caches: its
// tokens, prompt then output, as many as its rows hold (min(s + g,
// Rows)). When the pass has no row for the last output token (a turn of
// one row in a token-by-token generation: s + g − 1 = Rows), that token
// is not cached, and the conversation's next turn starts with it.
func TurnKeep(pass Pass) int {
	return min(len(pass.Prompt)+len(pass.Output), pass.Rows)
}

// cacheSteps lists the cache steps of a turn's segment and checks the
// turn against the pass's shapes view: view.Start = Start, every
// attention over Capacity key rows and Start + Rows ≤ Capacity.
func cacheSteps(view *model.Trace, seg inference.Segment, l *Layout, turn *Turn, pass Pass) ([]CacheStep, error) {
	if turn == nil {
		return nil, nil
	}
	if pass.Batch != nil {
		return nil, fmt.Errorf("committed: a batch's pass is not a turn")
	}
	keep := TurnKeep(pass)
	if view.Start != turn.Start || turn.Start+pass.Rows > turn.Capacity {
		return nil, fmt.Errorf("committed: a turn of %d rows keeping %d from row %d of a cache of %d rows (its pass from row %d)", pass.Rows, keep, turn.Start, turn.Capacity, view.Start)
	}
	var out []CacheStep
	for i := seg.From; i < seg.To; i++ {
		ly := &view.Layers[i]
		keys := &ly.K.Out
		if ly.RopeK != nil {
			keys = &ly.RopeK.Out
		}
		a := &ly.Attention
		if a.Keys.Shape[0] != turn.Capacity || keys.Shape[0] != pass.Rows {
			return nil, fmt.Errorf("committed: block %d attends to %d key rows, the cache has %d", i, a.Keys.Shape[0], turn.Capacity)
		}
		bk, okK := l.Index[keys]
		bv, okV := l.Index[&ly.V.Out]
		if !okK || !okV {
			return nil, fmt.Errorf("committed: block %d: the new keys or values are not committed", i)
		}
		cfg := kvcache.Config{Context: turn.Capacity, Width: keys.Shape[1], Position: turn.Start, Rows: pass.Rows, Claims: 1}
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		out = append(out, CacheStep{Layer: i, Keys: bk, Values: bv, Config: cfg, Keep: keep})
	}
	return out, nil
}

// cacheVars is the number of variables of a block's cache MLE (0 without
// a cache step).
func cacheVars(steps []CacheStep) int {
	if len(steps) == 0 {
		return 0
	}
	return steps[0].Config.RowVars() + steps[0].Config.ColVars()
}

// cacheData is the prover's view of one block's cache: the integers of
// the state in's rows and of the new rows, and the tables (Capacity × ŵ
// padded) of the cache the attention reads, of the state in and of the
// written rows.
type cacheData struct {
	keysIn, valuesIn, newKeys, newValues []int64
	// writtenKeys and writtenValues are the rows W holds: the new rows
	// (a test forges them, withForgedWrites, to commit a W that the
	// proof of the writes does not match).
	writtenKeys, writtenValues []int64
	readKeys, readValues       []fr.Element
	tables                     [cacheCommitments][]fr.Element
}

// newCacheData builds a block's cache tables from the turn's trace; forge
// (nil but in tests) changes the rows the turn writes.
func newCacheData(tr *model.Trace, l *Layout, st *CacheStep, forge func(layer int, keys, values []int64)) (*cacheData, error) {
	a := &tr.Layers[st.Layer].Attention
	cfg := st.Config
	w, start := cfg.Width, cfg.Position
	d := &cacheData{
		keysIn: a.Keys.Data[:start*w], valuesIn: a.Values.Data[:start*w],
		newKeys: l.Blocks[st.Keys].Tensor.Data, newValues: l.Blocks[st.Values].Tensor.Data,
	}
	if len(d.newKeys) != cfg.NewRows()*w || len(d.newValues) != cfg.NewRows()*w {
		return nil, fmt.Errorf("committed: block %d: %d new keys for %d rows of width %d", st.Layer, len(d.newKeys), cfg.NewRows(), w)
	}
	d.writtenKeys, d.writtenValues = d.newKeys, d.newValues
	if forge != nil {
		d.writtenKeys, d.writtenValues = slices.Clone(d.newKeys), slices.Clone(d.newValues)
		forge(st.Layer, d.writtenKeys, d.writtenValues)
	}
	d.readKeys = kvcache.Table[fr.Element](cfg, a.Keys.Data)
	d.readValues = kvcache.Table[fr.Element](cfg, a.Values.Data)
	d.tables[0] = kvcache.Table[fr.Element](cfg, d.keysIn)
	d.tables[1] = kvcache.Table[fr.Element](cfg, d.valuesIn)
	var err error
	if d.tables[2], err = kvcache.Writes[fr.Element](cfg, d.writtenKeys, st.Keep); err != nil {
		return nil, err
	}
	if d.tables[3], err = kvcache.Writes[fr.Element](cfg, d.writtenValues, st.Keep); err != nil {
		return nil, err
	}
	return d, nil
}

// proveCache proves, under label "committed/cache", each block's reads
// (the attention's claims on the cache, reads[b]) and writes (W at a
// point drawn after every commitment), filling proofs (whose commitments
// are set) and returning the claims they leave.
func proveCache(t *pcs.Transcript, l *Layout, steps []CacheStep, data []*cacheData, reads [][2]poly.Claim[fr.Element], proofs []CacheProof, first int) ([]pcs.Claim, error) {
	if len(steps) == 0 {
		return nil, nil
	}
	t.Label("committed/cache")
	var claims []pcs.Claim
	for b := range steps {
		st, d, p := &steps[b], data[b], &proofs[b]
		cfg := st.Config
		var kc, vc kvcache.Claims[fr.Element]
		var err error
		if p.ReadKeys, kc, err = kvcache.Prove(t, cfg, kvcache.Witness{Prev: d.keysIn, New: d.newKeys, Live: cfg.NewRows()}, reads[b][:1]); err != nil {
			return nil, fmt.Errorf("committed: the keys block %d reads: %w", st.Layer, err)
		}
		if p.ReadValues, vc, err = kvcache.Prove(t, cfg, kvcache.Witness{Prev: d.valuesIn, New: d.newValues, Live: cfg.NewRows()}, reads[b][1:]); err != nil {
			return nil, fmt.Errorf("committed: the values block %d reads: %w", st.Layer, err)
		}
		point := t.Challenges(cfg.RowVars() + cfg.ColVars())
		p.KeysEval = poly.Evaluate[fr.Element](d.tables[2], point)
		p.ValuesEval = poly.Evaluate[fr.Element](d.tables[3], point)
		t.Absorb(p.KeysEval, p.ValuesEval)
		var kw, vw poly.Claim[fr.Element]
		if p.WriteKeys, kw, err = kvcache.ProveWrites(t, cfg, d.newKeys, st.Keep, poly.Claim[fr.Element]{Point: point, Value: p.KeysEval}); err != nil {
			return nil, fmt.Errorf("committed: the keys block %d writes: %w", st.Layer, err)
		}
		if p.WriteValues, vw, err = kvcache.ProveWrites(t, cfg, d.newValues, st.Keep, poly.Claim[fr.Element]{Point: point, Value: p.ValuesEval}); err != nil {
			return nil, fmt.Errorf("committed: the values block %d writes: %w", st.Layer, err)
		}
		claims = append(claims, blockCacheClaims(l, st, first+cacheCommitments*b, kc, vc, point, p, kw, vw)...)
	}
	return claims, nil
}

// verifyCache replays proveCache and returns the claims it leaves.
func verifyCache(t *pcs.Transcript, l *Layout, steps []CacheStep, reads [][2]poly.Claim[fr.Element], proofs []CacheProof, first int) ([]pcs.Claim, error) {
	if len(proofs) != len(steps) || len(reads) != len(steps) {
		return nil, fmt.Errorf("%d cache proofs and %d reads for %d blocks", len(proofs), len(reads), len(steps))
	}
	if len(steps) == 0 {
		return nil, nil
	}
	t.Label("committed/cache")
	var claims []pcs.Claim
	for b := range steps {
		st, p := &steps[b], &proofs[b]
		cfg := st.Config
		if p.ReadKeys == nil || p.ReadValues == nil || p.WriteKeys == nil || p.WriteValues == nil {
			return nil, fmt.Errorf("block %d: incomplete cache proof", st.Layer)
		}
		kc, err := kvcache.Verify(t, cfg, cfg.NewRows(), p.ReadKeys, reads[b][:1])
		if err != nil {
			return nil, fmt.Errorf("block %d: the keys it reads: %w", st.Layer, err)
		}
		vc, err := kvcache.Verify(t, cfg, cfg.NewRows(), p.ReadValues, reads[b][1:])
		if err != nil {
			return nil, fmt.Errorf("block %d: the values it reads: %w", st.Layer, err)
		}
		point := t.Challenges(cfg.RowVars() + cfg.ColVars())
		t.Absorb(p.KeysEval, p.ValuesEval)
		kw, err := kvcache.VerifyWrites(t, cfg, st.Keep, p.WriteKeys, poly.Claim[fr.Element]{Point: point, Value: p.KeysEval})
		if err != nil {
			return nil, fmt.Errorf("block %d: the keys it writes: %w", st.Layer, err)
		}
		vw, err := kvcache.VerifyWrites(t, cfg, st.Keep, p.WriteValues, poly.Claim[fr.Element]{Point: point, Value: p.ValuesEval})
		if err != nil {
			return nil, fmt.Errorf("block %d: the values it writes: %w", st.Layer, err)
		}
		claims = append(claims, blockCacheClaims(l, st, first+cacheCommitments*b, kc, vc, point, p, kw, vw)...)
	}
	return claims, nil
}

// blockCacheClaims are a block's cache claims in batch order: the state
// in's keys and the new keys from the keys' read, the same for the
// values, then the written keys and values at the writes' point and the
// new keys and values the writes leave. Commitment first is the block's
// KeysIn, then ValuesIn, Keys, Values.
func blockCacheClaims(l *Layout, st *CacheStep, first int, kc, vc kvcache.Claims[fr.Element], point []fr.Element, p *CacheProof, kw, vw poly.Claim[fr.Element]) []pcs.Claim {
	return []pcs.Claim{
		{Commitment: first, Point: kc.Prev.Point, Value: kc.Prev.Value},
		{Commitment: TensorsCommitment, Point: l.Point(st.Keys, kc.New.Point), Value: kc.New.Value},
		{Commitment: first + 1, Point: vc.Prev.Point, Value: vc.Prev.Value},
		{Commitment: TensorsCommitment, Point: l.Point(st.Values, vc.New.Point), Value: vc.New.Value},
		{Commitment: first + 2, Point: point, Value: p.KeysEval},
		{Commitment: first + 3, Point: point, Value: p.ValuesEval},
		{Commitment: TensorsCommitment, Point: l.Point(st.Keys, kw.Point), Value: kw.Value},
		{Commitment: TensorsCommitment, Point: l.Point(st.Values, vw.Point), Value: vw.Value},
	}
}

// cacheCommitmentsOf lists a proof's cache commitments in batch order.
func cacheCommitmentsOf(proofs []CacheProof) []pcs.Commitment {
	var out []pcs.Commitment
	for _, p := range proofs {
		out = append(out, p.KeysIn, p.ValuesIn, p.Keys, p.Values)
	}
	return out
}

// State is a conversation's committed key/value cache after a turn:
// Rows rows cached in a cache of Capacity rows, and per block of the
// model the commitments to its keys' and values' cache (Capacity × ŵ
// MLEs, zero from row Rows on). The commitment is linear, so a turn's
// state out is its state in plus the rows it writes ([NextState]).
type State struct {
	Rows, Capacity int
	Keys, Values   []pcs.Commitment
}

// EmptyState returns the state before a conversation's first turn over
// a cache of capacity rows for a model of layers blocks: no row, every
// commitment the identity (the commitment to zero).
func EmptyState(layers, capacity int) *State {
	return &State{Capacity: capacity, Keys: make([]pcs.Commitment, layers), Values: make([]pcs.Commitment, layers)}
}

// Check checks the state's shape for a model of layers blocks: a
// commitment per block to keys and values, 0 ≤ Rows ≤ Capacity, and the
// identity everywhere when Rows = 0.
func (s *State) Check(layers int) error {
	if s == nil || len(s.Keys) != layers || len(s.Values) != layers {
		return fmt.Errorf("committed: a state needs the keys and values of %d blocks", layers)
	}
	if s.Capacity < 1 || s.Rows < 0 || s.Rows > s.Capacity {
		return fmt.Errorf("committed: a state of %d rows in a cache of %d", s.Rows, s.Capacity)
	}
	if s.Rows == 0 && (slices.ContainsFunc(s.Keys, notIdentity) || slices.ContainsFunc(s.Values, notIdentity)) {
		return fmt.Errorf("committed: an empty state commits to a non-zero cache")
	}
	return nil
}

func notIdentity(c pcs.Commitment) bool { return !c.IsInfinity() }

// Digest returns the state's value in a turn's statement:
// statement.EmptyState (0) for the empty state, otherwise
// pcs.DigestWith("committed/state", (Rows, Capacity), (K₀, V₀, K₁, V₁, …))
// as an integer below 2²⁵⁰.
func (s *State) Digest() *big.Int {
	if s.Rows == 0 {
		return new(big.Int).Set(statement.EmptyState)
	}
	points := make([]bls12377.G1Affine, 0, 2*len(s.Keys))
	for i := range s.Keys {
		points = append(points, s.Keys[i], s.Values[i])
	}
	d := pcs.DigestWith("committed/state", []uint64{uint64(s.Rows), uint64(s.Capacity)}, points)
	return field.BigInt(&d)
}

// NextState returns the state a verified turn leaves: in, plus the rows
// written by the proofs' cache steps (proofs[k] of segs[k]), keep more
// rows.
func NextState(in *State, segs []inference.Segment, proofs []*Proof, keep int) (*State, error) {
	out := &State{Rows: in.Rows + keep, Capacity: in.Capacity, Keys: slices.Clone(in.Keys), Values: slices.Clone(in.Values)}
	if out.Rows > out.Capacity {
		return nil, fmt.Errorf("%w: %d rows past a cache of %d", ErrRejected, out.Rows, out.Capacity)
	}
	written := 0
	for k, seg := range segs {
		if seg.Chunk() {
			continue
		}
		if len(proofs[k].Cache) != seg.To-seg.From {
			return nil, fmt.Errorf("%w: segment %d writes the cache of %d blocks, it has %d", ErrRejected, k, len(proofs[k].Cache), seg.To-seg.From)
		}
		for b, p := range proofs[k].Cache {
			i := seg.From + b
			out.Keys[i].Add(&out.Keys[i], &p.Keys)
			out.Values[i].Add(&out.Values[i], &p.Values)
			written++
		}
	}
	if written != len(in.Keys) {
		return nil, fmt.Errorf("%w: the turn writes the cache of %d of %d blocks", ErrRejected, written, len(in.Keys))
	}
	return out, nil
}

// TurnView is the shapes pass of a turn (as inference.ShapePass is of a
// pass from position 0): a pass of rows rows over a cache of Start zero
// rows with the turn's capacity. Its shapes and ranges depend on rows and
// Capacity only; its position-dependent constants (RoPE's cos and sin,
// GPT-2's position rows) on Start.
func TurnView(m *model.Model, rows int, turn Turn) (*model.Trace, error) {
	cache := m.NewCache()
	kvd := m.Config.HeadLayout().KVDim()
	for l := range cache.Keys {
		cache.Keys[l] = make([]int64, turn.Start*kvd)
		cache.Values[l] = make([]int64, turn.Start*kvd)
	}
	cache.Len, cache.Capacity = turn.Start, turn.Capacity
	if rows < 1 || turn.Start+rows > turn.Capacity {
		return nil, fmt.Errorf("committed: a turn of %d rows from row %d of a cache of %d", rows, turn.Start, turn.Capacity)
	}
	return m.Forward(cache, make([]int, rows))
}

// TurnTrace runs a turn's pass: the request's tokens (pass.Tokens(), its
// bucket of rows) over cache (cache.Len rows) with the given capacity. It
// returns the trace to prove and the cache the turn leaves, which keeps
// [TurnKeep] rows more; cache itself is unchanged.
func TurnTrace(m *model.Model, cache *model.Cache, pass Pass, capacity int) (*model.Trace, *model.Cache, error) {
	if pass.Batch != nil {
		return nil, nil, fmt.Errorf("committed: a batch's pass is not a turn")
	}
	keep := TurnKeep(pass)
	if cache.Len+pass.Rows > capacity {
		return nil, nil, fmt.Errorf("committed: a turn of %d rows from row %d of a cache of %d rows", pass.Rows, cache.Len, capacity)
	}
	next := cache.Clone()
	next.Capacity = capacity
	tr, err := m.Forward(next, pass.Tokens())
	if err != nil {
		return nil, nil, err
	}
	if err := next.Truncate(cache.Len + keep); err != nil {
		return nil, nil, err
	}
	return tr, next, nil
}

// ProveTurn proves segment seg of a turn's pass tr (from [TurnTrace])
// from the state of turn.Start rows, as [Prove] proves a pass's: [Prove]
// with [WithTurn]. Used by the tests of packages inference/committed,
// gadgets/committed and recursion; the commands give [Prove] the option.
func ProveTurn(srs *pcs.SRS, m *model.Model, st statement.Statement, pass Pass, tr *model.Trace, seg inference.Segment, turn Turn, opts ...Option) (*Proof, *Timings, error) {
	return Prove(srs, m, st, pass, tr, seg, append(slices.Clone(opts), WithTurn(turn))...)
}

// VerifyTurn checks the committed proofs of a turn (proofs[k] of segment
// segs[k], as [VerifyPass] checks a pass's) from the state in, and
// returns the state the turn leaves. Every proof must read the state
// in's commitments. The caller checks st against the model and the
// request, and the turn's statement against in.Digest() and the
// returned state's.
func VerifyTurn(vk *VerifyingKey, m *model.Model, st statement.Statement, pass Pass, in *State, segs []inference.Segment, proofs []*Proof) (*State, error) {
	out, _, err := VerifyTurnChecks(vk, m, st, pass, in, segs, proofs)
	return out, err
}

// VerifyTurnChecks is [VerifyTurn] returning each segment's
// pairing-check scalars too ([Shape.VerifyField]), which its segment
// circuit takes as public inputs.
func VerifyTurnChecks(vk *VerifyingKey, m *model.Model, st statement.Statement, pass Pass, in *State, segs []inference.Segment, proofs []*Proof) (*State, []*pcs.GroupCheck, error) {
	if len(segs) == 0 || len(segs) != len(proofs) {
		return nil, nil, fmt.Errorf("%w: %d proofs for %d segments", ErrRejected, len(proofs), len(segs))
	}
	view, err := turnView(vk, m, pass, in)
	if err != nil {
		return nil, nil, err
	}
	if err := checkCut(segs, len(view.Layers), m.Config.Vocab); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	checks := make([]*pcs.GroupCheck, len(segs))
	for k, seg := range segs {
		check, err := verifyTurnSegment(vk, m, view, st, pass, in, seg, proofs[k])
		if err != nil {
			return nil, nil, fmt.Errorf("segment %d %v: %w", k, seg, err)
		}
		checks[k] = check
	}
	if err := CheckChain(segs, proofs); err != nil {
		return nil, nil, err
	}
	if err := checkChosen(segs, proofs); err != nil {
		return nil, nil, err
	}
	out, err := NextState(in, segs, proofs, TurnKeep(pass))
	return out, checks, err
}

// VerifyTurnSegment checks one segment's committed proof of a turn from
// the state in, as [VerifyTurnChecks] checks each: the proof alone, its
// accumulator claims all proven, and its reads of the state in's
// commitments. The chain of the turn's segments is left to the caller
// (CheckLinks, then VerifyTurnChecks over the whole turn). A prover that
// hands out segments to others checks each as it arrives.
func VerifyTurnSegment(vk *VerifyingKey, m *model.Model, st statement.Statement, pass Pass, in *State, seg inference.Segment, proof *Proof) error {
	view, err := turnView(vk, m, pass, in)
	if err != nil {
		return err
	}
	_, err = verifyTurnSegment(vk, m, view, st, pass, in, seg, proof)
	return err
}

// turnView checks the key, the pass and the state in, and returns the
// shapes pass of the turn from the state in.
func turnView(vk *VerifyingKey, m *model.Model, pass Pass, in *State) (*model.Trace, error) {
	if err := in.Check(m.Config.Layers); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if vk == nil || vk.PCS == nil {
		return nil, fmt.Errorf("%w: no verifying key", ErrRejected)
	}
	if err := pass.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	view, err := TurnView(m, pass.Rows, Turn{Start: in.Rows, Capacity: in.Capacity})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return view, nil
}

// verifyTurnSegment verifies a turn's segment proof on the turn's view
// and checks that it reads the state in's commitments.
func verifyTurnSegment(vk *VerifyingKey, m *model.Model, view *model.Trace, st statement.Statement, pass Pass, in *State, seg inference.Segment, proof *Proof) (*pcs.GroupCheck, error) {
	if proof == nil {
		return nil, fmt.Errorf("%w: no proof", ErrRejected)
	}
	turn := Turn{Start: in.Rows, Capacity: in.Capacity}
	check, claims, err := verify(vk, m, view, st, pass, seg, proof, &turn)
	if err != nil {
		return nil, err
	}
	if len(claims.Accumulators) > 0 {
		return nil, fmt.Errorf("%w: %d accumulator claims left unproven", ErrRejected, len(claims.Accumulators))
	}
	for b, p := range proof.Cache {
		i := seg.From + b
		if i >= len(in.Keys) {
			return nil, fmt.Errorf("%w: a cache proof of block %d, the model has %d", ErrRejected, i, len(in.Keys))
		}
		if !p.KeysIn.Equal(&in.Keys[i]) || !p.ValuesIn.Equal(&in.Values[i]) {
			return nil, fmt.Errorf("%w: it reads another cache of block %d than the state in's", ErrRejected, i)
		}
	}
	return check, nil
}

// StateOf commits to a model cache as a conversation's state over a
// cache of capacity rows (what the turns that filled it leave).
func StateOf(srs *pcs.SRS, m *model.Model, c *model.Cache, capacity int) (*State, error) {
	s := EmptyState(m.Config.Layers, capacity)
	s.Rows = c.Len
	cfg := kvcache.Config{Context: capacity, Width: m.Config.HeadLayout().KVDim(), Claims: 1}
	if c.Len > capacity || len(c.Keys) != m.Config.Layers || len(c.Values) != m.Config.Layers {
		return nil, fmt.Errorf("committed: a cache of %d rows and %d blocks for a state of %d rows and %d blocks", c.Len, len(c.Keys), capacity, m.Config.Layers)
	}
	for l := range c.Keys {
		if len(c.Keys[l]) != c.Len*cfg.Width || len(c.Values[l]) != c.Len*cfg.Width {
			return nil, fmt.Errorf("committed: cache block %d does not hold %d rows of width %d", l, c.Len, cfg.Width)
		}
		var err error
		if s.Keys[l], err = pcs.Commit(srs, kvcache.Table[fr.Element](cfg, c.Keys[l])); err != nil {
			return nil, err
		}
		if s.Values[l], err = pcs.Commit(srs, kvcache.Table[fr.Element](cfg, c.Values[l])); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// stateMagic starts an encoded [State].
var stateMagic = []byte("veriformer/state")

// MarshalBinary writes the state: the magic string "veriformer/state",
// then Rows, Capacity and the number of blocks as 4-byte big-endian
// integers, then per block its keys' and values' commitments (G1 points
// compressed, 48 bytes each).
func (s *State) MarshalBinary() ([]byte, error) {
	if len(s.Keys) != len(s.Values) {
		return nil, fmt.Errorf("committed: a state of %d keys' and %d values' commitments", len(s.Keys), len(s.Values))
	}
	w := &writer{}
	w.buf.Write(stateMagic)
	w.count(s.Rows)
	w.count(s.Capacity)
	w.count(len(s.Keys))
	for i := range s.Keys {
		w.point(&s.Keys[i])
		w.point(&s.Values[i])
	}
	return w.buf.Bytes(), nil
}

// UnmarshalState reads a state written by [State.MarshalBinary] and
// checks it as [State.Check] does for its own number of blocks: at most
// 2¹⁶ blocks, 0 ≤ Rows ≤ Capacity ≤ 2²⁴, points compressed, canonical
// and in G1, the identity everywhere when Rows = 0. It never panics
// (fuzzed).
func UnmarshalState(data []byte) (*State, error) {
	if !bytes.HasPrefix(data, stateMagic) {
		return nil, errors.New("committed: decode: not a conversation state")
	}
	r := &reader{data: data[len(stateMagic):]}
	s := &State{}
	s.Rows = r.count(maxStateRows, 0)
	s.Capacity = r.count(maxStateRows, 0)
	n := r.count(maxStateBlocks, 2*48)
	if r.err == nil {
		s.Keys, s.Values = make([]pcs.Commitment, n), make([]pcs.Commitment, n)
		for i := range n {
			r.point(&s.Keys[i])
			r.point(&s.Values[i])
		}
	}
	if r.err == nil && len(r.data) != 0 {
		r.fail(fmt.Errorf("%d trailing bytes", len(r.data)))
	}
	if r.err != nil {
		return nil, fmt.Errorf("committed: decode state: %w", r.err)
	}
	if err := s.Check(n); err != nil {
		return nil, err
	}
	return s, nil
}

// Bounds of a decoded state.
const (
	maxStateRows   = 1 << 24
	maxStateBlocks = 1 << 16
)
