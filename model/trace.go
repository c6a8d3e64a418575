package model

// Tensor is one integer tensor of a trace: Data is row-major with Shape,
// every value lies in [Min, Max] (checked during the pass), and a value x
// means x/2^Frac (Frac = 0 for plain integers such as sums and remainders).
// Tensors of one pass may share Data with each other and with the cache:
// never modify them.
type Tensor struct {
	Name     string
	Shape    []int
	Data     []int64
	Frac     int
	Min, Max int64
}

// Requant is one rescaling step applied element-wise:
//
//	Out = ⌊(Acc·M + 2^(Shift−1)) / 2^Shift⌋,  Rem = Acc·M + 2^(Shift−1) − Out·2^Shift ∈ [0, 2^Shift)
//
// where M = Multiplier[c] for the element's column c (last index) when
// len(Multiplier) equals the last dimension, and M = Multiplier[0] when it
// has one entry.
type Requant struct {
	Acc        Tensor
	Multiplier []int64
	Shift      uint
	Out        Tensor
	Rem        Tensor
}

// MatMul is a projection of rows of Input ([rows, in]) by Weight ([out,
// in]): Acc[r][j] = Σᵢ Input[r][i]·Weight[j][i] + Bias[j] ([rows, out]),
// then Requant. Bias is nil when the family has none.
type MatMul struct {
	Name   string
	Input  Tensor
	Weight *Weight
	Bias   []int64
	Requant
}

// Lookup is a table application: Out[i] = Table(In[i]).
type Lookup struct {
	Table *Table
	In    Tensor
	Out   Tensor
}

// Norm is a LayerNorm (GPT-2) or RMSNorm (Llama) over the rows of Input
// ([rows, n]); see doc.go, "Norms", for the equations.
type Norm struct {
	Name  string
	Input Tensor
	// Sum, Mean and MeanRem ([rows]) are LayerNorm only (empty Data for
	// RMSNorm): Sum = Σᵢ Input, Sum = Mean·n + MeanRem, MeanRem ∈ [0, n).
	Sum, Mean, MeanRem Tensor
	// Centered is Input − Mean (LayerNorm) or Input (RMSNorm), [rows, n].
	Centered Tensor
	// SumSquares is V = Σᵢ Centered² + Epsilon, [rows].
	SumSquares Tensor
	Epsilon    int64
	// Exponent is e = min{e ≥ 0 : V < 2^16·4^e}, [rows].
	Exponent Tensor
	// RSqrt looks up T(v) for v = ⌊V/4^e⌋ ([rows]); RSqrtRem = V − v·4^e.
	RSqrt    Lookup
	RSqrtRem Tensor
	// MaxExponent is Eₘₐₓ; Scaled = Centered·T·2^(Eₘₐₓ−e), [rows, n].
	MaxExponent int
	Scaled      Tensor
	Gamma       *Weight
	// Beta is [n] at the accumulator scale, nil for RMSNorm.
	Beta []int64
	// Requant: Acc = Scaled·Gamma + Beta (per column), one multiplier.
	Requant
}

// Rope rotates the pairs (j, j+hd/2) of every head of Input ([rows,
// heads·hd]) by the angle of the row's position: with C = Cos.Out[r][j]
// and S = Sin.Out[r][j] (table index p·hd/2 + j, [rows, hd/2]),
//
//	Acc[r][h·hd+j]      = Input[r][h·hd+j]·C − Input[r][h·hd+j+hd/2]·S
//	Acc[r][h·hd+j+hd/2] = Input[r][h·hd+j+hd/2]·C + Input[r][h·hd+j]·S
//
// and Requant has Multiplier {1} and Shift RopeFrac.
type Rope struct {
	Input    Tensor
	Cos, Sin Lookup
	Requant
}

// Attention is causal grouped-query attention of the n new rows against
// the T = Start + n positions so far (T is the cache's Capacity when that
// is larger, the rows past Start + n zero and masked). Query head h reads key/value head
// g = h / (Heads/KVHeads). Entry (h, i, j) is masked when j > Start + i.
type Attention struct {
	Start int
	// Begins, in a stacked pass, holds for each query row the first key
	// row it attends to (its request's first row); nil: row 0.
	Begins []int
	// Query is [n, Heads·hd] (after RoPE for Llama); Keys and Values are
	// [T, KVHeads·hd]: the cache rows 0…Start−1 followed by the new rows
	// (and zero rows up to the capacity).
	Query, Keys, Values Tensor
	// Scores: Acc[h][i][j] = Σ_c Query[i][h·hd+c]·Keys[j][g·hd+c] ([Heads,
	// n, T], 0 where masked), Out at ScoreFrac.
	Scores Requant
	// RowMax[h][i] is the largest unmasked score of the row, [Heads, n].
	RowMax Tensor
	// Shifted = RowMax − Scores.Out ∈ [0, 2^31) (0 where masked).
	Shifted Tensor
	// ExpLow looks up Shifted mod 2^16 and ExpHigh ⌊Shifted/2^16⌋.
	ExpLow, ExpHigh Lookup
	// Exp = mask·ExpLow.Out·ExpHigh.Out ([Heads, n, T]).
	Exp Tensor
	// RowSum = Σⱼ Exp ([Heads, n]), at least 2^ExpFrac.
	RowSum Tensor
	// Probs = ⌊(2·Exp·2^ProbFrac + RowSum) / (2·RowSum)⌋ and
	// ProbRem = 2·Exp·2^ProbFrac + RowSum − Probs·2·RowSum ∈ [0, 2·RowSum).
	Probs, ProbRem Tensor
	// Context: Acc[i][h·hd+c] = Σⱼ Probs[h][i][j]·Values[j][g·hd+c]
	// ([n, Heads·hd]), Out at the Context format.
	Context Requant
}

// Layer is one transformer block of a pass.
type Layer struct {
	Index int
	// Input is the residual stream entering the block, [n, Hidden].
	Input    Tensor
	AttnNorm Norm
	Q, K, V  MatMul
	// RopeQ and RopeK are nil for GPT-2.
	RopeQ, RopeK *Rope
	Attention    Attention
	O            MatMul
	// Mid = Input + O.Out.
	Mid     Tensor
	MLPNorm Norm
	// Gate is nil for GPT-2.
	Gate *MatMul
	Up   MatMul
	// Activation is GELU(Up.Out) (GPT-2) or SiLU(Gate.Out) (Llama).
	Activation Lookup
	// Product (Llama only): Acc = Activation.Out ⊙ Up.Out, one multiplier.
	Product *Requant
	Down    MatMul
	// Output = Mid + Down.Out.
	Output Tensor
}

// Trace is every intermediate tensor of one integer forward pass over the
// n new tokens at positions Start…Start+n−1.
type Trace struct {
	Family Family
	Tokens []int
	Start  int
	// Begins, in a stacked pass (Model.ForwardStacked), holds for each row
	// the first row of its request; nil otherwise.
	Begins []int
	// Embedding is [n, Hidden]: token embedding rows plus (GPT-2) the
	// position embedding rows Start…Start+n−1.
	Embedding Tensor
	Layers    []Layer
	FinalNorm Norm
	// LMHead.Out is the logits, [n, Vocab].
	LMHead MatMul
	// Next is the argmax of the last row of the logits, ties broken by
	// the smallest index.
	Next int
}

// Logits returns the logits tensor, [n, Vocab].
func (t *Trace) Logits() *Tensor { return &t.LMHead.Out }
