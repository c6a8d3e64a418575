package pipeline

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/consensys/gnark/constraint"

	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/setup"
)

// PlanItem is one circuit a run needs keys for: what [Plan] reports
// without setting up or proving anything.
type PlanItem struct {
	// Kind is "direct", "segment", "aggregator" or "wrapper"; Name says
	// which one ("segment 2/13 (blocks 1–1)").
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Bucket is the circuit's row bucket (0 for the wrapper, which
	// serves every bucket).
	Bucket int `json:"bucket"`
	// Curve is gnark's name of the circuit's curve ("bn254", "bls12_377",
	// "bw6_761").
	Curve string `json:"curve"`
	// Constraints is the compiled circuit's R1CS count; Circuit its hash,
	// which names its keys in the cache.
	Constraints int    `json:"constraints"`
	Circuit     string `json:"circuit"`
	// Cached tells whether the cache holds its keys, and KeyKind of which
	// kind ("development", "ceremony"; "" when not cached).
	Cached  bool   `json:"cached"`
	KeyKind string `json:"key_kind"`
	// SetupEstimateS and ProveEstimateS are the expected wall times, in
	// seconds, of its development setup and of one proof on a quiet
	// 2-core machine ([Rates]); setup is 0 when the keys are cached.
	SetupEstimateS float64 `json:"setup_estimate_s"`
	ProveEstimateS float64 `json:"prove_estimate_s"`
}

// Rate is the cost per R1CS constraint of a development setup and of a
// Groth16 proof on one curve, in seconds.
type Rate struct{ Setup, Prove float64 }

// Rates are the measured costs per constraint on a quiet 2-core machine
// (gnark v0.16.3; docs/measurements.md). Setup is package setup's
// development setup, writing the keys included: BN254 from the micro
// model's direct circuit (52 s at 551,290 constraints) and the wrapper
// (12 min 5 s at 7.9M), BLS12-377 from the micro model's segment (35 s
// at 512,210), BW6-761 from its aggregator (44 s at 277,376). Proofs:
// BN254 from the direct circuit (18 s at 1,264,785 constraints) and the
// wrapper (1 min 34 s – 2 min at 7.9M); BLS12-377 from GPT-2 small's
// segments (20–26 µs per constraint after the key read); BW6-761 from
// GPT-2 small's aggregator (1 min 44 s at 1,768,665, key read
// included). Times are close to linear in the constraint count at these
// sizes; expect ±30% on a quiet machine, and up to twice as long on one
// busy with other work (measured: 1.8–2.1×).
var Rates = map[string]Rate{
	"bn254":     {Setup: 95e-6, Prove: 13e-6},
	"bls12_377": {Setup: 70e-6, Prove: 25e-6},
	"bw6_761":   {Setup: 160e-6, Prove: 60e-6},
}

// Plan compiles (or reads from the circuit cache) every circuit of the
// catalog of design d — with the aggregated design and opts.Wrap the
// BN254 wrapper too (minutes and several GB: its 7.9M constraints) — for a
// prompt of promptLen tokens and opts.Tokens generated ones, and reports
// them. It runs no inference, setup or proof. With no SRS yet (neither
// opts.SRS nor a development one in the cache), the aggregator is
// compiled on a stand-in key of the same size and reported as not
// cached. With the aggregated design and opts.Buckets, it lists the
// circuits of every bucket of the deployment, each bucket's segments and
// aggregator, then the one wrapper; with opts.Mix, the lone turns' and
// the mixed lists' circuits of each.
func Plan(d Design, opts AggregatedOptions, promptLen int) ([]PlanItem, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts.Options, report: &Report{}}
	if d != Aggregated || (len(opts.Buckets) == 0 && opts.Mix == nil) {
		return r.plan(d, &opts, promptLen, opts.Tokens)
	}
	buckets := slices.Clone(opts.Buckets)
	slices.Sort(buckets)
	if len(buckets) == 0 {
		rows, err := opts.rows(promptLen, opts.Tokens)
		if err != nil {
			return nil, err
		}
		buckets = []int{rows}
	}
	// A mixed deployment's lone turns and mixed lists: the circuits they
	// share listed once.
	kinds := []bool{opts.MixedList}
	if opts.Mix != nil {
		kinds = []bool{false, true}
	}
	var items []PlanItem
	listed := map[string]bool{}
	for i, b := range buckets {
		for j, mixed := range kinds {
			sub := opts
			sub.Bucket, sub.Buckets, sub.MixedList = b, nil, mixed
			sub.Wrap = opts.Wrap && i == len(buckets)-1 && j == len(kinds)-1
			more, err := r.plan(d, &sub, 1, 1)
			if err != nil {
				return nil, err
			}
			for _, item := range more {
				if !listed[item.Circuit] {
					listed[item.Circuit] = true
					items = append(items, item)
				}
			}
		}
	}
	return items, nil
}

