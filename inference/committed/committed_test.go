package committed

import (
	"io"
	"log"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

var (
	srsOnce sync.Once
	srs     *pcs.SRS
	srsErr  error
)

// testSRS is a development SRS large enough for the tests' segments.
func testSRS(t testing.TB, size int) *pcs.SRS {
	srsOnce.Do(func() { srs, srsErr = pcs.NewDevelopmentSRS(size, log.New(io.Discard, "", 0)) })
	if srsErr != nil {
		t.Fatal(srsErr)
	}
	if srs.Size() < size {
		t.Fatalf("srs of %d powers, need %d", srs.Size(), size)
	}
	return srs
}

type fixture struct {
	m      *model.Model
	st     statement.Statement
	tr     *model.Trace
	rows   int
	prompt []int
}

func newFixture(t testing.TB, m *model.Model, rows int) *fixture {
	tokens := make([]int, rows)
	for i := range tokens {
		tokens[i] = (i*37 + 11) % m.Config.Vocab
	}
	tr, err := m.Forward(m.NewCache(), tokens)
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.New[fr.Element](m, tokens[:rows-1], tokens[rows-1:])
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{m: m, st: st, tr: tr, rows: rows, prompt: tokens}
}

func TestHonest(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}} {
		proof, _, err := Prove(s, f.m, f.st, f.tr, seg)
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		claims, err := Verify(s.VerifyingKey(), f.m, f.st, f.prompt, seg, proof)
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		if len(claims.Accumulators) == 0 || len(claims.Accumulators) != len(claims.Requants) || len(claims.Accumulators) >= len(proof.Accumulators) {
			t.Fatalf("%d accumulator claims left for %d requantizations of which %d are projections", len(claims.Accumulators), len(proof.Accumulators), len(proof.Projections))
		}
	}
}
