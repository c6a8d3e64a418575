package split

import (
	"fmt"
	"math/bits"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/ring"
	"github.com/tuneinsight/lattigo/v5/schemes/ckks"

	"github.com/veriformer/veriformer/model"
)

// CKKS parameters shared by every model (see doc.go, "Parameters"):
// N = 2¹³, Q = q₀·q₁ with a 60-bit q₀ and a 45-bit q₁, one 61-bit special
// prime P; log₂(QP) = 166 ≤ 218, the bound of the homomorphic encryption
// standard for 128-bit security at N = 2¹³ with a ternary secret.
const (
	logN      = 13
	logQ0     = 60
	logQ1     = 45
	logP      = 61
	inLevel   = 1 // level of the client's ciphertexts
	outLevel  = 0 // level of the server's results
	maxLogFit = 45
	// minLogScale is the smallest input scale the client accepts: below it
	// the CKKS error could reach ½ in accumulator units.
	minLogScale = 20
)

// Layout fixes how a model's vectors sit in CKKS slots: the parameters,
// the number of slots a vector uses, the chunk size of dimension splitting
// and the baby-step/giant-step shape of the matrix–vector products. Client
// and server derive it from the model config alone.
type Layout struct {
	Params ckks.Parameters
	// LogSlots and Slots: every ciphertext packs Slots = 2^LogSlots real
	// values (sparse packing when Slots < N/2).
	LogSlots, Slots int
	// Chunk = Slots/2 is the largest input or output piece of one block:
	// vectors wider than Chunk are split into pieces of at most Chunk.
	Chunk int
	// Baby is the number of baby steps; the giant steps are the multiples
	// of Baby below Chunk.
	Baby int
	// RowsPerCiphertext = (N/2)/Slots: a ciphertext packs the pieces of
	// that many rows, row i in slots [i·Slots, (i+1)·Slots).
	RowsPerCiphertext int
}

// NewLayout returns the layout of a model with config c.
func NewLayout(c *model.Config) (*Layout, error) {
	params, err := ckks.NewParametersFromLiteral(ckks.ParametersLiteral{
		LogN:            logN,
		LogQ:            []int{logQ0, logQ1},
		LogP:            []int{logP},
		LogDefaultScale: logQ1,
	})
	if err != nil {
		return nil, fmt.Errorf("split: CKKS parameters: %w", err)
	}
	widest := max(c.Hidden, c.Intermediate, c.HeadLayout().QueryDim(), 2)
	logSlots := min(bits.Len(uint(2*widest-1)), params.LogMaxSlots())
	slots := 1 << logSlots
	chunk := slots / 2
	baby := 1 << ((bits.Len(uint(chunk-1)) + 1) / 2)
	return &Layout{Params: params, LogSlots: logSlots, Slots: slots, Chunk: chunk, Baby: min(baby, chunk),
		RowsPerCiphertext: params.MaxSlots() / slots}, nil
}

// Rotations returns the slot rotations the server needs: the baby steps
// 1…Baby−1 and the giant steps Baby, 2·Baby, … below Chunk.
func (l *Layout) Rotations() []int {
	var r []int
	for k := 1; k < l.Baby; k++ {
		r = append(r, k)
	}
	for k := l.Baby; k < l.Chunk; k += l.Baby {
		r = append(r, k)
	}
	return r
}

// GaloisElements returns the Galois elements of [Layout.Rotations], in
// that order: the order in which the client sends its keys.
func (l *Layout) GaloisElements() []uint64 {
	rot := l.Rotations()
	out := make([]uint64, len(rot))
	for i, k := range rot {
		out[i] = l.Params.GaloisElement(k)
	}
	return out
}

// dims returns the dimensions of one row's vectors: a plaintext encoded
// with them repeats its Slots values across all N/2 slots.
func (l *Layout) dims() ring.Dimensions { return ring.Dimensions{Rows: 0, Cols: l.LogSlots} }

