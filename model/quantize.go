package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/veriformer/veriformer/model/tokenizer"
)

// Weight is an int8 tensor of the quantized model, row-major. Matrices are
// [Out, In]; norm scales are [n].
type Weight struct {
	Name  string
	Shape []int
	Data  []int8
}

// Formats holds the fractional bits F of each activation kind: a stored
// integer x means x/2^F. They are chosen by calibration (see doc.go,
// "Formats") and shared by all layers, so each table exists once.
type Formats struct {
	// Residual: embeddings and the residual stream (ResidualBits).
	Residual int
	// Normed: LayerNorm/RMSNorm outputs, the inputs of Q/K/V, the MLP and
	// the LM head.
	Normed int
	// QK: queries and keys (before and after RoPE).
	QK int
	// Value: values.
	Value int
	// Context: attention outputs (probabilities times values), the input
	// of the output projection.
	Context int
	// Gate: the input of the GELU (GPT-2 up projection) or SiLU (Llama gate
	// projection) table, and its output (same format).
	Gate int
	// Up: Llama's up projection.
	Up int
	// Hidden: the input of the down projection: GELU output for GPT-2 (=
	// Gate), SiLU(gate)⊙up requantized for Llama.
	Hidden int
	// Logit: logits (LogitBits).
	Logit int
}

// QLinear is a quantized projection: Acc = X·Wᵀ + Bias (at accumulator
// scale), Out = Requantize(Acc, Multiplier[column], Shift).
type QLinear struct {
	Weight Weight
	// Scales are the float weight scales per output row: W ≈ Scales[j]·Wq[j][i].
	Scales []float64
	// Bias is [Out] at the accumulator scale 2^−InFrac·Scales[j], nil
	// without bias.
	Bias []int64
	// Multiplier is [Out]; all equal for per-tensor scales.
	Multiplier []int64
	Shift      uint
	// InFrac and OutFrac are the input and output formats.
	InFrac, OutFrac int
	// OutLo and OutHi are the checked output range.
	OutLo, OutHi int64
}

// QNorm is a quantized LayerNorm or RMSNorm (see doc.go, "Norms").
type QNorm struct {
	Gamma      Weight
	GammaScale float64
	// Beta is [n] at the accumulator scale, nil for RMSNorm.
	Beta []int64
	// Epsilon is ε·n·2^(2·InFrac) rounded, at least 1.
	Epsilon int64
	// MaxExponent is Eₘₐₓ: the normalisation exponent e of any row is at
	// most Eₘₐₓ, and Scaled = Centered·T·2^(Eₘₐₓ−e).
	MaxExponent int
	Multiplier  int64
	Shift       uint
	InFrac      int
	OutFrac     int
}

// Rescale is a per-tensor requantization Out = Requantize(Acc, Multiplier, Shift).
type Rescale struct {
	Multiplier int64
	Shift      uint
}

// QLayer is one quantized block.
type QLayer struct {
	AttnNorm   QNorm
	Q, K, V, O QLinear
	MLPNorm    QNorm
	Gate       *QLinear
	Up, Down   QLinear
}

// Tables are the model's non-linear functions.
type Tables struct {
	// Activation is GELU (GPT-2) or SiLU (Llama) at the Gate format.
	Activation *Table
	Exp        *Table
	ExpHigh    *Table
	RSqrt      *Table
	// RopeCos and RopeSin are nil for GPT-2.
	RopeCos, RopeSin *Table
}

// All returns the model's tables (those of its family) in a fixed order:
// activation, exp, exp_high, rsqrt, then rope_cos and rope_sin for Llama.
func (t *Tables) All() []*Table {
	all := []*Table{t.Activation, t.Exp, t.ExpHigh, t.RSqrt}
	if t.RopeCos != nil {
		all = append(all, t.RopeCos, t.RopeSin)
	}
	return all
}

