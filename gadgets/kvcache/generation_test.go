package kvcache_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gkvcache "github.com/veriformer/veriformer/gadgets/kvcache"
	"github.com/veriformer/veriformer/gadgets/poly"
	gqkv "github.com/veriformer/veriformer/gadgets/qkv"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/model"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/kvcache"
	"github.com/veriformer/veriformer/protocol/qkv"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

// A generation is one prompt pass and several decoding passes of one QKV
// layer with its KV cache, proven over one transcript from the last pass
// back to the prompt. The attention of each pass is stood in for by
// claims at transcript challenges on its inputs: q (or Q), and the whole
// K and V caches (the prompt's own K and V for the prompt pass).
type generation struct {
	context, prompt, passes int
	layer                   qkv.Config // Rows set per pass
	w                       qkv.Witness
	inputs                  [][]int64 // per pass: the QKV input rows
	// keys, values: per pass, the cache after the pass as the prover holds
	// it (rows × KVCols); prevKeys: the cache the pass appends to.
	keys, values, prevKeys, prevValues [][]int64
	queries, newKeys, newValues        [][]int64
}

func randomInts(rng *rand.Rand, n int, bound int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = rng.Int64N(2*bound+1) - bound
	}
	return out
}

func randomWeights(rng *rand.Rand, n int) []int8 {
	out := make([]int8, n)
	for i := range out {
		out[i] = int8(rng.IntN(256) - 128)
	}
	return out
}

// widen returns int8 weights as int64 values, for the tensor checks.
func widen(w []int8) []int64 {
	out := make([]int64, len(w))
	for i, v := range w {
		out[i] = int64(v)
	}
	return out
}

// newGeneration runs the plain computation; swapPass > 0 makes that decoding
// pass append to its cache with rows 0 and 1 swapped.
func newGeneration(rng *rand.Rand, swapPass int) (*generation, error) {
	s := &generation{context: 6, prompt: 3, passes: 4,
		layer: qkv.Config{Hidden: 12, Heads: 4, KVHeads: 1, HeadDim: 3, Bias: true}}
	d, qc, kc := s.layer.Hidden, s.layer.QCols(), s.layer.KVCols()
	s.w = qkv.Witness{Weights: [][]int8{randomWeights(rng, qc*d), randomWeights(rng, kc*d), randomWeights(rng, kc*d)},
		Biases: [][]int64{randomInts(rng, qc, 1000), randomInts(rng, kc, 1000), randomInts(rng, kc, 1000)}}
	var keys, values []int64
	for p := range s.passes {
		rows := 1
		if p == 0 {
			rows = s.prompt
		}
		x := randomInts(rng, rows*d, 1<<10)
		var acc [3][]int64
		for o, n := range []int{qc, kc, kc} {
			acc[o] = model.MatMulInt(x, rows, d, s.w.Weights[o], n, s.w.Biases[o])
		}
		q, k, v := acc[0], acc[1], acc[2]
		prevK, prevV := slices.Clone(keys), slices.Clone(values)
		if swapPass > 0 && p == swapPass {
			for c := range kc {
				prevK[c], prevK[kc+c] = prevK[kc+c], prevK[c]
			}
		}
		keys, values = append(slices.Clone(prevK), k...), append(slices.Clone(prevV), v...)
		s.inputs = append(s.inputs, x)
		s.prevKeys, s.prevValues = append(s.prevKeys, prevK), append(s.prevValues, prevV)
		s.keys, s.values = append(s.keys, keys), append(s.values, values)
		s.queries, s.newKeys, s.newValues = append(s.queries, q), append(s.newKeys, k), append(s.newValues, v)
	}
	return s, nil
}

func (s *generation) rows(p int) int {
	if p == 0 {
		return s.prompt
	}
	return 1
}

func (s *generation) layerConfig(p int) qkv.Config {
	cfg := s.layer
	cfg.Rows = s.rows(p)
	return cfg
}

