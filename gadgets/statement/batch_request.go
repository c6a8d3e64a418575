package statement

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	native "github.com/veriformer/veriformer/statement"
)

// BatchRequest is the in-circuit form of a batch's pass (statement.Stack):
// a circuit fixed by the bucket's R rows and m request slots holds each
// slot's prompt and output in buffers of R tokens, zero past their
// lengths, and the number of requests Count, 1 ≤ Count ≤ m; the slots
// from Count on are empty (lengths 0), so that one circuit serves every
// batch of up to m requests whose rows fit the bucket.
type BatchRequest struct {
	Requests []Request
	Count    frontend.Variable
}

// PlaceholderBatchRequest returns a BatchRequest of slots requests sized
// for a bucket of rows, to compile.
func PlaceholderBatchRequest(rows, slots int) BatchRequest {
	b := BatchRequest{Requests: make([]Request, slots)}
	for j := range b.Requests {
		b.Requests[j] = PlaceholderRequest(rows)
	}
	return b
}

// ValueOfBatchRequest returns the assignment of a batch's pass in a
// circuit of slots request slots; it fails when the batch does not fit.
func ValueOfBatchRequest(s native.Stack, slots int) (BatchRequest, error) {
	if len(s.Requests) < 1 || len(s.Requests) > slots || s.Len() > s.Rows {
		return BatchRequest{}, fmt.Errorf("statement: a batch of %d requests and %d rows in %d slots of a bucket of %d rows", len(s.Requests), s.Len(), slots, s.Rows)
	}
	b := BatchRequest{Requests: make([]Request, slots), Count: len(s.Requests)}
	for j := range b.Requests {
		if j >= len(s.Requests) {
			b.Requests[j] = Request{Prompt: buffer(nil, s.Rows), Output: buffer(nil, s.Rows), PromptLen: 0, OutputLen: 0}
			continue
		}
		r := s.Requests[j]
		r.Rows = s.Rows
		v, err := ValueOfRequest(r)
		if err != nil {
			return BatchRequest{}, fmt.Errorf("statement: request %d of the batch: %w", j, err)
		}
		b.Requests[j] = v
	}
	return b, nil
}

