package statement

import (
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	native "github.com/veriformer/veriformer/statement"
)

// batchCircuit states the digest of the first Count inferences of its
// buffers.
type batchCircuit struct {
	ModelID, Count  frontend.Variable
	Inputs, Outputs []frontend.Variable
	Digest          frontend.Variable `gnark:",public"`
}

func (c *batchCircuit) Define(api frontend.API) error {
	d, err := BatchDigest(api, c.ModelID, c.Count, c.Inputs, c.Outputs)
	if err != nil {
		return err
	}
	api.AssertIsEqual(d, c.Digest)
	return nil
}

// batchAssignment fills buffers of m inferences with b's and then
// unrelated values, with b's digest.
func batchAssignment(t *testing.T, m int, b native.Batch) *batchCircuit {
	t.Helper()
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	c := &batchCircuit{ModelID: b.ModelID, Count: b.Len(), Inputs: make([]frontend.Variable, m), Outputs: make([]frontend.Variable, m), Digest: d}
	for i := range m {
		if i < b.Len() {
			c.Inputs[i], c.Outputs[i] = b.Inputs[i], b.Outputs[i]
		} else {
			c.Inputs[i], c.Outputs[i] = 1000+i, 2000+i
		}
	}
	return c
}

// TestBatchDigest checks the gadget against statement.Batch.Digest on
// BN254 in a circuit sized for four inferences: the golden batch of two
// (the native test's), batches of one and four, and values up to r − 1
// are accepted, whatever the buffers hold beyond the count; a changed,
// dropped, added or reordered inference, another count (0, beyond the
// buffers, or one less with the same digest), another model id and
// another digest are rejected.
func TestBatchDigest(t *testing.T) {
	const m = 4
	r := ecc.BN254.ScalarField()
	rMinus1 := new(big.Int).Sub(r, big.NewInt(1))
	ints := func(v ...int64) []*big.Int {
		out := make([]*big.Int, len(v))
		for i, x := range v {
			out[i] = big.NewInt(x)
		}
		return out
	}
	golden := native.Batch{ModelID: big.NewInt(1), Inputs: ints(2, 4), Outputs: ints(3, 5)}
	honest := batchAssignment(t, m, golden)
	if honest.Digest.(*big.Int).Text(16) != "f76f24f0be463c7f132dfd794644122fbc39b5a563f35d6f691e57fd46f3051" {
		t.Fatalf("the golden batch's digest is %x", honest.Digest)
	}
	opts := []test.TestingOption{test.WithCurves(ecc.BN254), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks(), test.NoProverChecks(),
		test.WithValidAssignment(honest),
		test.WithValidAssignment(batchAssignment(t, m, native.Batch{ModelID: big.NewInt(7), Inputs: ints(9), Outputs: ints(8)})),
		test.WithValidAssignment(batchAssignment(t, m, native.Batch{ModelID: rMinus1, Inputs: []*big.Int{rMinus1, big.NewInt(0), rMinus1, big.NewInt(1)}, Outputs: []*big.Int{big.NewInt(0), rMinus1, rMinus1, big.NewInt(2)}})),
	}
	bad := func(change func(c *batchCircuit)) {
		c := batchAssignment(t, m, golden)
		change(c)
		opts = append(opts, test.WithInvalidAssignment(c))
	}
	bad(func(c *batchCircuit) { c.Inputs[1] = 6 })                                     // an input changed
	bad(func(c *batchCircuit) { c.Outputs[0] = 4 })                                    // an output changed
	bad(func(c *batchCircuit) { c.Count = 1 })                                         // one dropped
	bad(func(c *batchCircuit) { c.Count = 3 })                                         // one added
	bad(func(c *batchCircuit) { c.Inputs[0], c.Inputs[1] = c.Inputs[1], c.Inputs[0] }) // reordered
	bad(func(c *batchCircuit) {                                                        // both halves reordered
		c.Inputs[0], c.Inputs[1] = c.Inputs[1], c.Inputs[0]
		c.Outputs[0], c.Outputs[1] = c.Outputs[1], c.Outputs[0]
	})
	bad(func(c *batchCircuit) { c.ModelID = 2 })                                                   // another model
	bad(func(c *batchCircuit) { c.Digest = new(big.Int).Add(c.Digest.(*big.Int), big.NewInt(1)) }) // another digest
	bad(func(c *batchCircuit) { c.Count = 0 })
	bad(func(c *batchCircuit) { c.Count = m + 1 })
	// A count of zero or beyond the buffers, each with the digest of the
	// message it would give.
	for _, n := range []int{0, m + 1} {
		c := batchAssignment(t, m, golden)
		c.Count = n
		words := []*big.Int{big.NewInt(int64(n))}
		for i := range n {
			if i < m {
				words = append(words, toBig(c.Inputs[i]), toBig(c.Outputs[i]))
			} else {
				words = append(words, big.NewInt(0), big.NewInt(0))
			}
		}
		c.Digest = rawBatchDigest(golden.ModelID, words)
		opts = append(opts, test.WithInvalidAssignment(c))
	}
	test.NewAssert(t).CheckCircuit(&batchCircuit{Inputs: make([]frontend.Variable, m), Outputs: make([]frontend.Variable, m)}, opts...)
}

// toBig returns an assignment's value as an integer.
func toBig(v frontend.Variable) *big.Int {
	switch x := v.(type) {
	case *big.Int:
		return x
	case int:
		return big.NewInt(int64(x))
	}
	panic("unexpected assignment type")
}

// rawBatchDigest is the batch digest of a list message given word by
// word (the count first), which statement.Batch refuses to build for a
// count outside [1, MaxBatch].
func rawBatchDigest(modelID *big.Int, words []*big.Int) *big.Int {
	buf := make([]byte, 32*len(words))
	for i, w := range words {
		w.FillBytes(buf[32*i : 32*(i+1)])
	}
	sum := sha256.Sum256(buf)
	sum[0] &= 0x03
	var outer [64]byte
	modelID.FillBytes(outer[:32])
	copy(outer[32:], sum[:])
	sum = sha256.Sum256(outer[:])
	sum[0] &= 0x1f
	return new(big.Int).SetBytes(sum[:])
}

// TestBatchDigestConstraints snapshots the gadget's R1CS count on BN254
// for buffers of 1 and 8 inferences (testdata/batch_constraints.csv).
func TestBatchDigestConstraints(t *testing.T) {
	checkCounts(t, "testdata/batch_constraints.csv", "inferences", func(size int) []namedCircuit {
		return []namedCircuit{{"BatchDigest", &batchCircuit{Inputs: make([]frontend.Variable, size), Outputs: make([]frontend.Variable, size)}}}
	}, 1, 8)
}
