package setup

import (
	"fmt"
	"io"
)

// Option configures [LoadOrSetup], [LoadOrSetupVK], [Load], [LoadVK]
// and [Cached].
type Option func(*config) error

type config struct {
	log     io.Writer
	require Kind
	fetched bool
}

func newConfig(opts []Option) (*config, error) {
	cfg := new(config)
	for _, opt := range opts {
		if err := opt(cfg); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

func (c *config) logf(format string, args ...any) {
	if c.log != nil {
		fmt.Fprintf(c.log, format+"\n", args...)
	}
}

// WithLog sends the lines saying which keys were used, and the warning
// before a development setup, to w (the run's log). Without it nothing is
// printed; the kind of the keys is in their manifest either way.
func WithLog(w io.Writer) Option {
	return func(c *config) error {
		c.log = w
		return nil
	}
}

// WithKind accepts only keys of kind k: with [Ceremony], cached development
// keys are refused and no development setup is run.
func WithKind(k Kind) Option {
	return func(c *config) error {
		if k != Development && k != Ceremony {
			return fmt.Errorf("setup: kind %q: want %q or %q", k, Development, Ceremony)
		}
		c.require = k
		return nil
	}
}

// FromFetched lets [Load], [LoadVK] and [Cached] read a directory of
// fetched keys ([MarkFetched]), which they refuse otherwise; keys are
// never set up there.
func FromFetched() Option {
	return func(c *config) error {
		c.fetched = true
		return nil
	}
}