// Bind asserts that the batch's first Count requests have the list digest
// list (ListDigest of the list of their request leaves, whose input and
// output digests are each statement.TokensDigest of its buffer's first s
// or g tokens, the buffer zero past them: statement.StackStatement's), that Count equals count, that each of them has s ≥ 1
// and g ≥ 1, that the slots from Count on are empty, and that their rows
// fit the bucket, Σ n_j ≤ R; it returns the pass's tokens, live rows,
// targets and layout (statement.Stack's Tokens, Live, Next, Begins).
//
// Request j's rows start at o_j = n_0 + … + n_{j−1}; its tokens q_j =
// Prompt_j ‖ Output_j (the output shifted right by s_j, as Request.Bind
// does) shifted right by o_j with a barrel shifter over the bits of o_j,
// so that row i of the pass reads q_j[i − o_j]. With the thermometers
// τ(x)[i] = [i < x] of the offsets and of the live rows' starts L_j =
// o_j + s_j − 1:
//
//	T[i]      = Σ_j (τ(o_{j+1}) − τ(o_j))[i]·q_j[i − o_j]
//	Live[i]   = Σ_j (τ(o_{j+1}) − τ(L_j))[i]
//	Next[i]   = Σ_j (τ(o_{j+1}) − τ(L_j))[i]·q_j[i + 1 − o_j]
//	Starts[i] = Σ_{j < Count} [i = o_j] + [i ≥ N]        (N = o_Count: each pad row a block of its own)
//
// Cost per slot: the two prefix digests, three thermometers of R + 1,
// two barrel shifts of ⌈log₂(R + 1)⌉·(R + 1) selects and 3R products;
// then ListDigest over the slots.
func (b BatchRequest) Bind(api frontend.API, list, count frontend.Variable) (Bound, error) {
	m := len(b.Requests)
	if m < 1 || m > native.MaxLeaves {
		return Bound{}, fmt.Errorf("statement: a batch of %d request slots", m)
	}
	rows := len(b.Requests[0].Prompt)
	for j, r := range b.Requests {
		if rows < 1 || len(r.Prompt) != rows || len(r.Output) != rows {
			return Bound{}, fmt.Errorf("statement: request slot %d's buffers of %d and %d tokens for a bucket of %d rows", j, len(r.Prompt), len(r.Output), rows)
		}
	}
	api.AssertIsEqual(b.Count, count)
	used := gpoly.Thermometer(api, b.Count, m) // used[j] = [j < Count], Count ≤ m
	api.AssertIsEqual(used[0], 1)              // Count ≥ 1
	shiftBits := bits.Len(uint(rows))

	inputs, outputs := make([]frontend.Variable, m), make([]frontend.Variable, m)
	queues := make([][]frontend.Variable, m)
	offsets := make([]frontend.Variable, m+1)
	liveFrom := make([]frontend.Variable, m)
	offsets[0] = 0
	for j, r := range b.Requests {
		tauS := gpoly.Thermometer(api, r.PromptLen, rows)
		tauG := gpoly.Thermometer(api, r.OutputLen, rows)
		api.AssertIsEqual(tauS[0], used[j]) // s ≥ 1 when used, 0 otherwise
		api.AssertIsEqual(tauG[0], used[j])
		var err error
		if inputs[j], err = prefixDigest(api, r.Prompt, r.PromptLen, tauS); err != nil {
			return Bound{}, err
		}
		if outputs[j], err = prefixDigest(api, r.Output, r.OutputLen, tauG); err != nil {
			return Bound{}, err
		}
		// n_j = s + g − 1 when used, 0 when empty (s = g = 0).
		n := api.Sub(api.Add(r.PromptLen, r.OutputLen), used[j])
		offsets[j+1] = api.Add(offsets[j], n)
		liveFrom[j] = api.Sub(api.Add(offsets[j], r.PromptLen), used[j])
		// q[i] = Prompt[i] + Output[i − s] for i ≤ R, then shifted by o_j.
		q := make([]frontend.Variable, rows+1)
		for i := range q {
			q[i] = 0
			if i < rows {
				q[i] = r.Output[i]
			}
		}
		q = shiftRight(api, q, r.PromptLen, shiftBits)
		for i := range rows {
			q[i] = api.Add(q[i], r.Prompt[i])
		}
		queues[j] = shiftRight(api, q, offsets[j], shiftBits)
	}
	list2, err := ListDigest(api, b.Count, inputs, outputs)
	if err != nil {
		return Bound{}, err
	}
	api.AssertIsEqual(list2, list)

	tau := make([][]frontend.Variable, m+1) // τ(o_j), the last one asserting N ≤ R
	for j := range tau {
		tau[j] = gpoly.Thermometer(api, offsets[j], rows)
	}
	out := Bound{Tokens: make([]frontend.Variable, rows+1), Live: make([]frontend.Variable, rows), Next: make([]frontend.Variable, rows), Starts: make([]frontend.Variable, rows)}
	for i := range rows {
		out.Tokens[i], out.Live[i], out.Next[i], out.Starts[i] = 0, 0, 0, 0
	}
	out.Tokens[rows] = 0
	// at(t, i) = [i = x] from x's thermometer t.
	at := func(t []frontend.Variable, i int) frontend.Variable {
		if i == 0 {
			return api.Sub(1, t[0])
		}
		return api.Sub(t[i-1], t[i])
	}
	for j := range m {
		tauL := gpoly.Thermometer(api, liveFrom[j], rows)
		for i := range rows {
			in := api.Sub(tau[j+1][i], tau[j][i])
			live := api.Sub(tau[j+1][i], tauL[i])
			out.Tokens[i] = api.Add(out.Tokens[i], api.Mul(in, queues[j][i]))
			out.Live[i] = api.Add(out.Live[i], live)
			out.Next[i] = api.Add(out.Next[i], api.Mul(live, queues[j][i+1]))
			out.Starts[i] = api.Add(out.Starts[i], api.Mul(used[j], at(tau[j], i)))
		}
	}
	for i := range rows {
		out.Starts[i] = api.Add(out.Starts[i], api.Sub(1, tau[m][i])) // a pad row, i ≥ N
	}
	return out, nil
}

// shiftRight returns x shifted right by by positions (zeros shifted in,
// entries pushed past the end dropped), by a barrel shifter over the
// nbBits bits of by (which asserts by < 2^nbBits).
func shiftRight(api frontend.API, x []frontend.Variable, by frontend.Variable, nbBits int) []frontend.Variable {
	for b, bit := range api.ToBinary(by, nbBits) {
		step := 1 << b
		next := make([]frontend.Variable, len(x))
		for i := range next {
			var from frontend.Variable = 0
			if i >= step {
				from = x[i-step]
			}
			next[i] = api.Select(bit, from, x[i])
		}
		x = next
	}
	return x
}
