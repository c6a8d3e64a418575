package attention

import (
	"fmt"
	"math/bits"

	"github.com/veriformer/veriformer/poly"
)

// Config is the shape of one attention layer.
//
// The query rows are the tokens at positions Start, Start+1, …, and query
// row j sees the keys 0…Start+j (causal attention against a KV cache). A
// prefill pass has Start = 0 and QueryRows = KeyRows; a decoding pass has
// QueryRows = 1 and Start the position of the token (KeyRows = Start + 1
// for a cache of exactly the keys so far, more for a fixed-size cache whose
// later rows are masked); a continuation appends QueryRows > 1 tokens to a
// cache of Start rows.
type Config struct {
	// Heads is the number of query heads h_q.
	Heads int
	// KVHeads is the number of key/value heads h_kv; it divides Heads and
	// query head i reads key/value head ⌊i/g⌋, g = Heads/KVHeads. 0 means
	// Heads (plain multi-head attention).
	KVHeads int
	// HeadDim is the width m of one head.
	HeadDim int
	// QueryRows is the number of query rows s_q (tokens of this pass).
	QueryRows int
	// KeyRows is the number of key/value rows l (context length).
	KeyRows int
	// Start is the position of the first query row; Start + QueryRows ≤
	// KeyRows.
	Start int
	// MaskValue is the value c of the masked entries of the softmax input
	// (the seed's −∞); 0 gives the zeroified scores.
	MaskValue int64
	// OutputClaims is the number of claims on the output O (0 means 1);
	// several are merged by a same-poly step.
	OutputClaims int
	// ScoreClaims is the number of claims on the masked scores S_M (0 means
	// 1); several are merged by a same-poly step.
	ScoreClaims int
}

// Limits on the shapes; they keep every integer of the plain computation
// and every table index inside an int64.
const (
	// MaxHeads bounds Heads, KVHeads and HeadDim.
	MaxHeads = 1 << 12
	// MaxRows bounds QueryRows and KeyRows.
	MaxRows = 1 << 16
	// MaxMaskBits bounds |MaskValue| < 2^MaxMaskBits.
	MaxMaskBits = 62
)

// dims holds the derived sizes of a validated configuration (all padded
// sizes are powers of two, vars are their logarithms).
type dims struct {
	heads, kvHeads, group, width int // h_q, h_kv, g, m
	queryRows, keyRows, start    int // s_q, l, position of query row 0

	kvHeadVars, groupVars, widthVars int // ⌈log₂ h_kv⌉, ⌈log₂ g⌉, ⌈log₂ m⌉
	rowVars, keyVars                 int // ⌈log₂ s_q⌉, ⌈log₂ l⌉
	queryColVars, kvColVars          int // ⌈log₂(h_q·m)⌉, ⌈log₂(h_kv·m)⌉
}

func (d *dims) headVars() int      { return d.kvHeadVars + d.groupVars }
func (d *dims) paddedWidth() int   { return 1 << d.widthVars }    // m̂
func (d *dims) paddedGroup() int   { return 1 << d.groupVars }    // ĝ
func (d *dims) paddedKVHeads() int { return 1 << d.kvHeadVars }   // ĥ_kv
func (d *dims) paddedHeads() int   { return 1 << d.headVars() }   // ĥ = ĥ_kv·ĝ
func (d *dims) paddedRows() int    { return 1 << d.rowVars }      // ŝ_q
func (d *dims) paddedKeys() int    { return 1 << d.keyVars }      // l̂
func (d *dims) queryCols() int     { return 1 << d.queryColVars } // D_q
func (d *dims) kvCols() int        { return 1 << d.kvColVars }    // D_kv
func (d *dims) paddedQueryCols() int {
	return d.paddedHeads() * d.paddedWidth() // ĥ·m̂, columns (a, b, t)
}
func (d *dims) paddedKVCols() int { return d.paddedKVHeads() * d.paddedWidth() } // ĥ_kv·m̂
func (d *dims) scoreVars() int    { return d.headVars() + d.rowVars + d.keyVars }

// paddedHead maps query head i to its index a·ĝ + b in the padded head
// dimension (a = ⌊i/g⌋ its key/value head, b = i mod g).
func (d *dims) paddedHead(i int) int { return (i/d.group)*d.paddedGroup() + i%d.group }

// queryColumn maps column c = i·m + t of Q (or O) to its column
// (a·ĝ + b)·m̂ + t of the padded Q̂ (or Ô).
func (d *dims) queryColumn(c int) int {
	return d.paddedHead(c/d.width)*d.paddedWidth() + c%d.width
}

// kvColumn maps column c = a·m + t of K (or V) to its column a·m̂ + t of K̂.
func (d *dims) kvColumn(c int) int { return (c/d.width)*d.paddedWidth() + c%d.width }

