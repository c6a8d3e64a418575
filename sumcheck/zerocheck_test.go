package sumcheck

import (
	"fmt"
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/transcript"
)

type fr = bn254fr.Element

// TestZeroCheckErrors: malformed relations and tables are errors, and a
// proof checked against another relation or size is rejected.
func TestZeroCheckErrors(t *testing.T) {
	tr := func() *transcript.Transcript[fr, *fr] { return transcript.New[fr, *fr]("zero", field.FromInt64[fr](1)) }
	one := field.One[fr]()
	x := []fr{field.FromInt64[fr](1), field.FromInt64[fr](2)}
	y := []fr{field.FromInt64[fr](2), field.FromInt64[fr](4)}
	double := []Term[fr]{{Coefficient: field.FromInt64[fr](2), Factors: []int{0}}, {Coefficient: field.FromInt64[fr](-1), Factors: []int{1}}}
	for name, c := range map[string]struct {
		tables   [][]fr
		relation []Term[fr]
	}{
		"no table":        {nil, double},
		"empty relation":  {[][]fr{x, y}, nil},
		"constant term":   {[][]fr{x, y}, []Term[fr]{{Coefficient: one}}},
		"factor too big":  {[][]fr{x}, double},
		"uneven tables":   {[][]fr{x, y[:1]}, double},
		"one-entry table": {[][]fr{x[:1], y[:1]}, double},
	} {
		if _, _, err := ProveZero(tr(), c.tables, c.relation); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	proof, _, err := ProveZero(tr(), [][]fr{x, y}, double)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyZero(tr(), 1, 2, double, proof); err != nil {
		t.Fatalf("honest proof rejected: %v", err)
	}
	other := []Term[fr]{{Coefficient: field.FromInt64[fr](3), Factors: []int{0}}, {Coefficient: field.FromInt64[fr](-1), Factors: []int{1}}}
	if _, err := VerifyZero(tr(), 1, 2, other, proof); err == nil {
		t.Error("proof accepted for another relation")
	}
	if _, err := VerifyZero(tr(), 2, 2, double, proof); err == nil {
		t.Error("proof accepted for another size")
	}
	if _, err := VerifyZero(tr(), 1, 3, double, proof); err == nil {
		t.Error("proof accepted for another table count")
	}
	// A generated table: the same proof; generated alone (no size known)
	// or not generated, refused.
	gen := func(src []fr) Option {
		return Generate(map[int]Generator[fr]{0: {Fill: func(dst []fr, start int) { copy(dst, src[start:]) }}})
	}
	genProof, _, err := ProveZero(tr(), [][]fr{nil, y}, double, gen(x))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(genProof) != fmt.Sprint(proof) {
		t.Error("the proof with a generated table differs")
	}
	if _, _, err := ProveZero(tr(), [][]fr{nil}, double[:1], gen(x)); err == nil {
		t.Error("a zero-check of generated tables only was accepted")
	}
	if _, _, err := ProveZero(tr(), [][]fr{nil, y}, double); err == nil {
		t.Error("a nil table not generated was accepted")
	}
}

// BenchmarkProveZero proves the requantization identity y·2¹² + rem = acc
// (degree 1) and a masked gated product out = mask·gate·up (degree 3) over
// 2²⁰ entries on BLS12-377.
func BenchmarkProveZero(b *testing.B) {
	type fe = bls12377fr.Element
	const n = 20
	rng := rand.New(rand.NewPCG(1, 1))
	tables := make([][]fe, 4)
	for i := range tables {
		tables[i] = make([]fe, 1<<n)
	}
	for x := range tables[0] {
		y, rem := rng.Int64N(1<<16)-1<<15, rng.Int64N(1<<12)
		tables[0][x].SetInt64(y)
		tables[1][x].SetInt64(rem)
		tables[2][x].SetInt64(y<<12 + rem)
	}
	requant := []Term[fe]{{Coefficient: field.FromInt64[fe](1 << 12), Factors: []int{0}}, {Coefficient: field.One[fe](), Factors: []int{1}}, {Coefficient: field.FromInt64[fe](-1), Factors: []int{2}}}
	gated := make([][]fe, 4)
	for i := range gated {
		gated[i] = make([]fe, 1<<n)
	}
	for x := range gated[0] {
		m, g, u := rng.Int64N(2), rng.Int64N(1<<10), rng.Int64N(1<<10)
		gated[0][x].SetInt64(m)
		gated[1][x].SetInt64(g)
		gated[2][x].SetInt64(u)
		gated[3][x].SetInt64(m * g * u)
	}
	product := []Term[fe]{{Coefficient: field.One[fe](), Factors: []int{3}}, {Coefficient: field.FromInt64[fe](-1), Factors: []int{0, 1, 2}}}
	for _, c := range []struct {
		name     string
		tables   [][]fe
		relation []Term[fe]
	}{{"requantization", tables[:3], requant}, {"gated", gated, product}} {
		b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
			for b.Loop() {
				tr := transcript.New[fe, *fe]("zero", field.One[fe]())
				if _, _, err := ProveZero(tr, c.tables, c.relation); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1<<n), "ns/element")
		})
	}
}
