// Package flags holds the command-line flags that prove, export and
// ceremony share: which model, which deployment (the design, its cut
// into segments, the buckets, the kind of pass: parsed once into a
// Spec), where the keys are and which kind they must be. One definition
// each, so that the commands name and check them alike.
package flags

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/setup"
)

// Model names a model and its tokenizer's beginning-of-sequence rule.
type Model struct {
	Name, BOS *string
}

// AddModel defines --model and --bos on fs.
func AddModel(fs *flag.FlagSet) *Model {
	return &Model{
		Name: fs.String("model", model.Tiny, "built-in model ("+strings.Join(model.BuiltinNames(), ", ")+") or directory with config.json, model.safetensors and a tokenizer"),
		BOS:  fs.String("bos", "auto", "beginning-of-sequence token before the prompt: auto (as tokenizer_config.json or tokenizer.json say; none for GPT-2), on, off; part of the model id"),
	}
}

// Source parses --model.
func (m *Model) Source() (model.Source, error) {
	return model.ParseSource(*m.Name, model.Tiny)
}

// BOSMode parses --bos.
func (m *Model) BOSMode() (tokenizer.BOSMode, error) {
	bos, err := tokenizer.ParseBOSMode(*m.BOS)
	if err != nil {
		return 0, fmt.Errorf("--bos: %w", err)
	}
	return bos, nil
}

// Load loads the model with its tokenizer when it has one (a directory
// may hold the weights alone).
func (m *Model) Load() (*model.Model, error) {
	bos, err := m.BOSMode()
	if err != nil {
		return nil, err
	}
	src, err := m.Source()
	if err != nil {
		return nil, err
	}
	return src.Load(bos)
}

// Deployment names the deployment a command's circuits are those of,
// as --design, the cut (--segment-size, --vocab-chunk, --srs),
// --buckets, and the kind of pass (--capacity, --batch-slots, --mix): every
// command that names circuits (prove, --plan, export, ceremony) parses
// it once ([Deployment.Parse]) into a [Spec] and applies that to its
// run's options.
type Deployment struct {
	// Name is --design (nil when the command names the design by other
	// means: ceremony's --circuit).
	Name                    *string
	SegmentSize, VocabChunk *int
	SRS                     *string
	// Buckets is --buckets (nil without --design).
	Buckets  *string
	Capacity *int
	Slots    *int
	Mix      *string
}

// AddDeployment defines the deployment's flags on fs: with design,
// --design (and its older name --shape) and --buckets too.
func AddDeployment(fs *flag.FlagSet, design bool) *Deployment {
	d := &Deployment{
		SegmentSize: fs.Int("segment-size", 1, "aggregated design: blocks per segment"),
		VocabChunk:  fs.Int("vocab-chunk", 0, "aggregated design: prove the LM head in segments of its own of this many vocabulary columns (0: in the last segment)"),
		SRS:         fs.String("srs", "", "aggregated design: BLS12-377 phase-1 ceremony output to take the KZG SRS from (default: a development SRS cached beside the keys)"),
		Capacity:    fs.Int("capacity", 0, "aggregated design: the circuits of a conversation's turns over a cache of this many rows (at most the model's context); prove: the first turn of a conversation, with --out the artifacts the next turn reads (--continue)"),
		Slots:       fs.Int("batch-slots", 0, "aggregated design: the circuits of a batch's pass with this many request slots, part of their keys and of the model id (prove --batch: 0 for 32)"),
		Mix:         fs.String("mix", "", "aggregated design, with --capacity: the deployment's mixed lists, R,T: R requests then T turns per list, each a pass of its own, under the lone turns' model id (prove --list)"),
	}
	if design {
		d.Name = new(string)
		const usage = "design: direct (one BN254 circuit over opened tensors; small models) or aggregated (committed tensors: BLS12-377 segments, BW6-761 aggregator, BN254 wrapper)"
		fs.StringVar(d.Name, "design", string(pipeline.Direct), usage)
		fs.StringVar(d.Name, "shape", string(pipeline.Direct), "the older name of --design")
		d.Buckets = fs.String("buckets", "", "aggregated design: the row buckets the model is deployed with, comma-separated (16,64): the final model id covers each one's keys, so that a proof in any of them states the same id; their keys are set up or loaded with the run's (default: the run's bucket alone)")
	}
	return d
}

// Spec is a parsed deployment: the design and what the aggregated
// design's circuits depend on besides the model and the bucket.
type Spec struct {
	Design                  pipeline.Design
	SegmentSize, VocabChunk int
	SRS                     string
	Buckets                 []int
	// Capacity, when positive, makes the circuits a conversation's
	// turns'; Slots, when positive, a batch's.
	Capacity, Slots int
	// Mix, with Capacity, adds the mixed lists' aggregator.
	Mix *pipeline.Mix
}

// Parse checks the flags and returns the deployment, of the design of
// --design.
func (d *Deployment) Parse() (Spec, error) {
	design := pipeline.Direct
	if d.Name != nil {
		var err error
		if design, err = pipeline.ParseDesign(*d.Name); err != nil {
			return Spec{}, fmt.Errorf("--design: %w", err)
		}
	}
	return d.ParseFor(design)
}

