package tier

import "testing"

func TestSampled(t *testing.T) {
	n := 4
	for offset := 0; offset < n; offset++ {
		got := 0
		for i := 0; i < 4*n; i++ {
			if Sampled(i, n, offset) {
				got++
			}
		}
		want := 4
		if Full {
			want = 4 * n
		}
		if got != want {
			t.Errorf("offset %d: %d of %d sampled, want %d", offset, got, 4*n, want)
		}
	}
	// The offsets together cover every index.
	for i := 0; i < 3*n; i++ {
		covered := false
		for offset := 0; offset < n; offset++ {
			covered = covered || Sampled(i, n, offset)
		}
		if !covered {
			t.Errorf("index %d sampled by no offset", i)
		}
	}
	if Stride(0) != 1 {
		t.Error("stride of 0 values")
	}
}