// attentionVars returns the coordinates of the stand-in attention claims
// of pass p: on q, K and V, which hold the prompt + p rows seen so far
// (padded to a power of two); a decoding pass extends its K and V claims
// to the whole cache with ExtendRows.
func (s *generation) attentionVars(p int) [3]int {
	kvRows := npoly.Log2Ceil(s.prompt + p)
	q, kv := npoly.Log2Ceil(s.layer.QCols()), npoly.Log2Ceil(s.layer.KVCols())
	return [3]int{npoly.Log2Ceil(s.rows(p)) + q, kvRows + kv, kvRows + kv}
}

// generationProof is the prover's messages, per pass in proving order
// (passes−1 down to 0).
type generationProof[E field.Scalar] struct {
	attention [][3]E
	appendK   []*kvcache.Proof[E]
	appendV   []*kvcache.Proof[E]
	promptK   *kvcache.PromptProof[E]
	promptV   *kvcache.PromptProof[E]
	layers    []*qkv.Proof[E]
}

func newTranscript[E field.Scalar, P field.Ptr[E]]() *ntranscript.Transcript[E, P] {
	return ntranscript.New[E, P]("kv-generation", field.FromInt64[E, P](3))
}

func (s *generation) appendConfig(p, claims int) kvcache.Config {
	return kvcache.Config{Context: s.context, Width: s.layer.KVCols(), Position: s.prompt + p - 1, Claims: claims}
}

func (s *generation) promptConfig() kvcache.PromptConfig {
	return kvcache.PromptConfig{Context: s.context, Rows: s.prompt, Width: s.layer.KVCols(), CacheClaims: 1, PromptClaims: 1}
}

// prove runs the prover over all passes.
func prove[E field.Scalar, P field.Ptr[E]](s *generation) (*generationProof[E], error) {
	tr := newTranscript[E, P]()
	proof := &generationProof[E]{}
	var carryK, carryV []npoly.Claim[E]
	kc := s.layer.KVCols()
	for p := s.passes - 1; p >= 0; p-- {
		vars := s.attentionVars(p)
		kvRows := s.prompt + p
		tensors := [3][]int64{s.queries[p], pad(s.keys[p], kvRows*kc), pad(s.values[p], kvRows*kc)}
		widths := [3]int{s.layer.QCols(), kc, kc}
		rows := [3]int{s.rows(p), kvRows, kvRows}
		var attn [3]npoly.Claim[E]
		var values [3]E
		for o := range 3 {
			point := tr.Challenges(vars[o])
			v, err := npoly.EvaluateTensor[E, P](tensors[o], []int{rows[o], widths[o]}, point)
			if err != nil {
				return nil, err
			}
			values[o] = v
			attn[o] = npoly.Claim[E]{Point: point, Value: values[o]}
		}
		tr.Absorb(values[:]...)
		proof.attention = append(proof.attention, values)
		var kClaim, vClaim npoly.Claim[E]
		if p > 0 {
			if err := extend(&attn, s); err != nil {
				return nil, err
			}
			ak, ck, err := kvcache.Prove(tr, s.appendConfig(p, 1+len(carryK)), kvcache.Witness{Prev: s.prevKeys[p], New: s.newKeys[p], Live: 1}, append([]npoly.Claim[E]{attn[1]}, carryK...))
			if err != nil {
				return nil, fmt.Errorf("pass %d: append K: %w", p, err)
			}
			av, cv, err := kvcache.Prove(tr, s.appendConfig(p, 1+len(carryV)), kvcache.Witness{Prev: s.prevValues[p], New: s.newValues[p], Live: 1}, append([]npoly.Claim[E]{attn[2]}, carryV...))
			if err != nil {
				return nil, fmt.Errorf("pass %d: append V: %w", p, err)
			}
			proof.appendK, proof.appendV = append(proof.appendK, ak), append(proof.appendV, av)
			carryK, carryV = []npoly.Claim[E]{ck.Prev}, []npoly.Claim[E]{cv.Prev}
			kClaim, vClaim = ck.New, cv.New
		} else {
			pk, ck, err := kvcache.ProvePrompt(tr, s.promptConfig(), s.keys[0], carryK, []npoly.Claim[E]{attn[1]})
			if err != nil {
				return nil, fmt.Errorf("prompt K: %w", err)
			}
			pv, cv, err := kvcache.ProvePrompt(tr, s.promptConfig(), s.values[0], carryV, []npoly.Claim[E]{attn[2]})
			if err != nil {
				return nil, fmt.Errorf("prompt V: %w", err)
			}
			proof.promptK, proof.promptV = pk, pv
			kClaim, vClaim = ck, cv
		}
		w := s.w
		w.X = s.inputs[p]
		lp, _, err := qkv.Prove(tr, s.layerConfig(p), w, []npoly.Claim[E]{attn[0], kClaim, vClaim})
		if err != nil {
			return nil, fmt.Errorf("pass %d: qkv: %w", p, err)
		}
		proof.layers = append(proof.layers, lp)
	}
	return proof, nil
}