// plan is Plan of one catalog.
func (r *runner) plan(d Design, opts *AggregatedOptions, promptLen, outputLen int) ([]PlanItem, error) {
	cat, err := r.catalog(d, opts, promptLen, outputLen, func(size int) (*pcs.SRS, error) {
		return r.cachedSRS(opts, size)
	})
	if err != nil {
		return nil, err
	}
	cat.standIn = true
	var items []PlanItem
	for _, c := range cat.Circuits {
		r.logf("compiling the %s …", c.Name)
		ccs, err := c.Compile()
		if err != nil {
			return nil, err
		}
		item, err := planItem(c.Kind, c.Name, ccs, opts.CacheDir)
		if err != nil {
			return nil, err
		}
		if c.Kind != "wrapper" {
			item.Bucket = cat.Rows
		}
		if c.Kind == "aggregator" && cat.usedStandIn {
			item.Cached, item.KeyKind = false, ""
			item.SetupEstimateS = Rates[item.Curve].Setup * float64(item.Constraints)
		}
		items = append(items, item)
	}
	return items, nil
}

// planItem describes a compiled circuit and its keys in the cache.
func planItem(kind, name string, ccs constraint.ConstraintSystem, cacheDir string) (PlanItem, error) {
	hash, err := setup.CircuitHash(ccs)
	if err != nil {
		return PlanItem{}, err
	}
	curve := setup.ShapeOf(ccs).Curve.String()
	rate, ok := Rates[curve]
	if !ok {
		return PlanItem{}, fmt.Errorf("pipeline: no measured rates for curve %s", curve)
	}
	n := ccs.GetNbConstraints()
	item := PlanItem{Kind: kind, Name: name, Curve: curve, Constraints: n, Circuit: hash,
		SetupEstimateS: rate.Setup * float64(n), ProveEstimateS: rate.Prove * float64(n)}
	manifest, err := setup.Cached(ccs, cacheDir)
	if err != nil {
		return PlanItem{}, err
	}
	if manifest != nil {
		item.Cached, item.KeyKind, item.SetupEstimateS = true, string(manifest.Kind), 0
	}
	return item, nil
}

// WritePlan prints a plan as a table with its totals and the
// estimates' accuracy.
func WritePlan(w io.Writer, items []PlanItem) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tcircuit\tbucket\tcurve\tR1CS\tkeys\tsetup (est.)\tproof (est.)\t")
	var constraints int
	var setupS, proveS float64
	for _, it := range items {
		keys := "to set up"
		if it.Cached {
			keys = "cached (" + it.KeyKind + ")"
		}
		bucket := "all"
		if it.Bucket > 0 {
			bucket = fmt.Sprint(it.Bucket)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", it.Kind, it.Name, bucket, it.Curve, it.Constraints, keys, seconds(it.SetupEstimateS), seconds(it.ProveEstimateS))
		constraints += it.Constraints
		setupS += it.SetupEstimateS
		proveS += it.ProveEstimateS
	}
	fmt.Fprintf(tw, "total\t%d circuits\t\t\t%d\t\t%s\t%s\t\n", len(items), constraints, seconds(setupS), seconds(proveS))
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "Estimates: rates per constraint measured on a quiet 2-core machine (docs/measurements.md), ±30%; up to twice as long on a busy one.")
	return err
}

// WritePlanJSON prints a plan as a JSON array of its items (an empty
// array for none).
func WritePlanJSON(w io.Writer, items []PlanItem) error {
	if items == nil {
		items = []PlanItem{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(items)
}

// seconds formats an estimate in seconds as a duration.
func seconds(s float64) string {
	if s == 0 {
		return "—"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
