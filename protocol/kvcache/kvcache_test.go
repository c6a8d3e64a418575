package kvcache

import (
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

func randomInts(rng *rand.Rand, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = rng.Int64N(1<<16) - 1<<15
	}
	return out
}

func newTranscript[E field.Scalar, P field.Ptr[E]]() *transcript.Transcript[E, P] {
	return transcript.New[E, P]("kvcache-test")
}

// evaluateCache evaluates the rows×width matrix zero-padded to context rows.
func evaluateCache[E field.Scalar, P field.Ptr[E]](values []int64, rows, context, width int, point []E) E {
	return poly.Evaluate[E, P](padCache[E, P](values, rows, context, width), point)
}

// appendCase is one honest append of live of the new rows: the new
// cache's claims at random points.
func appendCase[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, cfg Config, live int) (Witness, []poly.Claim[E]) {
	w := Witness{Prev: randomInts(rng, cfg.Position*cfg.Width), New: randomInts(rng, cfg.NewRows()*cfg.Width), Live: live}
	next := append(append([]int64(nil), w.Prev...), w.New[:live*cfg.Width]...)
	out := make([]poly.Claim[E], cfg.Claims)
	for i := range out {
		point := field.RandomVector[E, P](rng, cfg.RowVars()+cfg.ColVars())
		out[i] = poly.Claim[E]{Point: point, Value: evaluateCache[E, P](next, cfg.Position+live, cfg.Context, cfg.Width, point)}
	}
	return w, out
}

// checkAppend verifies and checks the left claims against the tensors.
func checkAppend[E field.Scalar, P field.Ptr[E]](cfg Config, w Witness, proof *Proof[E], out []poly.Claim[E]) bool {
	claims, err := Verify(newTranscript[E, P](), cfg, w.Live, proof, out)
	if err != nil {
		return false
	}
	prev := poly.Evaluate[E, P](Table[E, P](cfg, w.Prev), claims.Prev.Point)
	rows := evaluateCache[E, P](w.New, cfg.NewRows(), cfg.NewRows(), cfg.Width, claims.New.Point)
	return P(&prev).Equal(&claims.Prev.Value) && P(&rows).Equal(&claims.New.Value)
}

func testAppend[E field.Scalar, P field.Ptr[E]](t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	one := field.One[E, P]()
	for _, c := range []struct {
		cfg  Config
		live int
	}{
		{Config{Context: 6, Width: 3, Position: 0, Claims: 1}, 1},
		{Config{Context: 6, Width: 3, Position: 5, Claims: 2}, 1},
		{Config{Context: 64, Width: 10, Position: 17, Claims: 2}, 1},
		{Config{Context: 1, Width: 1, Position: 0, Claims: 3}, 1},
		// A turn: a bucket of 8 rows, 5 of them kept, from position 17.
		{Config{Context: 64, Width: 10, Position: 17, Rows: 8, Claims: 2}, 5},
		// A first turn (an empty cache), every row kept, and one that
		// fills the context to its last row.
		{Config{Context: 20, Width: 6, Position: 0, Rows: 4, Claims: 1}, 4},
		{Config{Context: 20, Width: 6, Position: 13, Rows: 8, Claims: 1}, 7},
		// Pad rows beyond the context, not kept.
		{Config{Context: 20, Width: 6, Position: 17, Rows: 8, Claims: 2}, 2},
	} {
		cfg, live := c.cfg, c.live
		w, out := appendCase[E, P](rng, cfg, live)
		proof, _, err := Prove(newTranscript[E, P](), cfg, w, out)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		if !checkAppend[E, P](cfg, w, proof, out) {
			t.Fatalf("%+v: honest proof rejected", cfg)
		}
		var elements []*E
		if proof.Merge != nil {
			for _, r := range proof.Merge.SumCheck.Rounds {
				for i := range r {
					elements = append(elements, &r[i])
				}
			}
			elements = append(elements, &proof.Merge.Evaluation)
		}
		for _, r := range proof.Shift.Rounds {
			for i := range r {
				elements = append(elements, &r[i])
			}
		}
		elements = append(elements, &proof.Prev, &proof.New)
		for i, x := range elements {
			saved := *x
			P(x).Add(x, &one)
			if checkAppend[E, P](cfg, w, proof, out) {
				t.Errorf("%+v: element %d tampered, accepted", cfg, i)
			}
			*x = saved
		}
		// The new rows claimed at another position, or another count.
		if cfg.Context > 1 && cfg.Position+live < cfg.Context {
			wrong := cfg
			wrong.Position++
			if _, err := Verify(newTranscript[E, P](), wrong, live, proof, out); err == nil {
				t.Errorf("%+v: accepted at position %d", cfg, wrong.Position)
			}
		}
		for _, other := range []int{live - 1, live + 1} {
			if other < 0 || cfg.checkLive(other) != nil {
				continue
			}
			if _, err := Verify(newTranscript[E, P](), cfg, other, proof, out); err == nil {
				t.Errorf("%+v: %d rows written, accepted as %d", cfg, live, other)
			}
		}
	}
}

func TestAppend(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testAppend[bn254fr.Element](t, seed) })
	t.Run("bls12-377", func(t *testing.T) { testAppend[bls12377fr.Element](t, seed) })
}

