// Command split runs private split inference: `split serve` holds a
// model and computes its projections on CKKS-encrypted activations;
// `split generate` keeps the secret key, runs everything else in
// plaintext, checks each product the server returns and streams the
// generated tokens. See docs/split.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
)

// tokenEnv holds the bearer token when --token is not given.
const tokenEnv = "VERIFORMER_SPLIT_TOKEN"

const usage = `Usage: split <command> [flags]

Commands:
  serve     serve encrypted projections of a model over HTTP
  generate  generate text with the server computing on encrypted activations

Run "split <command> -h" for the flags of a command. The bearer token comes
from --token or $` + tokenEnv + `.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(ctx, os.Args[2:])
	case "generate":
		err = generate(ctx, os.Args[2:])
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "split: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "split:", strings.TrimPrefix(err.Error(), "split: "))
		os.Exit(1)
	}
}

// load returns the model a --model flag names: llama-tiny by default, or
// another built-in model, or a model and tokenizer read from a directory.
func load(arg string) (*model.Model, error) {
	src, err := model.ParseSource(arg, model.LlamaTiny)
	if err != nil {
		return nil, err
	}
	return src.LoadText(tokenizer.BOSAuto)
}

func token(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if t := os.Getenv(tokenEnv); t != "" {
		return t, nil
	}
	return "", fmt.Errorf("no bearer token: set $%s or pass --token", tokenEnv)
}
