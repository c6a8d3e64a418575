package statement

import (
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	native "github.com/veriformer/veriformer/statement"
)

// batchRequestCircuit binds a batch's pass to its list digest and count
// and asserts the bound rows equal the expected ones.
type batchRequestCircuit struct {
	List, Count                frontend.Variable `gnark:",public"`
	Batch                      BatchRequest
	Tokens, Live, Next, Starts []frontend.Variable
}

func (c *batchRequestCircuit) Define(api frontend.API) error {
	b, err := c.Batch.Bind(api, c.List, c.Count)
	if err != nil {
		return err
	}
	for i := range c.Tokens {
		api.AssertIsEqual(b.Tokens[i], c.Tokens[i])
		api.AssertIsEqual(b.Live[i], c.Live[i])
		api.AssertIsEqual(b.Next[i], c.Next[i])
		api.AssertIsEqual(b.Starts[i], c.Starts[i])
	}
	return nil
}

// batchRequestAssignment is the honest assignment of a stack in a
// circuit of slots slots: the native list digest (over BLS12-377 Fr, the
// segments' field) and the native stack's rows.
func batchRequestAssignment(t *testing.T, s native.Stack, slots int) *batchRequestCircuit {
	t.Helper()
	st, _, err := native.StackStatement[fr.Element](big.NewInt(1), s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ValueOfBatchRequest(s, slots)
	if err != nil {
		t.Fatal(err)
	}
	c := &batchRequestCircuit{List: st.InputDigest, Count: len(s.Requests), Batch: b}
	tokens, begins := s.Tokens(), s.Begins()
	for i := range s.Rows {
		next, live := s.Next(i)
		l, start := 0, 0
		if live {
			l = 1
		}
		if begins[i] == i {
			start = 1
		}
		c.Tokens, c.Live, c.Next, c.Starts = append(c.Tokens, tokens[i]), append(c.Live, l), append(c.Next, next), append(c.Starts, start)
	}
	return c
}

// TestBatchRequestBind checks the binding against statement.Stack on
// BLS12-377 (the segments' field) in a circuit of 8 rows and 3 slots:
// batches of three (with pad rows), of one, and of two filling the
// bucket are bound to their native rows; refused: another list digest or
// count, a token of a request changed, a request's length changed, an
// empty slot holding a request, and rows beyond the bucket.
func TestBatchRequestBind(t *testing.T) {
	const rows, slots = 8, 3
	three := native.Stack{Rows: rows, Requests: []native.Request{
		{Prompt: []int{1, 2, 3}, Output: []int{4, 5}}, // rows 0–3
		{Prompt: []int{6}, Output: []int{7}},          // row 4
		{Prompt: []int{8, 9}, Output: []int{10, 11}},  // rows 5–7
	}}
	three.Requests[2].Output = []int{10} // rows 5–6, a pad row 7
	one := native.Stack{Rows: rows, Requests: []native.Request{{Prompt: []int{9, 8, 7}, Output: []int{6, 5, 4}}}}
	full := native.Stack{Rows: rows, Requests: []native.Request{{Prompt: []int{1}, Output: []int{2, 3, 4, 5}}, {Prompt: []int{6, 7, 8}, Output: []int{9, 10}}}}
	opts := []test.TestingOption{test.WithCurves(ecc.BLS12_377), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks(), test.NoProverChecks()}
	for _, s := range []native.Stack{three, one, full} {
		opts = append(opts, test.WithValidAssignment(batchRequestAssignment(t, s, slots)))
	}
	bad := func(change func(c *batchRequestCircuit)) {
		c := batchRequestAssignment(t, three, slots)
		c.Batch.Requests = append([]Request(nil), c.Batch.Requests...)
		for j := range c.Batch.Requests {
			r := &c.Batch.Requests[j]
			r.Prompt, r.Output = append([]frontend.Variable(nil), r.Prompt...), append([]frontend.Variable(nil), r.Output...)
		}
		change(c)
		opts = append(opts, test.WithInvalidAssignment(c))
	}
	bad(func(c *batchRequestCircuit) { c.List = new(big.Int).Add(c.List.(*big.Int), big.NewInt(1)) })
	bad(func(c *batchRequestCircuit) { c.Count = 2 })
	bad(func(c *batchRequestCircuit) { c.Batch.Count = 2 })
	bad(func(c *batchRequestCircuit) { c.Batch.Requests[1].Prompt[0] = 5 })
	bad(func(c *batchRequestCircuit) { c.Batch.Requests[0].OutputLen = 1 })
	bad(func(c *batchRequestCircuit) { c.Batch.Requests[2].PromptLen = 1 })
	bad(func(c *batchRequestCircuit) { // an empty slot holding a request
		c.Batch.Count, c.Count = 2, 2
	})
	// Rows beyond the bucket: request 0 given 7 rows.
	bad(func(c *batchRequestCircuit) {
		r := &c.Batch.Requests[0]
		r.OutputLen = 5
		for i := 2; i < 5; i++ {
			r.Output[i] = 1
		}
	})
	test.NewAssert(t).CheckCircuit(&batchRequestCircuit{Batch: PlaceholderBatchRequest(rows, slots),
		Tokens: make([]frontend.Variable, rows), Live: make([]frontend.Variable, rows), Next: make([]frontend.Variable, rows), Starts: make([]frontend.Variable, rows)}, opts...)
}
