package table

import "testing"

func TestFunctionRows(t *testing.T) {
	tb, err := Function("double", -3, []int64{-6, -4, -2, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	if tb.NbVars != 3 || tb.Value(0, 0) != -3 || tb.Value(1, 4) != 2 || tb.Value(1, 7) != 2 {
		t.Fatalf("table layout: %+v", tb)
	}
	if err := tb.Validate(); err != nil {
		t.Fatal(err)
	}
	if row, err := tb.Row([]int64{-1, -2}); err != nil || row != 2 {
		t.Fatalf("Row(-1, -2) = %d, %v", row, err)
	}
	for _, bad := range [][]int64{{-1, -3}, {-4, -8}, {5, 10}} {
		if _, err := tb.Row(bad); err == nil {
			t.Errorf("tuple %v found in the table", bad)
		}
	}
	r := Range(3)
	if r.Value(0, 7) != 7 {
		t.Fatal("range table")
	}
	if _, err := r.Row([]int64{8}); err == nil {
		t.Fatal("8 found in a 3-bit range")
	}
}