// extend turns the attention's claims on K and V (the rows seen so far)
// into claims on the whole cache.
func extend[E field.Scalar](attn *[3]npoly.Claim[E], s *generation) error {
	for o := 1; o < 3; o++ {
		c, err := kvcache.ExtendRows(attn[o], len(attn[o].Point)-npoly.Log2Ceil(s.layer.KVCols()), npoly.Log2Ceil(s.context))
		if err != nil {
			return err
		}
		attn[o] = c
	}
	return nil
}

// pad extends a row-major cache with zero rows to n entries.
func pad(values []int64, n int) []int64 {
	out := make([]int64, n)
	copy(out, values)
	return out
}

// verify runs the native verifier over all passes and checks the claims
// left on the inputs and weights.
func verify[E field.Scalar, P field.Ptr[E]](s *generation, proof *generationProof[E]) error {
	tr := newTranscript[E, P]()
	var carryK, carryV []npoly.Claim[E]
	for i, p := 0, s.passes-1; p >= 0; i, p = i+1, p-1 {
		vars := s.attentionVars(p)
		var attn [3]npoly.Claim[E]
		for o := range 3 {
			attn[o] = npoly.Claim[E]{Point: tr.Challenges(vars[o]), Value: proof.attention[i][o]}
		}
		tr.Absorb(proof.attention[i][:]...)
		var kClaim, vClaim npoly.Claim[E]
		if p > 0 {
			if err := extend(&attn, s); err != nil {
				return err
			}
			ck, err := kvcache.Verify(tr, s.appendConfig(p, 1+len(carryK)), 1, proof.appendK[i], append([]npoly.Claim[E]{attn[1]}, carryK...))
			if err != nil {
				return fmt.Errorf("pass %d: append K: %w", p, err)
			}
			cv, err := kvcache.Verify(tr, s.appendConfig(p, 1+len(carryV)), 1, proof.appendV[i], append([]npoly.Claim[E]{attn[2]}, carryV...))
			if err != nil {
				return fmt.Errorf("pass %d: append V: %w", p, err)
			}
			carryK, carryV = []npoly.Claim[E]{ck.Prev}, []npoly.Claim[E]{cv.Prev}
			kClaim, vClaim = ck.New, cv.New
		} else {
			ck, err := kvcache.VerifyPrompt(tr, s.promptConfig(), proof.promptK, carryK, []npoly.Claim[E]{attn[1]})
			if err != nil {
				return fmt.Errorf("prompt K: %w", err)
			}
			cv, err := kvcache.VerifyPrompt(tr, s.promptConfig(), proof.promptV, carryV, []npoly.Claim[E]{attn[2]})
			if err != nil {
				return fmt.Errorf("prompt V: %w", err)
			}
			kClaim, vClaim = ck, cv
		}
		cfg := s.layerConfig(p)
		claims, err := qkv.Verify(tr, cfg, proof.layers[i], []npoly.Claim[E]{attn[0], kClaim, vClaim})
		if err != nil {
			return fmt.Errorf("pass %d: qkv: %w", p, err)
		}
		for _, c := range layerChecks(s, p, claimsOf(claims)) {
			want, err := npoly.EvaluateTensor[E, P](c.values, []int{c.rows, c.cols}, c.claim.Point)
			if err != nil {
				return fmt.Errorf("pass %d: %s: %w", p, c.name, err)
			}
			if !P(&want).Equal(&c.claim.Value) {
				return fmt.Errorf("pass %d: %s claim does not match", p, c.name)
			}
		}
	}
	return nil
}

