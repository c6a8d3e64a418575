package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"text/tabwriter"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/split"
)

func generate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	var (
		serverFlag    = fs.String("server", "http://127.0.0.1:8470", "server URL")
		modelFlag     = fs.String("model", model.LlamaTiny, "built-in model (llama-tiny, tiny, gpt2-small-random) or directory with the same model as the server's")
		tokenFlag     = fs.String("token", "", "bearer token (default $"+tokenEnv+")")
		promptFlag    = fs.String("prompt", "Hello", "prompt text")
		numTokensFlag = fs.Int("num-tokens", 5, "number of tokens to generate")
		layersFlag    = fs.Int("encrypted-layers", 1, "leading layers whose projections the server computes on ciphertexts")
		logsFlag      = fs.Bool("logs", false, "log every round trip to stderr")
		statsFlag     = fs.Bool("stats", false, "print per-phase timings and traffic")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	tok, err := token(*tokenFlag)
	if err != nil {
		return err
	}
	if *numTokensFlag < 1 {
		return fmt.Errorf("--num-tokens must be at least 1")
	}
	m, err := load(*modelFlag)
	if err != nil {
		return err
	}
	tk := m.Tokenizer
	prompt, err := tk.EncodePrompt(*promptFlag)
	if err != nil {
		return fmt.Errorf("prompt: %w", err)
	}
	if len(prompt) == 0 {
		return fmt.Errorf("empty prompt")
	}
	cfg := split.ClientConfig{URL: *serverFlag, Token: tok, Model: m, EncryptedLayers: *layersFlag}
	if *logsFlag {
		cfg.Logf = log.New(os.Stderr, "split: ", log.Lmicroseconds).Printf
	}
	start := time.Now()
	c, err := split.Dial(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	setup := time.Since(start)
	fmt.Print(*promptFlag)
	var ids []int
	printed := ""
	var firstToken time.Time
	gen := time.Now()
	steps, err := c.Generate(ctx, prompt, *numTokensFlag, func(s split.Step) {
		if firstToken.IsZero() {
			firstToken = time.Now()
		}
		ids = append(ids, s.Token)
		if text, err := tk.Decode(ids); err == nil && len(text) >= len(printed) {
			fmt.Print(text[len(printed):])
			printed = text
		}
	})
	fmt.Println()
	if err != nil {
		return err
	}
	total := time.Since(gen)
	if *statsFlag {
		printStats(c.Stats, setup, total, firstToken.Sub(gen), len(prompt), len(steps), *layersFlag)
	}
	return nil
}

func printStats(s split.Stats, setup, total, first time.Duration, promptLen, n, layers int) {
	w := tabwriter.NewWriter(os.Stderr, 0, 0, 2, ' ', tabwriter.AlignRight)
	phases := []struct {
		name string
		d    time.Duration
	}{
		{"encrypt", s.Encrypt},
		{"transfer", s.Transfer},
		{"server compute", s.ServerCompute},
		{"decrypt", s.Decrypt},
		{"check (Freivalds)", s.Check},
		{"client compute", s.ClientCompute},
	}
	var sum time.Duration
	for _, p := range phases {
		sum += p.d
	}
	fmt.Fprintf(w, "phase\ttime\tshare\t\n")
	for _, p := range phases {
		fmt.Fprintf(w, "%s\t%s\t%.1f%%\t\n", p.name, short(p.d), 100*float64(p.d)/float64(max(sum, 1)))
	}
	fmt.Fprintf(w, "generation\t%s\t\t\n", total.Round(time.Millisecond))
	fmt.Fprintf(w, "session set-up (keys %s)\t%s\t\t\n", s.KeyGen.Round(time.Millisecond), setup.Round(time.Millisecond))
	w.Flush()
	fmt.Fprintf(os.Stderr, "prompt %d tokens, %d generated, %d encrypted layers, %d round trips; first token after %s, then %s per token\n",
		promptLen, n, layers, s.Requests, first.Round(time.Millisecond), ((total - first) / time.Duration(max(1, n-1))).Round(time.Millisecond))
	fmt.Fprintf(os.Stderr, "sent %s (keys %s), received %s; largest CKKS error before rounding %.2g\n",
		size(s.BytesSent), size(s.KeyBytes), size(s.BytesReceived), s.MaxError)
}

// short rounds d to milliseconds, or to microseconds below 10 ms.
func short(d time.Duration) string {
	if d < 10*time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func size(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