func TestInvalid(t *testing.T) {
	type E = bn254fr.Element
	for _, cfg := range []Config{{Context: 0, Width: 1, Claims: 1}, {Context: 4, Width: 1, Position: 4, Claims: 1}, {Context: 4, Width: 1, Claims: 0}} {
		if cfg.Validate() == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	cfg := Config{Context: 8, Width: 4, Position: 2, Claims: 2}
	w, out := appendCase[E](rng, cfg, 1)
	if _, _, err := Prove(newTranscript[E](), cfg, Witness{Prev: w.Prev, New: w.New[1:], Live: 1}, out); err == nil {
		t.Error("short row accepted")
	}
	if _, _, err := Prove(newTranscript[E](), cfg, Witness{Prev: w.Prev, New: w.New, Live: 2}, out); err == nil {
		t.Error("two rows written of one accepted")
	}
	if _, _, err := Prove(newTranscript[E](), cfg, w, out[:1]); err == nil {
		t.Error("wrong claim count accepted")
	}
	proof, _, err := Prove(newTranscript[E](), cfg, w, out)
	if err != nil {
		t.Fatal(err)
	}
	proof.Merge = nil
	if _, err := Verify(newTranscript[E](), cfg, 1, proof, out); err == nil {
		t.Error("proof without same-poly accepted")
	}
}

// testWrites proves claims on the written rows W against W itself, and
// checks that a wrong value, round or y_X, a row outside the kept ones,
// another position and another count are rejected.
func testWrites[E field.Scalar, P field.Ptr[E]](t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, c := range []struct {
		cfg  Config
		live int
	}{
		{Config{Context: 6, Width: 3, Position: 2, Claims: 1}, 1},
		{Config{Context: 64, Width: 10, Position: 17, Rows: 8, Claims: 1}, 5},
		{Config{Context: 16, Width: 4, Position: 0, Rows: 16, Claims: 1}, 16},
		{Config{Context: 20, Width: 6, Position: 13, Rows: 8, Claims: 1}, 0},
	} {
		cfg, live := c.cfg, c.live
		rows := randomInts(rng, cfg.NewRows()*cfg.Width)
		w, err := Writes[E, P](cfg, rows, live)
		if err != nil {
			t.Fatal(err)
		}
		// W is the table of a cache holding zero rows, then the kept ones.
		cache := append(make([]int64, cfg.Position*cfg.Width), rows[:live*cfg.Width]...)
		table := Table[E, P](cfg, cache)
		if len(table) != len(w) {
			t.Fatalf("%+v: %d entries written, a table of %d", cfg, len(w), len(table))
		}
		for i := range w {
			if !P(&w[i]).Equal(&table[i]) {
				t.Fatalf("%+v live %d: entry %d of the written rows is not the cache table's", cfg, live, i)
			}
		}
		point := field.RandomVector[E, P](rng, cfg.RowVars()+cfg.ColVars())
		claim := poly.Claim[E]{Point: point, Value: poly.Evaluate[E, P](w, point)}
		proof, left, err := ProveWrites(newTranscript[E, P](), cfg, rows, live, claim)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		got, err := VerifyWrites(newTranscript[E, P](), cfg, live, proof, claim)
		if err != nil {
			t.Fatalf("%+v live %d: honest writes rejected: %v", cfg, live, err)
		}
		want := evaluateCache[E, P](rows, cfg.NewRows(), cfg.NewRows(), cfg.Width, got.Point)
		if !P(&want).Equal(&got.Value) || !P(&left.Value).Equal(&got.Value) {
			t.Fatalf("%+v: the claim on the new rows is not their MLE", cfg)
		}
		one := field.One[E, P]()
		reject := func(what string, cfg Config, live int, p *WritesProof[E], claim poly.Claim[E]) {
			t.Helper()
			if c, err := VerifyWrites(newTranscript[E, P](), cfg, live, p, claim); err == nil {
				// A tampered y_X passes the shift only if the new rows'
				// claim then fails.
				v := evaluateCache[E, P](rows, cfg.NewRows(), cfg.NewRows(), cfg.Width, c.Point)
				if P(&v).Equal(&c.Value) {
					t.Errorf("%+v: %s accepted", cfg, what)
				}
			}
		}
		bad := claim
		P(&bad.Value).Add(&bad.Value, &one)
		reject("a wrong value", cfg, live, proof, bad)
		for r := range proof.Shift.Rounds {
			for k := range proof.Shift.Rounds[r] {
				p := *proof
				p.Shift.Rounds = append([][]E(nil), proof.Shift.Rounds...)
				p.Shift.Rounds[r] = append([]E(nil), proof.Shift.Rounds[r]...)
				P(&p.Shift.Rounds[r][k]).Add(&p.Shift.Rounds[r][k], &one)
				reject("a round value changed", cfg, live, &p, claim)
			}
		}
		p := *proof
		P(&p.New).Add(&p.New, &one)
		reject("y_X changed", cfg, live, &p, claim)
		if live < cfg.NewRows() && cfg.Position+live < cfg.Context {
			reject("one more row counted", cfg, live+1, proof, claim)
		}
		if live > 0 {
			reject("a row dropped", cfg, live-1, proof, claim)
			moved := cfg
			moved.Position = (cfg.Position + 1) % max(cfg.Context-live+1, 1)
			if moved.Position != cfg.Position {
				reject("another position", moved, live, proof, claim)
			}
		}
	}
	if _, err := Writes[E, P](Config{Context: 8, Width: 2, Position: 6, Rows: 4, Claims: 1}, make([]int64, 8), 3); err == nil {
		t.Error("rows written past the context accepted")
	}
	if _, err := VerifyWrites(newTranscript[E, P](), Config{Context: 8, Width: 2, Position: 1, Claims: 1}, 1, nil, poly.Claim[E]{Point: make([]E, 4)}); err == nil {
		t.Error("no proof accepted")
	}
}

func TestWrites(t *testing.T) {
	testWrites[bn254fr.Element](t, 1)
	testWrites[bls12377fr.Element](t, 2)
}
