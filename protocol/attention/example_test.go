package attention_test

import (
	"fmt"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/attention"
	"github.com/veriformer/veriformer/transcript"
)

type fr = bn254fr.Element

// mle returns the field table of an int64 table (padded to a power of two).
func mle(values []int64) []fr {
	out := make([]fr, poly.NextPowerOfTwo(len(values)))
	for i, v := range values {
		out[i] = field.FromInt64[fr](v)
	}
	return out
}

// claimAt draws a point from tr, evaluates table there and absorbs the value.
func claimAt(tr *transcript.Transcript[fr, *fr], table []fr) poly.Claim[fr] {
	nbVars, _ := poly.NbVars(len(table))
	point := tr.Challenges(nbVars)
	value := poly.Evaluate[fr](table, point)
	tr.Absorb(value)
	return poly.Claim[fr]{Point: point, Value: value}
}

// Two query heads sharing one key/value head of width 2, three tokens. The
// output half runs first (claims flow backwards), then the softmax layer
// would turn the claim on A into a claim on S_M, then the scores half.
func Example() {
	cfg := attention.Config{Heads: 2, KVHeads: 1, HeadDim: 2, QueryRows: 3, KeyRows: 3, MaskValue: -1 << 20}
	w := &attention.Witness{
		Query:  []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, // 3 × 2·2
		Keys:   []int64{1, 0, 0, 1, 1, 1},                      // 3 × 1·2
		Values: []int64{2, 3, 5, 7, 11, 13},
		Probs: []int64{ // 2 heads × 3 × 3, causal
			64, 0, 0, 16, 48, 0, 8, 24, 32,
			64, 0, 0, 32, 32, 0, 20, 20, 24,
		},
	}
	out, _ := attention.Output(cfg, w.Probs, w.Values)
	masked, _ := attention.MaskedScores(cfg, w.Query, w.Keys)
	// O's table is its 3 × 4 matrix padded to 4 × 4.
	outTable := mle(append(out, make([]int64, 4)...))

	prover := transcript.New[fr]("example")
	outClaim := claimAt(prover, outTable)
	outProof, oc, err := attention.ProveOutput(prover, cfg, w, []poly.Claim[fr]{outClaim})
	if err != nil {
		panic(err)
	}
	maskedClaim := claimAt(prover, mle(masked)) // in a pipeline: from the softmax layer
	scoresProof, in, err := attention.ProveScores(prover, cfg, w, []poly.Claim[fr]{maskedClaim}, oc.PaddedValues)
	if err != nil {
		panic(err)
	}

	verifier := transcript.New[fr]("example")
	vOut := claimAt(verifier, outTable)
	voc, err := attention.VerifyOutput(verifier, cfg, outProof, []poly.Claim[fr]{vOut})
	if err != nil {
		panic(err)
	}
	vMasked := claimAt(verifier, mle(masked))
	vin, err := attention.VerifyScores(verifier, cfg, scoresProof, []poly.Claim[fr]{vMasked}, voc.PaddedValues)
	fmt.Println("verified:", err == nil)
	fmt.Println("same claim on Q:", vin.Query.Value.Equal(&in.Query.Value))
	fmt.Println("scores of head 1, row 2:", masked[(1*4+2)*4:(1*4+2)*4+3])
	// Output:
	// verified: true
	// same claim on Q: true
	// scores of head 1, row 2: [11 12 23]
}