type claimCheck[C any] struct {
	name       string
	claim      C
	values     []int64
	rows, cols int
}

func claimsOf[E field.Scalar](c qkv.Claims[E]) [7]npoly.Claim[E] {
	return [7]npoly.Claim[E]{c.Input, c.Weights[0], c.Weights[1], c.Weights[2], c.Biases[0], c.Biases[1], c.Biases[2]}
}

// layerChecks pairs the claims a QKV layer leaves (input, weights, biases)
// with the tensors they must match.
func layerChecks[C any](s *generation, p int, claims [7]C) []claimCheck[C] {
	d, qc, kc := s.layer.Hidden, s.layer.QCols(), s.layer.KVCols()
	return []claimCheck[C]{
		{"input", claims[0], s.inputs[p], s.rows(p), d},
		{"W_Q", claims[1], widen(s.w.Weights[0]), qc, d}, {"W_K", claims[2], widen(s.w.Weights[1]), kc, d}, {"W_V", claims[3], widen(s.w.Weights[2]), kc, d},
		{"b_Q", claims[4], s.w.Biases[0], 1, qc}, {"b_K", claims[5], s.w.Biases[1], 1, kc}, {"b_V", claims[6], s.w.Biases[2], 1, kc},
	}
}

// generationCircuit verifies a whole generation in a circuit, in the native
// verifier's order, and checks the claims left on the inputs and weights
// against constants.
type generationCircuit struct {
	Attention        [][3]frontend.Variable
	AppendK, AppendV []gkvcache.Proof
	PromptK, PromptV gkvcache.PromptProof
	Layers           []gqkv.Proof

	s *generation `gnark:"-"`
}

func (c *generationCircuit) Define(api frontend.API) error {
	s := c.s
	tr, err := transcript.New(api, "kv-generation", 3)
	if err != nil {
		return err
	}
	var carryK, carryV []poly.Claim
	for i, p := 0, s.passes-1; p >= 0; i, p = i+1, p-1 {
		vars := s.attentionVars(p)
		var attn [3]poly.Claim
		for o := range 3 {
			attn[o] = poly.Claim{Point: tr.Challenges(vars[o]), Value: c.Attention[i][o]}
		}
		tr.Absorb(c.Attention[i][:]...)
		var kClaim, vClaim poly.Claim
		if p > 0 {
			for o := 1; o < 3; o++ {
				if attn[o], err = gkvcache.ExtendRows(attn[o], vars[o]-npoly.Log2Ceil(s.layer.KVCols()), npoly.Log2Ceil(s.context)); err != nil {
					return err
				}
			}
			ck, err := gkvcache.Verify(api, tr, s.appendConfig(p, 1+len(carryK)), s.prompt+p-1, 1, c.AppendK[i], append([]poly.Claim{attn[1]}, carryK...))
			if err != nil {
				return err
			}
			cv, err := gkvcache.Verify(api, tr, s.appendConfig(p, 1+len(carryV)), s.prompt+p-1, 1, c.AppendV[i], append([]poly.Claim{attn[2]}, carryV...))
			if err != nil {
				return err
			}
			carryK, carryV = []poly.Claim{ck.Prev}, []poly.Claim{cv.Prev}
			kClaim, vClaim = ck.New, cv.New
		} else {
			if kClaim, err = gkvcache.VerifyPrompt(api, tr, s.promptConfig(), c.PromptK, carryK, []poly.Claim{attn[1]}); err != nil {
				return err
			}
			if vClaim, err = gkvcache.VerifyPrompt(api, tr, s.promptConfig(), c.PromptV, carryV, []poly.Claim{attn[2]}); err != nil {
				return err
			}
		}
		claims, err := gqkv.Verify(api, tr, s.layerConfig(p), c.Layers[i], []poly.Claim{attn[0], kClaim, vClaim})
		if err != nil {
			return err
		}
		left := [7]poly.Claim{claims.Input, claims.Weights[0], claims.Weights[1], claims.Weights[2], claims.Biases[0], claims.Biases[1], claims.Biases[2]}
		for _, ch := range layerChecks(s, p, left) {
			api.AssertIsEqual(poly.EvaluateDense(api, constantTable(ch.values, ch.rows, ch.cols), ch.claim.Point), ch.claim.Value)
		}
	}
	return nil
}