// Quantized holds everything the integer pass reads.
type Quantized struct {
	Formats Formats
	// TokenEmbedding is [Vocab, Hidden] and PositionEmbedding [MaxPositions,
	// Hidden] (GPT-2), both in the residual format (embeddings are added,
	// not multiplied, so they are not int8).
	TokenEmbedding    []int64
	PositionEmbedding []int64
	Layers            []QLayer
	FinalNorm         QNorm
	LMHead            QLinear
	// Score rescales q·k (scale 2^−2QK) to ScoreFrac, folding in 1/√hd.
	Score Rescale
	// Context rescales p·v (scale 2^−(ProbFrac+Value)) to Context.
	Context Rescale
	// Product rescales SiLU(gate)⊙up (scale 2^−(Gate+Up)) to Hidden (Llama).
	Product Rescale
	Tables  Tables
	// RopePositions is the number of positions the RoPE tables cover.
	RopePositions int
}

// QuantOptions tunes quantization. The zero value is the default.
type QuantOptions struct {
	// Calibration is the token sequences whose float activations choose
	// the formats; nil uses three fixed pseudo-random sequences.
	Calibration [][]int
	// Margin is the headroom factor between the largest calibrated
	// magnitude and the checked range (default 4).
	Margin float64
	// PerTensor uses one scale per weight matrix instead of one per output
	// row.
	PerTensor bool
}

// Model is a config with its float weights and their quantization, and
// the tokenizer that turns text into its input tokens and its output
// tokens into text. The tokenizer is part of the model id
// (Model.ID): nil, for a model used on token ids alone, gives
// another id than any tokenizer.
type Model struct {
	Config    Config
	Weights   *Weights
	Quant     *Quantized
	Tokenizer *tokenizer.Codec
}

// New checks w against c and quantizes it.
func New(c *Config, w *Weights, opts *QuantOptions) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := w.check(c); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &QuantOptions{}
	}
	q, err := quantize(c, w, opts)
	if err != nil {
		return nil, err
	}
	return &Model{Config: *c, Weights: w, Quant: q}, nil
}

// defaultCalibration returns three pseudo-random sequences of up to 24
// tokens.
func defaultCalibration(c *Config) [][]int {
	rng := rand.New(rand.NewPCG(7, 11))
	n := min(c.MaxPositions, 24)
	seqs := make([][]int, 3)
	for i := range seqs {
		seqs[i] = make([]int, n)
		for j := range seqs[i] {
			seqs[i][j] = rng.IntN(c.Vocab)
		}
	}
	return seqs
}

// fracFor returns the largest F in [−8, 24] with m·margin·2^F ≤ 2^bits − 1.
func fracFor(m, margin float64, bits int) int {
	if m == 0 {
		return 8
	}
	f := int(math.Floor(math.Log2((math.Ldexp(1, bits) - 1) / (m * margin))))
	return min(max(f, -8), 24)
}

