package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/veriformer/veriformer/pipeline"
)

// runVerify is prove verify: a run's saved proof checked offline against
// the list it states.
func runVerify(args []string) error {
	fs := flag.NewFlagSet("prove verify", flag.ContinueOnError)
	vk := fs.String("vk", "", "the verifying key to check the proof with (a final proof's, as cmd/export writes it, or an aggregator's); default: the one in DIR, which only shows that the files agree")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: prove verify [--vk FILE] DIR

Checks, offline, the proof a run wrote to DIR (prove --out DIR) against the
list it states (list.json): a final proof (proof.bin) against the list's
statement digest, or an aggregated run's aggregator proof (aggregate.bin)
after recomputing the list's model id from the aggregator's key and its
deployment (deployment.json).

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("want one directory")
	}
	v, err := pipeline.VerifyArtifacts(fs.Arg(0), *vk)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(v.KeyFile)
	if err != nil {
		return err
	}
	what := "the aggregator's proof"
	if v.Final {
		what = "the final proof"
	}
	counts := map[string]int{}
	for _, leaf := range v.List.Leaves {
		counts[leaf.Kind.String()]++
	}
	digest, err := v.List.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("verified: %s of a list of %s (%s, %s) under model id %#x\n", what, pipeline.Count(len(v.List.Leaves), "leaf"), pipeline.Count(counts["request"], "request"), pipeline.Count(counts["turn"], "turn"), v.List.ModelID)
	fmt.Printf("statement digest %#x\n", digest)
	fmt.Printf("verifying key %s (sha256 %x)\n", v.KeyFile, sha256.Sum256(key))
	if *vk == "" {
		fmt.Println("the key is the directory's own: compare its digest with a key you trust, or pass --vk")
	}
	return nil
}
