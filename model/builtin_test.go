package model

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model/tokenizer"
)

// The built-in models are what their names say, and the same on every
// call; an unknown name is refused with the list of names.
func TestBuiltin(t *testing.T) {
	for _, name := range []string{Tiny, LlamaTiny} {
		a, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		g1, err := a.Generate([]int{'H', 'i'}, 3)
		if err != nil {
			t.Fatal(err)
		}
		g2, err := b.Generate([]int{'H', 'i'}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(g1.Tokens) != 3 || !slices.Equal(g1.Tokens, g2.Tokens) {
			t.Fatalf("%s: generations %v and %v", name, g1.Tokens, g2.Tokens)
		}
	}
	if c, _ := BuiltinConfig(LlamaTiny); c.Family != Llama || c.KVHeads != 2 {
		t.Fatalf("llama-tiny: %+v", c)
	}
	c, err := BuiltinConfig(GPT2SmallRandom)
	if err != nil {
		t.Fatal(err)
	}
	if c.Family != GPT2 || c.Layers != 12 || c.Hidden != 768 || c.Heads != 12 || c.Vocab != 50257 || c.MaxPositions != 1024 {
		t.Fatalf("gpt2-small-random: %+v", c)
	}
	if _, err := Builtin("gpt3"); err == nil || !strings.Contains(err.Error(), GPT2SmallRandom) {
		t.Fatalf("unknown name: %v", err)
	}
	if !IsBuiltin(Tiny) || IsBuiltin("./tiny") {
		t.Fatal("IsBuiltin")
	}
}

// A --model value is a built-in name or a directory; a name that is both
// is refused.
func TestParseSource(t *testing.T) {
	src, err := ParseSource("", Tiny)
	if err != nil || src.Builtin != Tiny {
		t.Fatalf("default: %+v, %v", src, err)
	}
	if src, err = ParseSource(LlamaTiny, Tiny); err != nil || src.Builtin != LlamaTiny {
		t.Fatalf("llama-tiny: %+v, %v", src, err)
	}
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("some/dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if src, err = ParseSource("some/dir/", Tiny); err != nil || src.Dir != "some/dir" || src.Builtin != "" {
		t.Fatalf("directory: %+v, %v", src, err)
	}
	// A name that is neither lists the built-in ones.
	if _, err := ParseSource("nosuchmodel", Tiny); err == nil || !strings.Contains(err.Error(), Micro) || !strings.Contains(err.Error(), Tiny) {
		t.Fatalf("unknown name: %v", err)
	}
	if err := os.Mkdir(GPT2SmallRandom, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSource(GPT2SmallRandom, Tiny); err == nil || !strings.Contains(err.Error(), "./"+GPT2SmallRandom) {
		t.Fatalf("ambiguous name: %v", err)
	}
	if src, err = ParseSource("./"+GPT2SmallRandom, Tiny); err != nil || src.Dir != GPT2SmallRandom {
		t.Fatalf("./name: %+v, %v", src, err)
	}
	if _, err := src.Config(); err == nil {
		t.Fatal("a directory without config.json gave a config")
	}
	c, err := Source{Builtin: GPT2SmallRandom}.Config()
	if err != nil || c.Vocab != 50257 {
		t.Fatalf("config: %+v, %v", c, err)
	}
	if _, err := (Source{Builtin: Tiny}).Codec(tokenizer.BOSOn); err == nil {
		t.Fatal("--bos on accepted for a byte tokenizer")
	}
}
