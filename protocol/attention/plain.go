package attention

import "fmt"

// Witness holds the tensors of one attention layer, int64 row-major.
type Witness struct {
	// Query is Q, QueryRows × Heads·HeadDim; head i is columns i·m…i·m+m−1.
	Query []int64
	// Keys is K, KeyRows × KVHeads·HeadDim.
	Keys []int64
	// Values is V, KeyRows × KVHeads·HeadDim.
	Values []int64
	// Probs is the softmax output A, Heads × QueryRows × KeyRows (entries
	// at masked positions are whatever the softmax layer produced, 0 in the
	// model's fixed-point pass).
	Probs []int64
}

// checkMatrix checks the length of a rows×cols matrix and returns the bit
// length of its largest |entry|.
func checkMatrix(name string, m []int64, rows, cols int) (int, error) {
	if len(m) != rows*cols {
		return 0, fmt.Errorf("attention: %s has %d entries, want %d×%d", name, len(m), rows, cols)
	}
	b := 0
	for _, v := range m {
		b = max(b, bitLen(v))
	}
	return b, nil
}

// maxProductBits bounds the plain sums: a sum of n products of entries of
// bit lengths a and b has bit length at most a + b + bitLen(n) ≤ 62, so it
// fits an int64 and, far below the field size, never wraps.
const maxProductBits = 62

func checkProduct(what string, a, b, n int) error {
	if a+b+bitLen(int64(n)) > maxProductBits {
		return fmt.Errorf("attention: %s: entries of %d and %d bits summed %d times may exceed 2^%d", what, a, b, n, maxProductBits)
	}
	return nil
}

// checkScores validates Query and Keys against d.
func (d *Dims) checkScores(w *Witness) error {
	qb, err := checkMatrix("query", w.Query, d.QueryRows, d.Heads*d.Width)
	if err != nil {
		return err
	}
	kb, err := checkMatrix("keys", w.Keys, d.KeyRows, d.KVHeads*d.Width)
	if err != nil {
		return err
	}
	return checkProduct("scores", qb, kb, d.Width)
}

// checkOutput validates Probs and Values against d.
func (d *Dims) checkOutput(w *Witness) error {
	ab, err := checkMatrix("probabilities", w.Probs, d.Heads*d.QueryRows, d.KeyRows)
	if err != nil {
		return err
	}
	vb, err := checkMatrix("values", w.Values, d.KeyRows, d.KVHeads*d.Width)
	if err != nil {
		return err
	}
	return checkProduct("output", ab, vb, d.KeyRows)
}

// MaskedScores returns the softmax input S_M = S ⊙ ẑ + c·(1 − ẑ) as the
// padded table of the protocol (length 2^ScoreVars, index
// [Config.ScoreIndex]), c = MaskValue: visible entries (row < s_q, key
// < l, key ≤ row in a prefill pass) hold the score, which is 0 in the padded
// heads; every other entry (future keys, padded rows and keys) holds c.
// Library API, with [Output] and [PadProbabilities]: the plain integer
// computation a caller lays out the tables of its claims with (the package
// example); the provers compute the same tables themselves.
func MaskedScores(cfg Config, query, keys []int64) ([]int64, error) {
	d, err := cfg.Dims()
	if err != nil {
		return nil, err
	}
	if err := d.checkScores(&Witness{Query: query, Keys: keys}); err != nil {
		return nil, err
	}
	return d.maskedOf(d.scoresOf(d.padQuery(query), d.padKV(keys)), cfg.MaskValue), nil
}

// PadProbabilities lays the softmax output A (Heads × QueryRows × KeyRows)
// out in the padded table of the protocol (index [Config.ScoreIndex]),
// zeros elsewhere. Claims on A produced by [ProveOutput] are claims on this
// table's MLE (library API, see [MaskedScores]).
func PadProbabilities(cfg Config, probs []int64) ([]int64, error) {
	d, err := cfg.Dims()
	if err != nil {
		return nil, err
	}
	if _, err := checkMatrix("probabilities", probs, d.Heads*d.QueryRows, d.KeyRows); err != nil {
		return nil, err
	}
	return d.padScores(probs), nil
}

func (d *Dims) padScores(t []int64) []int64 {
	out := make([]int64, 1<<d.ScoreVars())
	for i := range d.Heads {
		for j := range d.QueryRows {
			src := t[(i*d.QueryRows+j)*d.KeyRows : (i*d.QueryRows+j+1)*d.KeyRows]
			copy(out[d.scoreIndex(i, j, 0):], src)
		}
	}
	return out
}

// Output returns O = A_i·V_{⌊i/g⌋} for every head, concatenated by columns:
// QueryRows × Heads·HeadDim (library API, see [MaskedScores]).
func Output(cfg Config, probs, values []int64) ([]int64, error) {
	d, err := cfg.Dims()
	if err != nil {
		return nil, err
	}
	if err := d.checkOutput(&Witness{Probs: probs, Values: values}); err != nil {
		return nil, err
	}
	m, ow, vw := d.Width, d.Heads*d.Width, d.KVHeads*d.Width
	out := make([]int64, d.QueryRows*ow)
	for i := range d.Heads {
		a := i / d.Group
		for j := range d.QueryRows {
			o := out[j*ow+i*m : j*ow+(i+1)*m]
			p := probs[(i*d.QueryRows+j)*d.KeyRows : (i*d.QueryRows+j+1)*d.KeyRows]
			for k, pk := range p {
				if pk == 0 {
					continue
				}
				v := values[k*vw+a*m : k*vw+(a+1)*m]
				for t := range o {
					o[t] += pk * v[t]
				}
			}
		}
	}
	return out, nil
}

func dot(a, b []int64) int64 {
	var s int64
	for t := range a {
		s += a[t] * b[t]
	}
	return s
}
