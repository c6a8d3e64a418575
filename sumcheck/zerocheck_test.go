package sumcheck

import (
	"testing"

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
}
