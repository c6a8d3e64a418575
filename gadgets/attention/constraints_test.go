package attention

import (
	"flag"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/protocol/attention"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

// outputCircuit verifies the output half on witness claims.
type outputCircuit struct {
	shape attention.Config `gnark:"-"`
	Out   []poly.Claim
	Proof OutputProof
}

func (c *outputCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "constraints")
	if err != nil {
		return err
	}
	_, err = VerifyOutput(api, tr, c.shape, c.Proof, c.Out)
	return err
}

// scoresCircuit verifies the scores half on witness claims.
type scoresCircuit struct {
	shape        attention.Config `gnark:"-"`
	Masked       []poly.Claim
	PaddedValues poly.Claim
	Proof        ScoresProof
}

func (c *scoresCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "constraints")
	if err != nil {
		return err
	}
	_, err = VerifyScores(api, tr, c.shape, c.Proof, c.Masked, c.PaddedValues)
	return err
}

func claims(n, nbVars int) []poly.Claim {
	out := make([]poly.Claim, max(n, 1))
	for i := range out {
		out[i] = poly.Claim{Point: make([]frontend.Variable, nbVars)}
	}
	return out
}

// count compiles both halves for shape on BN254 and returns their numbers
// of R1CS constraints.
func count(t *testing.T, shape attention.Config) (output, scores int) {
	d, err := shape.Dims()
	if err != nil {
		t.Fatal(err)
	}
	oc := &outputCircuit{shape: shape, Out: claims(shape.OutputClaims, d.RowVars+d.QueryColVars), Proof: PlaceholderOutputProof(shape)}
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, oc)
	if err != nil {
		t.Fatal(err)
	}
	output = ccs.GetNbConstraints()
	sc := &scoresCircuit{
		shape:        shape,
		Masked:       claims(shape.ScoreClaims, d.ScoreVars()),
		PaddedValues: claims(1, d.KeyVars+d.KVHeadVars+d.WidthVars)[0],
		Proof:        PlaceholderScoresProof(shape),
	}
	if ccs, err = frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, sc); err != nil {
		t.Fatal(err)
	}
	return output, ccs.GetNbConstraints()
}

// snapshotShapes are the shapes of the constraint snapshot.
var snapshotShapes = []struct {
	name  string
	shape attention.Config
}{
	{"gpt2-prefill-s16", attention.Config{Heads: 12, HeadDim: 64, QueryRows: 16, KeyRows: 16, MaskValue: -(1 << 40)}},
	{"gpt2-decoding-l64", attention.Config{Heads: 12, HeadDim: 64, QueryRows: 1, KeyRows: 64, Start: 63, MaskValue: -(1 << 40)}},
	{"gpt2-continuation-4-after-60", attention.Config{Heads: 12, HeadDim: 64, QueryRows: 4, KeyRows: 64, Start: 60, MaskValue: -(1 << 40)}},
	{"gpt2-prefill-s16-2claims", attention.Config{Heads: 12, HeadDim: 64, QueryRows: 16, KeyRows: 16, MaskValue: -(1 << 40), OutputClaims: 2, ScoreClaims: 2}},
	{"llama-gqa4-prefill-s16", attention.Config{Heads: 32, KVHeads: 8, HeadDim: 128, QueryRows: 16, KeyRows: 16, MaskValue: -(1 << 40)}},
	{"mqa12-prefill-s16", attention.Config{Heads: 12, KVHeads: 1, HeadDim: 64, QueryRows: 16, KeyRows: 16, MaskValue: -(1 << 40)}},
	{"small-h3-m10-s5", attention.Config{Heads: 3, HeadDim: 10, QueryRows: 5, KeyRows: 5, MaskValue: -7}},
	{"default-model-prefill-s32", attention.Config{Heads: 4, HeadDim: 16, QueryRows: 32, KeyRows: 32}},
}

func TestConstraintSnapshot(t *testing.T) {
	path := filepath.Join("testdata", "constraints.csv")
	rows := [][]string{{"shape", "heads", "kv_heads", "head_dim", "query_rows", "key_rows", "start", "output_half", "scores_half", "total"}}
	for _, s := range snapshotShapes {
		o, c := count(t, s.shape)
		kv := s.shape.KVHeads
		if kv == 0 {
			kv = s.shape.Heads
		}
		rows = append(rows, []string{s.name, strconv.Itoa(s.shape.Heads), strconv.Itoa(kv), strconv.Itoa(s.shape.HeadDim),
			strconv.Itoa(s.shape.QueryRows), strconv.Itoa(s.shape.KeyRows), strconv.Itoa(s.shape.Start), strconv.Itoa(o), strconv.Itoa(c), strconv.Itoa(o + c)})
	}
	snapshot.CheckCSV(t, path, rows, *update)
}