func quantize(c *Config, w *Weights, opts *QuantOptions) (*Quantized, error) {
	margin := opts.Margin
	if margin == 0 {
		margin = 4
	}
	if !(margin >= 1) || math.IsInf(margin, 0) {
		return nil, fmt.Errorf("model: quantization margin %g must be at least 1", margin)
	}
	calibration := opts.Calibration
	if calibration == nil {
		calibration = defaultCalibration(c)
	}
	var stats rangeStats
	for i, seq := range calibration {
		if _, err := reference(c, w, seq, &stats); err != nil {
			return nil, fmt.Errorf("model: calibration sequence %d: %w", i, err)
		}
	}
	f := Formats{
		Residual: fracFor(stats.residual, margin, ResidualBits),
		Normed:   fracFor(stats.normed, margin, ActivationBits),
		QK:       fracFor(stats.qk, margin, ActivationBits),
		Value:    fracFor(stats.value, margin, ActivationBits),
		Context:  fracFor(stats.context, margin, ActivationBits),
		Gate:     fracFor(stats.gate, margin, ActivationBits),
		Logit:    fracFor(stats.logit, margin, LogitBits),
	}
	if c.Family == Llama {
		f.Up = fracFor(stats.up, margin, ActivationBits)
		f.Hidden = fracFor(stats.hidden, margin, ActivationBits)
	} else {
		f.Hidden = f.Gate
	}
	q := &Quantized{Formats: f}
	var err error
	resLo, resHi := rangeOf(ResidualBits)
	if q.TokenEmbedding, err = toFixed("token embedding", w.TokenEmbedding, f.Residual, resLo, resHi); err != nil {
		return nil, err
	}
	if c.Family == GPT2 {
		if q.PositionEmbedding, err = toFixed("position embedding", w.PositionEmbedding, f.Residual, resLo, resHi); err != nil {
			return nil, err
		}
	}
	actLo, actHi := rangeOf(ActivationBits)
	lin := func(name string, l *Linear, inFrac, outFrac int, lo, hi int64) (QLinear, error) {
		return quantizeLinear(name, l, opts.PerTensor, inFrac, outFrac, lo, hi)
	}
	q.Layers = make([]QLayer, c.Layers)
	for i := range w.Layers {
		l, ql := &w.Layers[i], &q.Layers[i]
		p := fmt.Sprintf("layer.%d.", i)
		type step struct {
			dst          *QLinear
			name         string
			src          *Linear
			in, out      int
			outLo, outHi int64
		}
		steps := []step{
			{&ql.Q, p + "q", &l.Q, f.Normed, f.QK, actLo, actHi},
			{&ql.K, p + "k", &l.K, f.Normed, f.QK, actLo, actHi},
			{&ql.V, p + "v", &l.V, f.Normed, f.Value, actLo, actHi},
			{&ql.O, p + "o", &l.O, f.Context, f.Residual, resLo, resHi},
			{&ql.Down, p + "down", &l.Down, f.Hidden, f.Residual, resLo, resHi},
		}
		if c.Family == GPT2 {
			steps = append(steps, step{&ql.Up, p + "up", &l.Up, f.Normed, f.Gate, actLo, actHi})
		} else {
			ql.Gate = new(QLinear)
			steps = append(steps, step{&ql.Up, p + "up", &l.Up, f.Normed, f.Up, actLo, actHi}, step{ql.Gate, p + "gate", l.Gate, f.Normed, f.Gate, actLo, actHi})
		}
		for _, s := range steps {
			if *s.dst, err = lin(s.name, s.src, s.in, s.out, s.outLo, s.outHi); err != nil {
				return nil, err
			}
		}
		if hl := c.HeadLayout(); hl.Padded() {
			padHeads(hl, ql)
		}
		if ql.AttnNorm, err = quantizeNorm(c, p+"attn_norm", &l.AttnNorm, f.Residual, f.Normed); err != nil {
			return nil, err
		}
		if ql.MLPNorm, err = quantizeNorm(c, p+"mlp_norm", &l.MLPNorm, f.Residual, f.Normed); err != nil {
			return nil, err
		}
	}
	if q.FinalNorm, err = quantizeNorm(c, "final_norm", &w.FinalNorm, f.Residual, f.Normed); err != nil {
		return nil, err
	}
	logitLo, logitHi := rangeOf(LogitBits)
	if q.LMHead, err = lin("lm_head", &Linear{In: c.Hidden, Out: c.Vocab, Weight: w.LMHead}, f.Normed, f.Logit, logitLo, logitHi); err != nil {
		return nil, err
	}
	rescale := func(name string, factor float64) (Rescale, error) {
		m, k, err := chooseMultipliers([]float64{factor})
		if err != nil {
			return Rescale{}, fmt.Errorf("model: %s: %w", name, err)
		}
		return Rescale{Multiplier: m[0], Shift: k}, nil
	}
	if q.Score, err = rescale("scores", math.Ldexp(1/math.Sqrt(float64(c.HeadDim())), ScoreFrac-2*f.QK)); err != nil {
		return nil, err
	}
	if q.Context, err = rescale("context", math.Ldexp(1, f.Context-ProbFrac-f.Value)); err != nil {
		return nil, err
	}
	if c.Family == Llama {
		if q.Product, err = rescale("gated product", math.Ldexp(1, f.Hidden-f.Gate-f.Up)); err != nil {
			return nil, err
		}
	}
	q.Tables = Tables{Exp: expTable(), ExpHigh: expHighTable(), RSqrt: rsqrtTable()}
	if c.Family == GPT2 {
		q.Tables.Activation = activationTable("gelu", GELU, f.Gate)
	} else {
		q.Tables.Activation = activationTable("silu", SiLU, f.Gate)
		q.RopePositions = ropePositions(c)
		q.Tables.RopeCos, q.Tables.RopeSin = ropeTables(c.HeadDim(), c.HeadLayout().HeadDim/2, q.RopePositions, c.RopeTheta)
	}
	return q, nil
}

