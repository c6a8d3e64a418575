package pipeline

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/solidity"
)

// TestChainNeedsSolcjs: a run that ends on the simulated chain refuses to
// start, before any stage, when solcjs cannot be found.
func TestChainNeedsSolcjs(t *testing.T) {
	t.Setenv(solidity.SolcjsEnv, filepath.Join(t.TempDir(), "missing"))
	var log bytes.Buffer
	base := Options{Prompt: []int{'H', 'i'}, Tokens: 1, Chain: true, CacheDir: t.TempDir(), Log: &log}
	for name, run := range map[string]func() (*Report, error){
		"direct": func() (*Report, error) { return RunDirect(context.Background(), base) },
		"aggregated": func() (*Report, error) {
			return RunAggregated(context.Background(), AggregatedOptions{Options: base, Wrap: true})
		},
	} {
		log.Reset()
		rep, err := run()
		if err == nil || !strings.Contains(err.Error(), "solcjs") {
			t.Errorf("%s: got %v, want an error naming solcjs", name, err)
		}
		if rep != nil || log.Len() != 0 {
			t.Errorf("%s: a stage ran before the check: %q", name, log.String())
		}
	}
}