// dims validates c and returns its derived sizes.
func (c Config) dims() (dims, error) {
	kv := c.KVHeads
	if kv == 0 {
		kv = c.Heads
	}
	switch {
	case c.Heads < 1 || c.Heads > MaxHeads:
		return dims{}, fmt.Errorf("attention: heads %d outside [1, %d]", c.Heads, MaxHeads)
	case kv < 1 || kv > c.Heads:
		return dims{}, fmt.Errorf("attention: key/value heads %d outside [1, %d]", kv, c.Heads)
	case c.Heads%kv != 0:
		return dims{}, fmt.Errorf("attention: key/value heads %d do not divide heads %d", kv, c.Heads)
	case c.HeadDim < 1 || c.HeadDim > MaxHeads:
		return dims{}, fmt.Errorf("attention: head dimension %d outside [1, %d]", c.HeadDim, MaxHeads)
	case c.QueryRows < 1 || c.QueryRows > MaxRows:
		return dims{}, fmt.Errorf("attention: query rows %d outside [1, %d]", c.QueryRows, MaxRows)
	case c.KeyRows < 1 || c.KeyRows > MaxRows:
		return dims{}, fmt.Errorf("attention: key rows %d outside [1, %d]", c.KeyRows, MaxRows)
	case c.Start < 0 || c.Start > c.KeyRows-c.QueryRows:
		return dims{}, fmt.Errorf("attention: %d query rows from position %d against %d keys", c.QueryRows, c.Start, c.KeyRows)
	case c.MaskValue <= -(1<<MaxMaskBits) || c.MaskValue >= 1<<MaxMaskBits:
		return dims{}, fmt.Errorf("attention: mask value %d outside (−2^%d, 2^%d)", c.MaskValue, MaxMaskBits, MaxMaskBits)
	case c.OutputClaims < 0 || c.ScoreClaims < 0:
		return dims{}, fmt.Errorf("attention: negative claim counts %d, %d", c.OutputClaims, c.ScoreClaims)
	}
	group := c.Heads / kv
	if !poly.IsPowerOfTwo(group) && !poly.IsPowerOfTwo(c.HeadDim) {
		return dims{}, fmt.Errorf("attention: group size %d and head dimension %d: one of them must be a power of two", group, c.HeadDim)
	}
	return dims{
		heads: c.Heads, kvHeads: kv, group: group, width: c.HeadDim,
		queryRows: c.QueryRows, keyRows: c.KeyRows, start: c.Start,
		kvHeadVars: poly.Log2Ceil(kv), groupVars: poly.Log2Ceil(group), widthVars: poly.Log2Ceil(c.HeadDim),
		rowVars: poly.Log2Ceil(c.QueryRows), keyVars: poly.Log2Ceil(c.KeyRows),
		queryColVars: poly.Log2Ceil(c.Heads * c.HeadDim), kvColVars: poly.Log2Ceil(kv * c.HeadDim),
	}, nil
}

// Dims are the derived sizes of a valid configuration (Vars fields are
// logarithms of padded sizes): what the in-circuit verifier needs to size
// and check a proof.
type Dims struct {
	Heads, KVHeads, Group, Width     int // h_q, h_kv, g, m
	QueryRows, KeyRows, Start        int // s_q, l, position of query row 0
	KVHeadVars, GroupVars, WidthVars int // ⌈log₂ h_kv⌉, ⌈log₂ g⌉, ⌈log₂ m⌉
	RowVars, KeyVars                 int // ⌈log₂ s_q⌉, ⌈log₂ l⌉
	QueryColVars, KVColVars          int // ⌈log₂(h_q·m)⌉, ⌈log₂(h_kv·m)⌉
}

// HeadVars returns ⌈log₂ h_kv⌉ + ⌈log₂ g⌉, the variables of the padded head
// dimension.
func (d *Dims) HeadVars() int { return d.KVHeadVars + d.GroupVars }

// ScoreVars returns the variables of the padded score tensors.
func (d *Dims) ScoreVars() int { return d.HeadVars() + d.RowVars + d.KeyVars }

// Dims validates c and returns its derived sizes.
func (c Config) Dims() (Dims, error) {
	d, err := c.dims()
	if err != nil {
		return Dims{}, err
	}
	return Dims{
		Heads: d.heads, KVHeads: d.kvHeads, Group: d.group, Width: d.width,
		QueryRows: d.queryRows, KeyRows: d.keyRows, Start: d.start,
		KVHeadVars: d.kvHeadVars, GroupVars: d.groupVars, WidthVars: d.widthVars,
		RowVars: d.rowVars, KeyVars: d.keyVars,
		QueryColVars: d.queryColVars, KVColVars: d.kvColVars,
	}, nil
}

// Validate reports whether c is a supported shape.
func (c Config) Validate() error {
	_, err := c.dims()
	return err
}

func (c Config) outputClaims() int { return max(c.OutputClaims, 1) }
func (c Config) scoreClaims() int  { return max(c.ScoreClaims, 1) }

// ScoreVars returns the number of variables of the padded score tensors
// (masked scores S_M and probabilities A): ⌈log₂ h_kv⌉ + ⌈log₂ g⌉ head
// variables, ⌈log₂ s_q⌉ row variables, ⌈log₂ l⌉ key variables.
func (c Config) ScoreVars() (int, error) {
	d, err := c.dims()
	if err != nil {
		return 0, err
	}
	return d.scoreVars(), nil
}

// ScoreIndex returns the index of entry (head, row, key) of a score tensor
// in its padded table: ((a·ĝ + b)·ŝ_q + row)·l̂ + key with a = ⌊head/g⌋,
// b = head mod g.
func (c Config) ScoreIndex(head, row, key int) (int, error) {
	d, err := c.dims()
	if err != nil {
		return 0, err
	}
	if head < 0 || head >= d.heads || row < 0 || row >= d.queryRows || key < 0 || key >= d.keyRows {
		return 0, fmt.Errorf("attention: score entry (%d, %d, %d) outside %d×%d×%d", head, row, key, d.heads, d.queryRows, d.keyRows)
	}
	return d.scoreIndex(head, row, key), nil
}

func (d *dims) scoreIndex(head, row, key int) int {
	return (d.paddedHead(head)*d.paddedRows()+row)*d.paddedKeys() + key
}

// visible reports whether key is visible from query row (the causal rule).
func (d *dims) visible(row, key int) bool { return key <= d.start+row }

// bitLen returns the bit length of |v|.
func bitLen(v int64) int {
	if v < 0 {
		v = -v
	}
	return bits.Len64(uint64(v))
}