// groups returns the number of ciphertexts that pack rows rows.
func (l *Layout) groups(rows int) int { return (rows + l.RowsPerCiphertext - 1) / l.RowsPerCiphertext }

// newCiphertext returns a zero ciphertext at level using all N/2 slots,
// with the given scale.
func (l *Layout) newCiphertext(level int, scale rlwe.Scale) *rlwe.Ciphertext {
	ct := ckks.NewCiphertext(l.Params, 1, level)
	ct.LogDimensions = l.Params.LogMaxDimensions()
	ct.Scale = scale
	return ct
}

// span is the half-open range [Start, Start+Len) of a split vector.
type span struct{ Start, Len int }

// pieces splits a vector of width n into pieces of at most l.Chunk.
func (l *Layout) pieces(n int) []span {
	var out []span
	for s := 0; s < n; s += l.Chunk {
		out = append(out, span{s, min(l.Chunk, n-s)})
	}
	return out
}

// outPieces splits the output of a projection with input width in. When
// a ciphertext holds one row (Slots = N/2) and in is one piece dividing
// Slots, every rotation wraps around the whole periodic packing, so an
// output piece may fill all Slots; otherwise pieces have at most Chunk
// values, so that no rotation of a block leaves its row's slots.
func (l *Layout) outPieces(in, out int) []span {
	if l.RowsPerCiphertext > 1 || in > l.Chunk || l.Slots%in != 0 {
		return l.pieces(out)
	}
	var ps []span
	for s := 0; s < out; s += l.Slots {
		ps = append(ps, span{s, min(l.Slots, out-s)})
	}
	return ps
}

// Round is one of the four round trips of an encrypted layer.
type Round uint8

// The rounds of a layer, in order.
const (
	// RoundQKV sends the attention norm's output; the server returns the
	// query, key and value accumulators.
	RoundQKV Round = 1 + iota
	// RoundOutput sends the attention context; the server returns the
	// output projection's accumulator.
	RoundOutput
	// RoundMLP sends the MLP norm's output; the server returns the gate
	// (Llama) and up accumulators.
	RoundMLP
	// RoundDown sends the MLP hidden activations; the server returns the
	// down projection's accumulator.
	RoundDown
)

func (r Round) String() string {
	switch r {
	case RoundQKV:
		return "qkv"
	case RoundOutput:
		return "output"
	case RoundMLP:
		return "mlp"
	case RoundDown:
		return "down"
	}
	return fmt.Sprintf("round(%d)", uint8(r))
}

// projection is one matrix of a round, with its name for errors.
type projection struct {
	Name string
	Q    *model.QLinear
}

// projections returns the matrices of round r in layer l, in the order of
// the server's results.
func projections(l *model.QLayer, r Round) []projection {
	switch r {
	case RoundQKV:
		return []projection{{"q", &l.Q}, {"k", &l.K}, {"v", &l.V}}
	case RoundOutput:
		return []projection{{"o", &l.O}}
	case RoundMLP:
		if l.Gate != nil {
			return []projection{{"gate", l.Gate}, {"up", &l.Up}}
		}
		return []projection{{"up", &l.Up}}
	case RoundDown:
		return []projection{{"down", &l.Down}}
	}
	return nil
}

// shape is what a round's request and response hold for one row.
type shape struct {
	In      int   // input width
	InCts   int   // input ciphertexts per row
	Outs    []int // output width of each projection
	OutCts  int   // output ciphertexts per row
	Project []projection
}

func (l *Layout) shapeOf(layer *model.QLayer, r Round) shape {
	ps := projections(layer, r)
	s := shape{Project: ps}
	if len(ps) == 0 {
		return s
	}
	s.In = ps[0].Q.Weight.Shape[1]
	s.InCts = len(l.pieces(s.In))
	for _, p := range ps {
		out := p.Q.Weight.Shape[0]
		s.Outs = append(s.Outs, out)
		s.OutCts += len(l.outPieces(s.In, out))
	}
	return s
}