// padHeads lays the attention projections of ql out in the padded heads
// of hl: the rows of Q, K and V (their output columns) and the columns of
// O (its input) move to their computed columns; the padding rows and
// columns are zero, with zero bias, scale 1 and row 0's multiplier.
func padHeads(hl HeadLayout, ql *QLayer) {
	padRows := func(q *QLinear, rows int, column func(int) int) {
		in := q.Weight.Shape[1]
		data := make([]int8, rows*in)
		scales := make([]float64, rows)
		mult := make([]int64, rows)
		for j := range rows {
			scales[j], mult[j] = 1, q.Multiplier[0]
		}
		var bias []int64
		if q.Bias != nil {
			bias = make([]int64, rows)
		}
		for j := range q.Weight.Shape[0] {
			k := column(j)
			copy(data[k*in:(k+1)*in], q.Weight.Data[j*in:(j+1)*in])
			scales[k], mult[k] = q.Scales[j], q.Multiplier[j]
			if bias != nil {
				bias[k] = q.Bias[j]
			}
		}
		q.Weight.Shape, q.Weight.Data, q.Scales, q.Multiplier, q.Bias = []int{rows, in}, data, scales, mult, bias
	}
	padRows(&ql.Q, hl.QueryDim(), hl.QueryColumn)
	padRows(&ql.K, hl.KVDim(), hl.KVColumn)
	padRows(&ql.V, hl.KVDim(), hl.KVColumn)
	out, in, cols := ql.O.Weight.Shape[0], ql.O.Weight.Shape[1], hl.QueryDim()
	data := make([]int8, out*cols)
	for j := range out {
		for i := range in {
			data[j*cols+hl.QueryColumn(i)] = ql.O.Weight.Data[j*in+i]
		}
	}
	ql.O.Weight.Shape, ql.O.Weight.Data = []int{out, cols}, data
}

// quantizeWeights returns symmetric int8 values and their scales: one
// scale per row of rows×cols (perRow) or one for the whole matrix.
func quantizeWeights(name string, w []float64, rows, cols int, perRow bool) (Weight, []float64) {
	scales := make([]float64, rows)
	whole := maxAbs(w) / WeightMax
	for j := range rows {
		s := whole
		if perRow {
			s = maxAbs(w[j*cols:(j+1)*cols]) / WeightMax
		}
		if s == 0 {
			s = max(whole, 1)
		}
		scales[j] = s
	}
	data := make([]int8, len(w))
	for j := range rows {
		for i := range cols {
			v := math.Round(w[j*cols+i] / scales[j])
			data[j*cols+i] = int8(min(max(v, -WeightMax), WeightMax))
		}
	}
	return Weight{Name: name, Shape: []int{rows, cols}, Data: data}, scales
}

