package split

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/schemes/ckks"

	"github.com/veriformer/veriformer/model"
)

const testToken = "test-token"

// llamaConfig is the built-in Llama-family model the tests serve,
// model.LlamaTiny: 3 layers, d = 64, 4 query heads sharing 2 key/value
// heads, MLP width 128, context 64, a byte-level vocabulary of 256 (a
// token is a byte of the prompt).
func llamaConfig() *model.Config {
	c, err := model.BuiltinConfig(model.LlamaTiny)
	if err != nil {
		panic(fmt.Sprintf("split: built-in config: %v", err))
	}
	return c
}

// builtinModel is the model of llamaConfig with the weights of
// model.LlamaTinySeed, the same on every machine.
var builtinModel = sync.OnceValue(func() *model.Model {
	m, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		panic(fmt.Sprintf("split: built-in model: %v", err))
	}
	return m
})

func builtin() *model.Model { return builtinModel() }

// serve starts a loopback server (the built-in model by default).
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

func dial(t testing.TB, url string, layers int) *Client {
	t.Helper()
	c, err := Dial(context.Background(), ClientConfig{URL: url, Token: testToken, Model: builtin(), EncryptedLayers: layers})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tokensOf(steps []Step) []int {
	out := make([]int, len(steps))
	for i, s := range steps {
		out[i] = s.Token
	}
	return out
}

// plaintextLogits returns the last-row logits of each pass of the integer
// pass of package model on the same greedy run.
func plaintextLogits(t testing.TB, m *model.Model, prompt []int, n int) ([]int, [][]int64) {
	t.Helper()
	g, err := m.Generate(prompt, n)
	if err != nil {
		t.Fatal(err)
	}
	var logits [][]int64
	for _, tr := range g.Traces {
		rows := len(tr.Tokens)
		logits = append(logits, tr.LMHead.Out.Data[(rows-1)*m.Config.Vocab:])
	}
	return g.Tokens, logits
}

// TestAccuracy compares the encrypted run with the plaintext integer pass
// for 1, 2 and all layers encrypted: the greedy tokens, the logits and the
// largest CKKS error before rounding.
func TestAccuracy(t *testing.T) {
	m := builtin()
	_, url := serve(t, ServerConfig{})
	prompt := []byte("Hello")
	const n = 4
	wantTokens, wantLogits := plaintextLogits(t, m, toTokens(prompt), n)
	for _, layers := range []int{1, 2, m.Config.Layers} {
		t.Run(fmt.Sprintf("encrypted=%d", layers), func(t *testing.T) {
			c := dial(t, url, layers)
			defer c.Close(context.Background())
			steps, err := c.Generate(context.Background(), toTokens(prompt), n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := tokensOf(steps); !slices.Equal(got, wantTokens) {
				t.Fatalf("tokens %v, plaintext %v", got, wantTokens)
			}
			var maxDiff int64
			for i, s := range steps {
				for j, v := range s.Logits {
					maxDiff = max(maxDiff, v-wantLogits[i][j], wantLogits[i][j]-v)
				}
			}
			if maxDiff != 0 {
				t.Fatalf("logits differ from the plaintext pass by up to %d", maxDiff)
			}
			if c.Stats.MaxError >= 0.25 {
				t.Fatalf("CKKS error %g too close to ½", c.Stats.MaxError)
			}
			t.Logf("encrypted layers %d: tokens %v identical, logits identical, largest CKKS error before rounding %.3g (accumulator units), %d requests, %d bytes sent (%d of keys), %d received",
				layers, wantTokens, c.Stats.MaxError, c.Stats.Requests, c.Stats.BytesSent, c.Stats.KeyBytes, c.Stats.BytesReceived)
		})
	}
}

// sameAsPlaintext generates n tokens after prompt with c and checks the
// tokens and every step's logits against the plaintext pass of m.
func sameAsPlaintext(t *testing.T, c *Client, m *model.Model, prompt []int, n int) {
	t.Helper()
	wantTokens, wantLogits := plaintextLogits(t, m, prompt, n)
	steps, err := c.Generate(context.Background(), prompt, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tokensOf(steps); !slices.Equal(got, wantTokens) {
		t.Fatalf("tokens %v, plaintext %v", got, wantTokens)
	}
	for i, st := range steps {
		if !slices.Equal(st.Logits, wantLogits[i]) {
			t.Fatalf("step %d: logits differ from the plaintext pass", i)
		}
	}
}

func toTokens(b []byte) []int {
	out := make([]int, len(b))
	for i, c := range b {
		out[i] = int(c)
	}
	return out
}

// TestCheatingServer runs servers that deviate from the protocol; the
// client's checks must refuse each.
func TestCheatingServer(t *testing.T) {
	m := builtin()
	other, err := model.RandomWeights(llamaConfig(), model.LlamaTinySeed+1, model.DefaultEmbedScale, model.DefaultGain)
	if err != nil {
		t.Fatal(err)
	}
	otherModel, err := model.New(llamaConfig(), other, nil)
	if err != nil {
		t.Fatal(err)
	}
	onlyAt := func(layer int, round Round, f func(p *projector, in, out []*rlwe.Ciphertext) []*rlwe.Ciphertext) func(*projector, int, Round, []*rlwe.Ciphertext, []*rlwe.Ciphertext) []*rlwe.Ciphertext {
		return func(p *projector, l int, r Round, in, out []*rlwe.Ciphertext) []*rlwe.Ciphertext {
			if l == layer && r == round {
				return f(p, in, out)
			}
			return out
		}
	}
	cases := map[string]ServerConfig{
		"other weights": {weights: otherModel},
		// the key projection's result replaced by the query's
		"skipped product": {cheat: onlyAt(0, RoundQKV, func(_ *projector, _, out []*rlwe.Ciphertext) []*rlwe.Ciphertext {
			out[1] = out[0]
			return out
		})},
		// the input returned instead of the product
		"input echoed": {cheat: onlyAt(1, RoundOutput, func(p *projector, in, out []*rlwe.Ciphertext) []*rlwe.Ciphertext {
			echo := p.layout.newCiphertext(outLevel, in[0].Scale)
			if err := p.eval.Rescale(in[0], echo); err != nil {
				panic(err)
			}
			out[0] = echo
			return out
		})},
		// one accumulator of the down projection shifted (by 1 at the
		// server's nominal scale: it does not know the client's)
		"altered product": {cheat: onlyAt(0, RoundDown, addToSlot(3, 1))},
		// one accumulator of the gate projection pushed beyond its bound
		"out-of-range product": {cheat: onlyAt(2, RoundMLP, addToSlot(0, 1<<20))},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			_, url := serve(t, cfg)
			c := dial(t, url, m.Config.Layers)
			_, err := c.Generate(context.Background(), toTokens([]byte("Hi")), 2, nil)
			if !errors.Is(err, ErrCheck) {
				t.Fatalf("cheating server not caught: %v", err)
			}
		})
	}
	// The honest server passes the same checks.
	_, url := serve(t, ServerConfig{})
	c := dial(t, url, 1)
	if _, err := c.Generate(context.Background(), toTokens([]byte("Hi")), 2, nil); err != nil {
		t.Fatal(err)
	}
}

// addToSlot returns a cheat that adds delta to slot of the first result
// ciphertext, homomorphically (the server needs no key for it).
func addToSlot(slot int, delta float64) func(p *projector, _, out []*rlwe.Ciphertext) []*rlwe.Ciphertext {
	return func(p *projector, _, out []*rlwe.Ciphertext) []*rlwe.Ciphertext {
		l := p.layout
		v := make([]float64, l.Params.MaxSlots())
		v[slot] = delta
		pt := ckks.NewPlaintext(l.Params, outLevel)
		pt.LogDimensions = l.Params.LogMaxDimensions()
		pt.Scale = out[0].Scale
		if err := ckks.NewEncoder(l.Params).Encode(v, pt); err != nil {
			panic(err)
		}
		if err := p.eval.Add(out[0], pt, out[0]); err != nil {
			panic(err)
		}
		return out
	}
}

// TestCheckerCatchesOneOff: the Freivalds check accepts x·Wᵀ and rejects
// every single-entry change of ±1.
func TestCheckerCatchesOneOff(t *testing.T) {
	w := &builtin().Quant.Layers[0].Up.Weight
	ch, err := newChecker(w)
	if err != nil {
		t.Fatal(err)
	}
	out, in := w.Shape[0], w.Shape[1]
	const rows = 2
	x := make([]int64, rows*in)
	for i := range x {
		x[i] = int64((i*7919)%65535 - 32767)
	}
	y := model.MatMulInt(x, rows, in, w.Data, out, nil)
	if err := ch.verify(x, y, rows); err != nil {
		t.Fatal(err)
	}
	for i := range y {
		for _, d := range []int64{-1, 1} {
			y[i] += d
			if err := ch.verify(x, y, rows); !errors.Is(err, ErrCheck) {
				t.Fatalf("entry %d changed by %d accepted", i, d)
			}
			y[i] -= d
		}
	}
}

// TestMalformedRequests sends requests the server must refuse with a 4xx,
// then checks that it still serves a valid session.
func TestMalformedRequests(t *testing.T) {
	s, url := serve(t, ServerConfig{})
	l := s.layout
	c := dial(t, url, 1)
	// A valid request body to corrupt: one row of the QKV round.
	x := model.Tensor{Shape: []int{1, builtin().Config.Hidden}, Data: make([]int64, builtin().Config.Hidden)}
	for i := range x.Data {
		x.Data[i] = int64(i - 30)
	}
	var valid []byte
	c.cfg.tamper = nil
	{
		pt := ckks.NewPlaintext(l.Params, inLevel)
		pt.LogDimensions = l.Params.LogMaxDimensions()
		ct := l.newCiphertext(inLevel, pt.Scale)
		if err := c.encryptor.Encrypt(pt, ct); err != nil {
			t.Fatal(err)
		}
		valid = l.EncodeRequest(&Request{Layer: 0, Round: RoundQKV, Rows: 1, Cts: []*rlwe.Ciphertext{ct}})
	}
	project := url + "/v1/sessions/" + c.session + "/project"
	patch := func(off int, v byte) []byte {
		b := bytes.Clone(valid)
		b[off] = v
		return b
	}
	bigCoefficient := bytes.Clone(valid)
	binary.LittleEndian.PutUint64(bigCoefficient[requestHeaderBytes+8:], ^uint64(0))
	rows0 := bytes.Clone(valid)
	binary.LittleEndian.PutUint16(rows0[8:], 0)
	layer99 := bytes.Clone(valid)
	binary.LittleEndian.PutUint16(layer99[6:], 99)
	cases := []struct {
		name   string
		method string
		url    string
		token  string
		body   []byte
		status int
	}{
		{"no token", "POST", project, "", valid, 401},
		{"wrong token", "POST", project, "wrong", valid, 401},
		{"unknown session", "POST", url + "/v1/sessions/00/project", testToken, valid, 404},
		{"empty body", "POST", project, testToken, nil, 400},
		{"truncated", "POST", project, testToken, valid[:len(valid)-1], 400},
		{"one byte too many", "POST", project, testToken, append(bytes.Clone(valid), 0), 400},
		{"bad magic", "POST", project, testToken, patch(0, 'X'), 400},
		{"bad version", "POST", project, testToken, patch(4, 9), 400},
		{"unknown round", "POST", project, testToken, patch(5, 9), 400},
		{"unknown layer", "POST", project, testToken, layer99, 400},
		{"zero rows", "POST", project, testToken, rows0, 400},
		{"coefficient above modulus", "POST", project, testToken, bigCoefficient, 400},
		{"oversized", "POST", project, testToken, make([]byte, s.maxBody+1), 413},
		{"keys: garbage", "POST", url + "/v1/sessions", testToken, []byte("VFSK\x01garbage"), 400},
		{"keys: oversized", "POST", url + "/v1/sessions", testToken, make([]byte, l.keysBytes()+1), 413},
		{"unknown path", "GET", url + "/v1/nothing", testToken, nil, 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, tc.url, bytes.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", bearer(tc.token))
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, strings.TrimSpace(string(msg)), tc.status)
			}
		})
	}
	// The valid body is served, and the session still generates.
	req, _ := http.NewRequest("POST", project, bytes.NewReader(valid))
	req.Header.Set("Authorization", bearer(testToken))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("valid request: %s", resp.Status)
	}
	if _, err := c.Generate(context.Background(), toTokens([]byte("ok")), 1, nil); err != nil {
		t.Fatal(err)
	}
	// A response altered in transit fails to decode or fails the check.
	c.cfg.tamper = func(b []byte) []byte { return b[:len(b)-8] }
	if _, err := c.Generate(context.Background(), toTokens([]byte("ok")), 1, nil); !errors.Is(err, ErrMalformed) {
		t.Fatalf("truncated response: %v", err)
	}
	c.cfg.tamper = func(b []byte) []byte { b[len(b)-1] ^= 1; return b }
	if _, err := c.Generate(context.Background(), toTokens([]byte("ok")), 1, nil); !errors.Is(err, ErrCheck) {
		t.Fatalf("flipped response bit: %v", err)
	}
}

