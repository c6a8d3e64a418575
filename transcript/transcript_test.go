package transcript

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

var update = flag.Bool("update", false, "rewrite the golden vectors in testdata")

const vectorsFile = "testdata/vectors.json"

// Replay runs the vector's operations on a fresh native transcript and
// returns the challenges and final state it produces.
func Replay[E field.Scalar, P field.Ptr[E]](v *Vector) (challenges [][]E, final E, err error) {
	statement, err := parseAll[E, P](v.Statement)
	if err != nil {
		return nil, final, fmt.Errorf("statement: %w", err)
	}
	t := New[E, P](v.Domain, statement...)
	for i, s := range v.Steps {
		if s.Label != "" {
			t.Label(s.Label)
		}
		xs, err := parseAll[E, P](s.Absorb)
		if err != nil {
			return nil, final, fmt.Errorf("step %d: %w", i, err)
		}
		t.Absorb(xs...)
		challenges = append(challenges, t.Challenges(len(s.Challenges)))
	}
	return challenges, t.State(), nil
}

// parseAll parses decimal field elements, refusing non-canonical ones.
func parseAll[E field.Scalar, P field.Ptr[E]](ss []string) ([]E, error) {
	out := make([]E, len(ss))
	for i, s := range ss {
		b, ok := new(big.Int).SetString(s, 10)
		if !ok || b.Sign() < 0 || b.Cmp(field.Modulus[E]()) >= 0 {
			return nil, fmt.Errorf("element %d: %q is not a canonical field element", i, s)
		}
		P(&out[i]).SetBigInt(b)
	}
	return out, nil
}

// Resume returns a transcript in the given state, as if it had been
// produced by the calls that led to it: the native form of the gadget's
// Resume (gadgets/transcript), which the tests check continues a
// transcript.
func Resume[E field.Scalar, P field.Ptr[E]](state E) *Transcript[E, P] {
	return &Transcript[E, P]{
		compress: compressor[E](),
		state:    state,
		tag:      Constant[E, P]("challenge"),
	}
}

func makeVector[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, name string) Vector {
	str := func(xs []E) []string {
		out := make([]string, len(xs))
		for i := range xs {
			out[i] = P(&xs[i]).String()
		}
		return out
	}
	v := Vector{Field: name, Domain: "veriformer/test", Statement: str(field.RandomVector[E, P](rng, 3))}
	labels := []string{"", "qkv", "", "attention"}
	for i, label := range labels {
		v.Steps = append(v.Steps, Step{
			Label:      label,
			Absorb:     str(field.RandomVector[E, P](rng, i+1)),
			Challenges: make([]string, 1+i%2),
		})
	}
	challenges, final, err := Replay[E, P](&v)
	if err != nil {
		panic(err)
	}
	for i := range v.Steps {
		v.Steps[i].Challenges = str(challenges[i])
	}
	v.Final = P(&final).String()
	return v
}

func TestGoldenVectors(t *testing.T) {
	if *update {
		rng := rand.New(rand.NewPCG(2026, 11))
		vs := []Vector{
			makeVector[bn254fr.Element](rng, "bn254"),
			makeVector[bls12377fr.Element](rng, "bls12-377"),
		}
		data, err := json.MarshalIndent(vs, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.FromSlash(vectorsFile), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vs, err := ReadVectors(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 {
		t.Fatalf("%d vectors, want one per field", len(vs))
	}
	for _, v := range vs {
		var got [][]string
		var final string
		switch v.Field {
		case "bn254":
			got, final = replayStrings[bn254fr.Element](t, &v)
		case "bls12-377":
			got, final = replayStrings[bls12377fr.Element](t, &v)
		default:
			t.Fatalf("unknown field %q", v.Field)
		}
		for i, s := range v.Steps {
			for j := range s.Challenges {
				if got[i][j] != s.Challenges[j] {
					t.Fatalf("%s step %d challenge %d: got %s want %s", v.Field, i, j, got[i][j], s.Challenges[j])
				}
			}
		}
		if final != v.Final {
			t.Fatalf("%s: final state differs", v.Field)
		}
	}
}

func replayStrings[E field.Scalar, P field.Ptr[E]](t *testing.T, v *Vector) ([][]string, string) {
	challenges, final, err := Replay[E, P](v)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(challenges))
	for i := range challenges {
		for j := range challenges[i] {
			out[i] = append(out[i], P(&challenges[i][j]).String())
		}
	}
	return out, P(&final).String()
}

// Every input to the transcript changes the challenges that follow it.
func testSensitivity[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	one := field.One[E, P]()
	base := func(domain string, stmt []E, absorbed []E, label string) E {
		tr := New[E, P](domain, stmt...)
		if label != "" {
			tr.Label(label)
		}
		tr.Absorb(absorbed...)
		return tr.Challenge()
	}
	stmt := []E{field.FromInt64[E, P](1), field.FromInt64[E, P](2)}
	abs := []E{field.FromInt64[E, P](3), field.FromInt64[E, P](4)}
	ref := base("d", stmt, abs, "")
	variants := map[string]E{
		"domain":           base("e", stmt, abs, ""),
		"statement":        base("d", []E{stmt[0], one}, abs, ""),
		"statement length": base("d", stmt[:1], append([]E{stmt[1]}, abs...), ""),
		"absorbed":         base("d", stmt, []E{abs[0], one}, ""),
		"order":            base("d", stmt, []E{abs[1], abs[0]}, ""),
		"label":            base("d", stmt, abs, "x"),
	}
	for name, c := range variants {
		if P(&c).Equal(&ref) {
			t.Errorf("changing the %s did not change the challenge", name)
		}
	}
	// Consecutive challenges differ and depend on the state.
	tr := New[E, P]("d")
	c1, c2 := tr.Challenge(), tr.Challenge()
	if P(&c1).Equal(&c2) {
		t.Error("two consecutive challenges are equal")
	}
	// Resume continues a transcript from its state.
	a := New[E, P]("d", stmt...)
	a.Absorb(abs...)
	b := Resume[E, P](a.State())
	ca, cb := a.Challenge(), b.Challenge()
	if !P(&ca).Equal(&cb) {
		t.Error("a resumed transcript squeezes a different challenge")
	}
}

func TestSensitivity(t *testing.T) {
	t.Run("bn254", testSensitivity[bn254fr.Element])
	t.Run("bls12-377", testSensitivity[bls12377fr.Element])
}

func TestConstantReduced(t *testing.T) {
	for _, m := range []*big.Int{bn254fr.Modulus(), bls12377fr.Modulus()} {
		c := ConstantBig("challenge", m)
		if c.Sign() < 0 || c.Cmp(m) >= 0 {
			t.Fatal("constant not reduced")
		}
	}
}

func TestReplayRejectsBadElements(t *testing.T) {
	v := Vector{Domain: "d", Statement: []string{"-1"}}
	if _, _, err := Replay[bn254fr.Element](&v); err == nil {
		t.Fatal("negative element accepted")
	}
	v.Statement = []string{bn254fr.Modulus().String()}
	if _, _, err := Replay[bn254fr.Element](&v); err == nil {
		t.Fatal("non-canonical element accepted")
	}
}

func benchAbsorb[E field.Scalar, P field.Ptr[E]](b *testing.B) {
	tr := New[E, P]("bench")
	x := field.FromInt64[E, P](12345)
	for b.Loop() {
		tr.Absorb(x)
	}
}

func BenchmarkAbsorb(b *testing.B) {
	b.Run("bn254", benchAbsorb[bn254fr.Element])
	b.Run("bls12-377", benchAbsorb[bls12377fr.Element])
}
