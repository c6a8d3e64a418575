package schemacheck

import (
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