// TestConcurrentSessions opens 8 sessions at once and runs them at once
// with different prompts: each gets the plaintext pass's tokens, and a
// ninth session is refused while they live.
func TestConcurrentSessions(t *testing.T) {
	m := builtin()
	const sessions = 8
	_, url := serve(t, ServerConfig{MaxSessions: sessions})
	clients := make([]*Client, sessions)
	dialErrs := make([]error, sessions)
	var dialing sync.WaitGroup
	for i := range clients {
		dialing.Add(1)
		go func() {
			defer dialing.Done()
			clients[i], dialErrs[i] = Dial(context.Background(), ClientConfig{URL: url, Token: testToken, Model: m, EncryptedLayers: 1})
		}()
	}
	dialing.Wait()
	if err := errors.Join(dialErrs...); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(context.Background(), ClientConfig{URL: url, Token: testToken, Model: m, EncryptedLayers: 1}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("ninth session: %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, sessions)
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prompt := toTokens(fmt.Appendf(nil, "session %d", i))
			steps, err := c.Generate(context.Background(), prompt, 3, nil)
			if err != nil {
				errs[i] = err
				return
			}
			want, err := m.Generate(prompt, 3)
			if err != nil {
				errs[i] = err
				return
			}
			if got := tokensOf(steps); !slices.Equal(got, want.Tokens) {
				errs[i] = fmt.Errorf("session %d: tokens %v, plaintext %v", i, got, want.Tokens)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for _, c := range clients {
		if err := c.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}
}

// TestSessionExpiry: an idle session is dropped after the TTL.
func TestSessionExpiry(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	_, url := serve(t, ServerConfig{SessionTTL: time.Minute, now: clock})
	c := dial(t, url, 1)
	if _, err := c.Generate(context.Background(), toTokens([]byte("a")), 1, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if _, err := c.Generate(context.Background(), toTokens([]byte("a")), 1, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("expired session: %v", err)
	}
}

// TestClientRefusesOtherModel: the client checks the server's model id.
func TestClientRefusesOtherModel(t *testing.T) {
	_, url := serve(t, ServerConfig{Model: model.Default()})
	_, err := Dial(context.Background(), ClientConfig{URL: url, Token: testToken, Model: builtin(), EncryptedLayers: 1})
	if err == nil || !strings.Contains(err.Error(), "serves model") {
		t.Fatalf("other model accepted: %v", err)
	}
}

// TestWideLayout runs a model whose vectors fill all N/2 slots: one row
// per ciphertext, an MLP output piece wider than Slots/2 whose rotations
// wrap around the slots, a down projection split into two input pieces
// (the two hybrid blocks summed).
func TestWideLayout(t *testing.T) {
	c := &model.Config{Family: model.Llama, Vocab: 64, Hidden: 64, Layers: 1, Heads: 4, KVHeads: 2,
		Intermediate: 4096, MaxPositions: 16, NormEps: 1e-5, RopeTheta: 10000}
	w, err := model.RandomWeights(c, 7, model.DefaultEmbedScale, model.DefaultGain)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, url := serve(t, ServerConfig{Model: m})
	l := s.layout
	if l.RowsPerCiphertext != 1 || len(l.outPieces(64, 4096)) != 1 || len(l.pieces(4096)) != 2 {
		t.Fatalf("layout: %d rows per ciphertext, pieces %v and %v", l.RowsPerCiphertext, l.outPieces(64, 4096), l.pieces(4096))
	}
	cl, err := Dial(context.Background(), ClientConfig{URL: url, Token: testToken, Model: m, EncryptedLayers: 1})
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{3, 1, 4}
	sameAsPlaintext(t, cl, m, prompt, 2)
	t.Logf("largest CKKS error %.3g, server %s", cl.Stats.MaxError, cl.Stats.ServerCompute)
}

// TestGPT2 runs the GPT-2 default model of package model (biases,
// LayerNorm, GELU) with both layers encrypted.
func TestGPT2(t *testing.T) {
	m := model.Default()
	_, url := serve(t, ServerConfig{Model: m})
	c, err := Dial(context.Background(), ClientConfig{URL: url, Token: testToken, Model: m, EncryptedLayers: m.Config.Layers})
	if err != nil {
		t.Fatal(err)
	}
	prompt := toTokens([]byte("Hello"))
	sameAsPlaintext(t, c, m, prompt, 3)
}

// TestLongPrompt: a prompt longer than the server's row limit goes in
// several passes and gives the plaintext run's tokens and logits.
func TestLongPrompt(t *testing.T) {
	m := builtin()
	s, url := serve(t, ServerConfig{MaxCiphertexts: 1})
	c := dial(t, url, 1)
	prompt := toTokens([]byte("a prompt longer than sixteen rows"))
	if c.maxRows != s.maxRows || len(prompt) <= c.maxRows {
		t.Fatalf("row limit %d (server %d) for a prompt of %d", c.maxRows, s.maxRows, len(prompt))
	}
	sameAsPlaintext(t, c, m, prompt, 2)
}
