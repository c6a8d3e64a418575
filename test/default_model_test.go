//go:build full

package test

import (
	"testing"

	"github.com/veriformer/veriformer/model"
)

// TestRunDirectDefault is TestRunDirect on the built-in default model,
// whose direct circuit (about 1.5M R1CS) takes four to nine minutes to
// set up on 2 cores the first time.
func TestRunDirectDefault(t *testing.T) {
	runDirect(t, model.Default())
}

// TestRunAggregatedDefault is TestRunAggregated on the built-in default
// model: two one-block segments proven at once (NativeJobs, as the
// commands choose when the memory allows); its segment and aggregator
// setups take about ten minutes on 2 cores the first time.
func TestRunAggregatedDefault(t *testing.T) {
	opts := aggregatedOptions(t, model.Default())
	opts.NativeJobs = 2
	runAggregated(t, opts, 2)
}