// ParseFor checks the flags and returns the deployment of the given
// design (the one ceremony's --circuit names).
func (d *Deployment) ParseFor(design pipeline.Design) (Spec, error) {
	s := Spec{Design: design, SegmentSize: *d.SegmentSize, VocabChunk: *d.VocabChunk, SRS: *d.SRS, Capacity: *d.Capacity, Slots: *d.Slots}
	switch {
	case s.SegmentSize < 1:
		return Spec{}, errors.New("--segment-size must be at least 1")
	case s.VocabChunk < 0:
		return Spec{}, errors.New("--vocab-chunk must be at least 0")
	case s.Capacity < 0:
		return Spec{}, errors.New("--capacity must be positive")
	case s.Slots < 0:
		return Spec{}, errors.New("--batch-slots must be at least 0")
	case s.Capacity > 0 && s.Slots > 0:
		return Spec{}, errors.New("a pass is a turn (--capacity) or a batch (--batch-slots), not both")
	}
	if *d.Mix != "" {
		var mix pipeline.Mix
		r, t, ok := strings.Cut(*d.Mix, ",")
		var err1, err2 error
		mix.Requests, err1 = strconv.Atoi(strings.TrimSpace(r))
		mix.Turns, err2 = strconv.Atoi(strings.TrimSpace(t))
		switch {
		case !ok || err1 != nil || err2 != nil || mix.Requests < 0 || mix.Turns < 1 || mix.Requests+mix.Turns < 2:
			return Spec{}, fmt.Errorf("--mix %q: want the requests and the turns of a list, such as 2,1 (at least one turn, two leaves)", *d.Mix)
		case s.Capacity == 0:
			return Spec{}, errors.New("--mix needs the turns' cache: add --capacity")
		}
		s.Mix = &mix
	}
	if d.Buckets != nil && *d.Buckets != "" {
		for _, f := range strings.Split(*d.Buckets, ",") {
			b, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || b < 1 {
				return Spec{}, fmt.Errorf("--buckets %q: want row counts separated by commas, such as 16,64", *d.Buckets)
			}
			s.Buckets = append(s.Buckets, b)
		}
	}
	if design == pipeline.Direct && (s.SRS != "" || s.VocabChunk != 0 || s.Buckets != nil || s.Capacity > 0 || s.Slots > 0 || s.Mix != nil) {
		return Spec{}, errors.New("--srs, --vocab-chunk, --buckets, --capacity, --batch-slots and --mix name circuits of the aggregated design: add --design aggregated")
	}
	return s, nil
}

// Apply sets the deployment's fields of opts.
func (s Spec) Apply(opts *pipeline.AggregatedOptions) {
	opts.SegmentSize, opts.VocabChunk, opts.SRS = s.SegmentSize, s.VocabChunk, s.SRS
	opts.Buckets, opts.Capacity, opts.Slots, opts.Mix = s.Buckets, s.Capacity, s.Slots, s.Mix
}

// Keys says where the keys are and which kind a command accepts.
type Keys struct {
	Cache    *string
	Ceremony *bool
}

// AddKeys defines --cache and --ceremony-keys on fs.
func AddKeys(fs *flag.FlagSet) *Keys {
	return &Keys{
		Cache:    fs.String("cache", "", "key cache directory (default $VERIFORMER_CACHE or .cache/keys in the module)"),
		Ceremony: fs.Bool("ceremony-keys", false, "accept only keys sealed by a ceremony (ceremony seal): refuse development keys and never run a development setup"),
	}
}

// Kind is the kind of keys accepted: setup.Ceremony with
// --ceremony-keys, "" (any) otherwise.
func (k *Keys) Kind() setup.Kind {
	if *k.Ceremony {
		return setup.Ceremony
	}
	return ""
}

// AddBucket defines --bucket on fs: the row bucket of the circuits.
func AddBucket(fs *flag.FlagSet) *int {
	return fs.Int("bucket", 0, "the rows of the circuits' pass, a power of two or the model's context; one set of circuits and keys serves every request whose prompt and generated tokens fit (0: the smallest bucket that holds them)")
}

// CheckBucket checks --bucket.
func CheckBucket(bucket int) error {
	if bucket < 0 {
		return errors.New("--bucket must be at least 0")
	}
	return nil
}

// Lengths are the numbers of prompt and generated tokens a circuit takes,
// and the bucket of the circuits.
type Lengths struct {
	PromptTokens, Tokens, Bucket *int
}

// AddLengths defines --prompt-tokens, --tokens and --bucket on fs.
func AddLengths(fs *flag.FlagSet) *Lengths {
	return &Lengths{
		PromptTokens: fs.Int("prompt-tokens", 5, "number of prompt tokens the circuits take: with --tokens, picks the smallest bucket that holds them unless --bucket is given"),
		Tokens:       fs.Int("tokens", 3, "number of generated tokens the circuits take"),
		Bucket:       AddBucket(fs),
	}
}

// Check checks that both lengths are at least 1, and the bucket.
func (l *Lengths) Check() error {
	if *l.PromptTokens < 1 || *l.Tokens < 1 {
		return errors.New("--prompt-tokens and --tokens must be at least 1")
	}
	return CheckBucket(*l.Bucket)
}
