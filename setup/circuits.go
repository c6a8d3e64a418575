package setup

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
)

// circuitFormat versions the compiled-circuit cache files.
const circuitFormat = "veriformer/setup/circuit/v1"

// buildStamp identifies the code that compiles circuits: the SHA-256 of
// the running executable, computed once. Tests replace it. A binary that
// `go build` stamps with its commit (the default in a repository) has
// another hash, and another Go build ID, at every commit, even when the
// code is the same; `go run` and `-buildvcs=false` stamp no commit.
var buildStamp = sync.OnceValues(func() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
})

// CompileCached returns the circuit that compile returns, kept in
// dir/circuits under the name id (a description of everything the
// circuit depends on besides the code: model id, segment, lengths, …)
// so that a later run of the same executable reads it instead of
// compiling it again. A file written by another executable (other code
// may compile another circuit), of another format or whose digest does
// not match is replaced. hit tells whether the file was read.
//
// The file is trusted as the key cache is: with ceremony keys
// (WithKind(Ceremony)) a changed circuit finds no keys, since keys are
// named by the circuit's hash ([CircuitHash]).
func CompileCached(dir, id string, curve ecc.ID, compile func() (constraint.ConstraintSystem, error)) (ccs constraint.ConstraintSystem, hit bool, err error) {
	stamp, err := buildStamp()
	if err != nil {
		// No way to tell which code wrote a file: compile.
		ccs, err := compile()
		return ccs, false, err
	}
	sum := sha256.Sum256([]byte(id))
	path := filepath.Join(dir, "circuits", hex.EncodeToString(sum[:16])+".ccs")
	if ccs, err := readCircuit(path, id, stamp, curve); err == nil {
		return ccs, true, nil
	} else if !errors.Is(err, errStale) && !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	}
	if ccs, err = compile(); err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, false, fmt.Errorf("setup: circuit cache: %w", err)
	}
	var body bytes.Buffer
	if _, err := ccs.WriteTo(&body); err != nil {
		return nil, false, fmt.Errorf("setup: circuit cache: %w", err)
	}
	digest := sha256.Sum256(body.Bytes())
	if _, err := writeFileAtomic(path, func(w io.Writer) (int64, error) {
		n, err := fmt.Fprintf(w, "%s\n%s\n%s\n%s\n%x\n", circuitFormat, stamp, curve, strings.ReplaceAll(id, "\n", " "), digest)
		if err != nil {
			return int64(n), err
		}
		m, err := w.Write(body.Bytes())
		return int64(n + m), err
	}); err != nil {
		return nil, false, fmt.Errorf("setup: circuit cache: %w", err)
	}
	return ccs, false, nil
}

// CachedCircuit returns the circuit that [CompileCached] keeps in dir
// under the name id, written by this executable, without compiling or
// writing anything: an error when there is none (a reader of another
// party's cache compiles into its own).
func CachedCircuit(dir, id string, curve ecc.ID) (constraint.ConstraintSystem, error) {
	stamp, err := buildStamp()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(id))
	return readCircuit(filepath.Join(dir, "circuits", hex.EncodeToString(sum[:16])+".ccs"), id, stamp, curve)
}

// errStale marks a cached circuit of another executable, format, name or
// curve, or a damaged one: it is compiled again.
var errStale = errors.New("stale")

// readCircuit reads a cached circuit written by the executable stamp.
func readCircuit(path, id, stamp string, curve ecc.ID) (constraint.ConstraintSystem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(data))
	want := []string{circuitFormat, stamp, curve.String(), strings.ReplaceAll(id, "\n", " ")}
	for _, w := range want {
		line, err := r.ReadString('\n')
		if err != nil || strings.TrimSuffix(line, "\n") != w {
			return nil, errStale
		}
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, errStale
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, errStale
	}
	digest := sha256.Sum256(body)
	if strings.TrimSuffix(line, "\n") != hex.EncodeToString(digest[:]) {
		return nil, errStale
	}
	ccs := groth16.NewCS(curve)
	if ccs == nil {
		return nil, fmt.Errorf("setup: circuit cache: no constraint system for curve %s", curve)
	}
	if _, err := ccs.ReadFrom(bytes.NewReader(body)); err != nil {
		return nil, errStale
	}
	return ccs, nil
}