func quantizeLinear(name string, l *Linear, perTensor bool, inFrac, outFrac int, outLo, outHi int64) (QLinear, error) {
	wq, scales := quantizeWeights(name+".weight", l.Weight, l.Out, l.In, !perTensor)
	q := QLinear{Weight: wq, Scales: scales, InFrac: inFrac, OutFrac: outFrac, OutLo: outLo, OutHi: outHi}
	factors := make([]float64, l.Out)
	for j, s := range scales {
		factors[j] = math.Ldexp(s, outFrac-inFrac)
	}
	var err error
	if q.Multiplier, q.Shift, err = chooseMultipliers(factors); err != nil {
		return QLinear{}, fmt.Errorf("model: %s: %w", name, err)
	}
	maxBias := 0.0
	if l.Bias != nil {
		q.Bias = make([]int64, l.Out)
		for j, b := range l.Bias {
			v := math.Round(math.Ldexp(b, inFrac) / scales[j])
			if math.Abs(v) >= math.Ldexp(1, accumulatorBits-1) {
				return QLinear{}, fmt.Errorf("model: %s: bias %d = %g does not fit the accumulator", name, j, b)
			}
			q.Bias[j] = int64(v)
			maxBias = max(maxBias, math.Abs(v))
		}
	}
	bound := float64(l.In)*WeightMax*math.Ldexp(1, ActivationBits) + maxBias
	if bound >= math.Ldexp(1, accumulatorBits) {
		return QLinear{}, fmt.Errorf("model: %s: accumulator bound %g exceeds 2^%d", name, bound, accumulatorBits)
	}
	return q, nil
}

// normExponentFor returns the smallest e ≥ 0 with v < 2^16·4^e, for
// 0 ≤ v < 2^62.
func normExponentFor(v int64) int {
	e := 0
	for e < (62-tableBits)/2 && v >= int64(1)<<(tableBits+2*e) {
		e++
	}
	return e
}

func quantizeNorm(c *Config, name string, n *NormWeights, inFrac, outFrac int) (QNorm, error) {
	d := c.Hidden
	gamma, scales := quantizeWeights(name+".weight", n.Weight, 1, d, false)
	gamma.Shape = []int{d}
	q := QNorm{Gamma: gamma, GammaScale: scales[0], InFrac: inFrac, OutFrac: outFrac}
	eps := math.Round(c.NormEps * float64(d) * math.Ldexp(1, 2*inFrac))
	if eps >= math.Ldexp(1, 52) {
		return QNorm{}, fmt.Errorf("model: %s: epsilon %g is too large for the residual format", name, c.NormEps)
	}
	q.Epsilon = max(1, int64(eps))
	centeredBits := ResidualBits
	if c.Family == GPT2 {
		centeredBits++
	}
	maxV := int64(d)<<(2*centeredBits) + q.Epsilon
	q.MaxExponent = normExponentFor(maxV)
	sqrtN := math.Sqrt(float64(d))
	accScale := math.Ldexp(1, RSqrtFrac+q.MaxExponent) / (q.GammaScale * sqrtN)
	m, k, err := chooseMultipliers([]float64{math.Ldexp(q.GammaScale*sqrtN, outFrac-RSqrtFrac-q.MaxExponent)})
	if err != nil {
		return QNorm{}, fmt.Errorf("model: %s: %w", name, err)
	}
	q.Multiplier, q.Shift = m[0], k
	maxBeta := 0.0
	if n.Bias != nil {
		q.Beta = make([]int64, d)
		for i, b := range n.Bias {
			v := math.Round(b * accScale)
			if math.Abs(v) >= math.Ldexp(1, accumulatorBits-2) {
				return QNorm{}, fmt.Errorf("model: %s: bias %d = %g does not fit the accumulator", name, i, b)
			}
			q.Beta[i] = int64(v)
			maxBeta = max(maxBeta, math.Abs(v))
		}
	}
	bound := math.Ldexp(WeightMax, RSqrtFrac+q.MaxExponent+1) + maxBeta
	if bound >= math.Ldexp(1, accumulatorBits) {
		return QNorm{}, fmt.Errorf("model: %s: accumulator bound %g exceeds 2^%d", name, bound, accumulatorBits)
	}
	return q, nil
}
