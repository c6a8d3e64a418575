package attention

import (
	"math/rand/v2"
	"testing"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// randomWitness draws Q, K, V in [−2⁷, 2⁷) and probabilities in [0, 2⁸)
// at visible positions (0 at masked ones, as the softmax produces).
func randomWitness(rng *rand.Rand, cfg Config) *Witness {
	d, err := cfg.Dims()
	if err != nil {
		panic(err)
	}
	small := func(n int) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = rng.Int64N(256) - 128
		}
		return v
	}
	w := &Witness{
		Query:  small(d.QueryRows * d.Heads * d.Width),
		Keys:   small(d.KeyRows * d.KVHeads * d.Width),
		Values: small(d.KeyRows * d.KVHeads * d.Width),
		Probs:  make([]int64, d.Heads*d.QueryRows*d.KeyRows),
	}
	for i := range d.Heads {
		for j := range d.QueryRows {
			for k := range d.KeyRows {
				if d.visible(j, k) {
					w.Probs[(i*d.QueryRows+j)*d.KeyRows+k] = rng.Int64N(256)
				}
			}
		}
	}
	return w
}

// run is one execution of both halves with claims drawn from the transcript
// as a pipeline would: claims on O, then (in place of the softmax layer)
// claims on S_M.
type run[E field.Scalar] struct {
	cfg         Config
	w           *Witness
	out         []poly.Claim[E]
	outProof    *OutputProof[E]
	outClaims   OutputClaims[E]
	masked      []poly.Claim[E]
	scoresProof *ScoresProof[E]
	inClaims    InputClaims[E]
	final       E // transcript state at the end
}

const testDomain = "attention-test"

// drawClaims draws n points of nbVars coordinates and evaluates table there,
// absorbing the values.
func drawClaims[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], table []E, n, nbVars int) []poly.Claim[E] {
	claims := make([]poly.Claim[E], n)
	for i := range claims {
		claims[i].Point = tr.Challenges(nbVars)
		claims[i].Value = poly.Evaluate[E, P](table, claims[i].Point)
		tr.Absorb(claims[i].Value)
	}
	return claims
}

// cheat describes a dishonest prover: padded tensors with a wrong padding
// entry, or claims on a wrongly masked softmax input.
type cheat struct {
	padded *padded
	mask   func(d *Dims, masked []int64)
}

// prove runs the prover on w (dishonestly as c says) and returns the
// run.
func prove[E field.Scalar, P field.Ptr[E]](t testing.TB, cfg Config, w *Witness, c cheat) *run[E] {
	t.Helper()
	d, err := cfg.Dims()
	if err != nil {
		t.Fatal(err)
	}
	p := c.padded
	if p == nil {
		p = &padded{query: d.padQuery(w.Query), keys: d.padKV(w.Keys), values: d.padKV(w.Values), probs: d.padScores(w.Probs)}
	}
	s := &run[E]{cfg: cfg, w: w}
	tr := transcript.New[E, P](testDomain)
	outTable := toField[E](d.unpadOutput(d.outputOf(p.probs, p.values)))
	s.out = drawClaims(tr, outTable, cfg.outputClaims(), d.RowVars+d.QueryColVars)
	if s.outProof, s.outClaims, err = proveOutput(tr, &d, cfg.outputClaims(), p, s.out); err != nil {
		t.Fatal(err)
	}
	masked := d.maskedOf(d.scoresOf(p.query, p.keys), cfg.MaskValue)
	if c.mask != nil {
		c.mask(&d, masked)
	}
	maskedTable := toField[E](masked)
	s.masked = drawClaims(tr, maskedTable, cfg.scoreClaims(), d.ScoreVars())
	if s.scoresProof, s.inClaims, err = proveScores(tr, &d, cfg.MaskValue, cfg.scoreClaims(), w, p, s.masked, s.outClaims.PaddedValues); err != nil {
		t.Fatal(err)
	}
	s.final = tr.State()
	return s
}

// verifyNative runs the native verifier on the run's proofs and claim
// values; the points come from the verifier's own transcript.
func verifyNative[E field.Scalar, P field.Ptr[E]](s *run[E]) (OutputClaims[E], InputClaims[E], error) {
	d, err := s.cfg.Dims()
	if err != nil {
		return OutputClaims[E]{}, InputClaims[E]{}, err
	}
	tr := transcript.New[E, P](testDomain)
	out := redraw(tr, s.out, d.RowVars+d.QueryColVars)
	outClaims, err := VerifyOutput(tr, s.cfg, s.outProof, out)
	if err != nil {
		return OutputClaims[E]{}, InputClaims[E]{}, err
	}
	masked := redraw(tr, s.masked, d.ScoreVars())
	in, err := VerifyScores(tr, s.cfg, s.scoresProof, masked, outClaims.PaddedValues)
	return outClaims, in, err
}

// redraw draws the points of claims from tr and takes their values.
func redraw[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], claims []poly.Claim[E], nbVars int) []poly.Claim[E] {
	out := make([]poly.Claim[E], len(claims))
	for i := range claims {
		out[i] = poly.Claim[E]{Point: tr.Challenges(nbVars), Value: claims[i].Value}
		tr.Absorb(out[i].Value)
	}
	return out
}

// padColumns lays a matrix of width cols out with width newCols (zeros on
// the right).
func padColumns(m []int64, cols, newCols int) []int64 {
	rows := len(m) / cols
	out := make([]int64, rows*newCols)
	for r := range rows {
		copy(out[r*newCols:], m[r*cols:(r+1)*cols])
	}
	return out
}
