package schemacheck

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

type base struct {
	Y      int
	walked []int
	hidden []int `gnark:"-"`
}

func TestWalked(t *testing.T) {
	type circuit struct {
		base
		X      int
		hidden []int `gnark:"-"`
		walked []int
		public int `gnark:",public"`
	}
	_ = circuit{}.base.walked
	_ = circuit{}.base.hidden
	_ = circuit{}.hidden
	_ = circuit{}.walked
	_ = circuit{}.public
	want := []string{"circuit.base.walked", "circuit.walked", "circuit.public"}
	if got := Walked(reflect.TypeOf(circuit{})); !slices.Equal(got, want) {
		t.Fatalf("Walked = %v, want %v", got, want)
	}
	type byPointer struct {
		*base
	}
	if got, want := Walked(reflect.TypeOf(byPointer{})), []string{"byPointer.base.walked"}; !slices.Equal(got, want) {
		t.Fatalf("Walked = %v, want %v", got, want)
	}
}

// recorder keeps the errors reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	type clean struct {
		X      int
		hidden []int `gnark:"-"`
	}
	_ = clean{}.hidden
	r := &recorder{TB: t}
	Check(r, clean{}, &clean{}, base{}, &base{})
	want := []string{
		`base.walked is walked by gnark's schema: tag it gnark:"-"`,
		`base.walked is walked by gnark's schema: tag it gnark:"-"`,
	}
	if !slices.Equal(r.errs, want) {
		t.Fatalf("Check reported %q, want %q", r.errs, want)
	}
}
