package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	mpcbn254 "github.com/consensys/gnark/backend/groth16/bn254/mpcsetup"
	csbn254 "github.com/consensys/gnark/constraint/bn254"
)

// The contributions are verified one at a time; the commons and keys are
// byte for byte those of gnark's VerifyPhase1 and VerifyPhase2, which take
// every contribution in memory at once.
func TestStreamingSealMatchesGnark(t *testing.T) {
	ccs := compileCubic(t, ecc.BN254)
	run := runCeremony(t, ecc.BN254, ccs)

	decode1 := func() []*mpcbn254.Phase1 {
		var out []*mpcbn254.Phase1
		for _, b := range run.phase1 {
			p := new(mpcbn254.Phase1)
			if _, err := p.ReadFrom(bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	commons, err := mpcbn254.VerifyPhase1(run.n, []byte("beacon 1"), decode1()...)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := commons.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want.Bytes(), run.commons) {
		t.Fatal("streamed phase-1 commons differ from gnark's VerifyPhase1")
	}

	var phase2 []*mpcbn254.Phase2
	for _, b := range run.phase2 {
		p := new(mpcbn254.Phase2)
		if _, err := p.ReadFrom(bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		phase2 = append(phase2, p)
	}
	wantPK, wantVK, err := mpcbn254.VerifyPhase2(ccs.(*csbn254.R1CS), &commons, []byte("beacon 2"), phase2...)
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, err := Phase2Seal(ccs, bytes.NewReader(run.commons), []byte("beacon 2"), readers(run.phase2))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vkBytes(t, vk), vkBytes(t, wantVK)) {
		t.Fatal("streamed phase-2 verifying key differs from gnark's VerifyPhase2")
	}
	var a, b bytes.Buffer
	if _, err := pk.WriteTo(&a); err != nil {
		t.Fatal(err)
	}
	if _, err := wantPK.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("streamed phase-2 proving key differs from gnark's VerifyPhase2")
	}
}

// A contribution file that changes between its hash and its verification
// is refused; one never read is not an error. The file is larger than the
// reader's buffer, so that a change after the first read reaches bytes
// not yet read.
func TestTranscriptFileChanged(t *testing.T) {
	name := filepath.Join(t.TempDir(), "0001.bin")
	first := bytes.Repeat([]byte("first contents "), 3<<20/15)
	other := bytes.Repeat([]byte("other contents "), 3<<20/15)
	if err := os.WriteFile(name, first, 0o600); err != nil {
		t.Fatal(err)
	}
	hash, err := hashFile(name)
	if err != nil {
		t.Fatal(err)
	}
	unread := &transcriptFile{name: name, want: hash}
	if err := unread.finish(); err != nil {
		t.Fatal(err)
	}
	same := &transcriptFile{name: name, want: hash}
	if _, err := same.Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	if err := same.finish(); err != nil {
		t.Fatalf("unchanged file: %v", err)
	}
	changed := &transcriptFile{name: name, want: hash}
	if _, err := changed.Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, other, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := changed.finish(); err == nil || !strings.Contains(err.Error(), "changed while it was verified") {
		t.Fatalf("file changed after its first read: %v", err)
	}
	before := &transcriptFile{name: name, want: hash}
	if _, err := before.Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	if err := before.finish(); err == nil || !strings.Contains(err.Error(), "changed while it was verified") {
		t.Fatalf("file changed before its first read: %v", err)
	}
}