// constantTable lays a matrix out as padded circuit constants.
func constantTable(values []int64, rows, cols int) []frontend.Variable {
	pc := npoly.NextPowerOfTwo(cols)
	out := make([]frontend.Variable, npoly.NextPowerOfTwo(rows)*pc)
	for i := range out {
		out[i] = 0
	}
	for i := range rows {
		for j := range cols {
			out[i*pc+j] = big.NewInt(values[i*cols+j])
		}
	}
	return out
}

func placeholderGeneration(s *generation) *generationCircuit {
	c := &generationCircuit{s: s}
	for i, p := 0, s.passes-1; p >= 0; i, p = i+1, p-1 {
		c.Attention = append(c.Attention, [3]frontend.Variable{})
		if p > 0 {
			claims := 1
			if i > 0 {
				claims = 2
			}
			c.AppendK = append(c.AppendK, gkvcache.PlaceholderProof(s.appendConfig(p, claims)))
			c.AppendV = append(c.AppendV, gkvcache.PlaceholderProof(s.appendConfig(p, claims)))
		}
		c.Layers = append(c.Layers, gqkv.PlaceholderProof(s.layerConfig(p)))
	}
	c.PromptK = gkvcache.PlaceholderPromptProof(s.promptConfig())
	c.PromptV = gkvcache.PlaceholderPromptProof(s.promptConfig())
	return c
}

func generationAssignment[E field.Scalar, P field.Ptr[E]](s *generation, proof *generationProof[E]) *generationCircuit {
	c := &generationCircuit{s: s, PromptK: gkvcache.ValueOfPromptProof(proof.promptK), PromptV: gkvcache.ValueOfPromptProof(proof.promptV)}
	for _, a := range proof.attention {
		var v [3]frontend.Variable
		for o := range 3 {
			v[o] = P(&a[o]).BigInt(new(big.Int))
		}
		c.Attention = append(c.Attention, v)
	}
	for i := range proof.appendK {
		c.AppendK = append(c.AppendK, gkvcache.ValueOfProof(proof.appendK[i]))
		c.AppendV = append(c.AppendV, gkvcache.ValueOfProof(proof.appendV[i]))
	}
	for _, l := range proof.layers {
		c.Layers = append(c.Layers, gqkv.ValueOfProof(l))
	}
	return c
}

func testGeneration[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID, seed uint64) {
	honest, err := newGeneration(rand.New(rand.NewPCG(seed, 1)), 0)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := prove[E, P](honest)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify[E, P](honest, proof); err != nil {
		t.Fatalf("native rejects the honest generation: %v", err)
	}
	circuit := placeholderGeneration(honest)
	if err := test.IsSolved(circuit, generationAssignment[E, P](honest, proof), curve.ScalarField()); err != nil {
		t.Fatalf("circuit rejects the honest generation: %v", err)
	}
	// Decoding pass 2 appends to the cache of pass 1 with two rows
	// swapped; every pass is proven honestly from the tensors the prover
	// holds.
	swapped, err := newGeneration(rand.New(rand.NewPCG(seed, 1)), 2)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := prove[E, P](swapped)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify[E, P](swapped, bad); err == nil {
		t.Error("native accepts a swapped KV-cache row")
	} else {
		t.Logf("swapped row: %v", err)
	}
	if err := test.IsSolved(placeholderGeneration(swapped), generationAssignment[E, P](swapped, bad), curve.ScalarField()); err == nil {
		t.Error("circuit accepts a swapped KV-cache row")
	}
}

func TestGeneration(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testGeneration[bn254fr.Element](t, ecc.BN254, seed) })
	t.Run("bls12-377", func(t *testing.T) { testGeneration[bls12377fr.Element](t, ecc.BLS12_377, seed) })
}
