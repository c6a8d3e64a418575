package split

import (
	"context"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/veriformer/veriformer/model"
)

const testToken = "test-token"

// serve starts a loopback server for the built-in model.
func serve(t testing.TB, cfg ServerConfig) (*Server, string) {
	t.Helper()
	if cfg.Model == nil {
		cfg.Model = builtin()
	}
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts.URL
}

func TestGenerateAllLayersEncrypted(t *testing.T) {
	m := builtin()
	_, url := serve(t, ServerConfig{})
	ctx := context.Background()
	c, err := Dial(ctx, ClientConfig{URL: url, Token: testToken, Model: m, EncryptedLayers: m.Config.Layers})
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{'H', 'e', 'l', 'l', 'o'}
	steps, err := c.Generate(ctx, prompt, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Generate(prompt, 4)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, s := range steps {
		got = append(got, s.Token)
	}
	if !slices.Equal(got, want.Tokens) {
		t.Fatalf("tokens %v, plaintext %v", got, want.Tokens)
	}
	t.Logf("tokens %v, stats %+v", got, c.Stats)
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

var builtinModel = sync.OnceValue(LlamaModel)

func builtin() *model.Model { return builtinModel() }
