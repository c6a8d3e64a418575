package solidity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCompileReportsErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := Compile(ctx, map[string]string{"Broken.sol": "pragma solidity ^0.8.0; contract Broken { function f( }"})
	if err == nil || !strings.Contains(err.Error(), "ParserError") {
		t.Fatalf("Compile of a broken source: %v, want a ParserError", err)
	}
	if _, err := Compile(ctx, nil); err == nil {
		t.Fatal("Compile without sources succeeded")
	}
}

// TestSolcVersion keeps SolcVersion, scripts/setup-solc.sh and the
// installed compiler in step.
func TestSolcVersion(t *testing.T) {
	solcjs, err := SolcjsPath()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(solcjs, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.TrimSpace(string(out)), SolcVersion+"+") {
		t.Fatalf("solcjs is version %s, want %s: run scripts/setup-solc.sh", strings.TrimSpace(string(out)), SolcVersion)
	}
	script, err := os.ReadFile(filepath.Join("..", "scripts", "setup-solc.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "\nversion="+SolcVersion+"\n") {
		t.Fatalf("scripts/setup-solc.sh does not install version %s", SolcVersion)
	}
}

func TestSolcjsMissing(t *testing.T) {
	t.Run("override", func(t *testing.T) {
		t.Setenv(SolcjsEnv, filepath.Join(t.TempDir(), "solcjs"))
		if _, err := SolcjsPath(); err == nil || !strings.Contains(err.Error(), SolcjsEnv) {
			t.Fatalf("SolcjsPath: %v, want an error naming %s", err, SolcjsEnv)
		}
	})
	t.Run("module without install", func(t *testing.T) {
		t.Setenv(SolcjsEnv, "")
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		if _, err := SolcjsPath(); err == nil || !strings.Contains(err.Error(), "run scripts/setup-solc.sh") {
			t.Fatalf("SolcjsPath: %v, want an error saying to run scripts/setup-solc.sh", err)
		}
	})
}

// dataError is an RPC error with data, as go-ethereum's client returns.
type dataError struct{ data any }

func (e dataError) Error() string  { return "rpc error" }
func (e dataError) ErrorData() any { return e.data }

func TestIsIndexing(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{dataError{txIndexing}, true},
		{fmt.Errorf("wrapped: %w", dataError{txIndexing}), true},
		{dataError{"0x08c379a0"}, false},
		{dataError{42}, false},
		{errors.New(txIndexing), false},
	} {
		if got := isIndexing(tc.err); got != tc.want {
			t.Fatalf("isIndexing(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
