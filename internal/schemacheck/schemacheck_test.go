package schemacheck

import (
	"reflect"
	"slices"
	"testing"
)

func TestWalked(t *testing.T) {
	type circuit struct {
		X      int
		hidden []int `gnark:"-"`
		walked []int
		public int `gnark:",public"`
	}
	_ = circuit{}.hidden
	_ = circuit{}.walked
	_ = circuit{}.public
	if got, want := Walked(reflect.TypeOf(circuit{})), []string{"circuit.walked", "circuit.public"}; !slices.Equal(got, want) {
		t.Fatalf("Walked = %v, want %v", got, want)
	}
}
