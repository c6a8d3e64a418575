package split

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/schemes/ckks"

	"github.com/veriformer/veriformer/model"
)

// ClientConfig configures a [Client].
type ClientConfig struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8470.
	URL string
	// Token is the server's bearer token.
	Token string
	// Model holds the public weights: the client runs the plaintext steps
	// with them and checks the server's products against them.
	Model *model.Model
	// EncryptedLayers is the number of leading layers whose projections
	// the server computes on ciphertexts; the client computes the others.
	EncryptedLayers int
	// HTTPClient defaults to a client with a 10-minute timeout.
	HTTPClient *http.Client
	// Logf, if set, receives one line per round trip.
	Logf func(format string, args ...any)
	// tamper, if set, alters each response body before it is decoded (for
	// tests of the transport's checks).
	tamper func([]byte) []byte
}

// Stats are a client's cumulated per-phase timings and traffic.
type Stats struct {
	KeyGen        time.Duration // secret key and Galois keys
	Encrypt       time.Duration // encoding and encryption of activations
	Transfer      time.Duration // HTTP round trips minus the server's compute
	ServerCompute time.Duration // as reported by the server
	Decrypt       time.Duration // decryption, decoding and rounding
	Check         time.Duration // Freivalds checks (and their set-up)
	ClientCompute time.Duration // everything else: norms, RoPE, attention, MLP, plaintext layers, LM head
	BytesSent     int64         // request bodies, keys included
	BytesReceived int64         // response bodies
	KeyBytes      int64         // the keys message alone
	Requests      int           // projection round trips
	// MaxError is the largest |decrypted − nearest integer| over every
	// accumulator received: the CKKS error, which must stay below ½.
	MaxError float64
}

// Client runs generation with the server computing the projections of
// the first EncryptedLayers layers on CKKS ciphertexts.
type Client struct {
	cfg     ClientConfig
	layout  *Layout
	http    *http.Client
	session string
	maxRows int

	sk        *rlwe.SecretKey
	encryptor *rlwe.Encryptor
	decryptor *rlwe.Decryptor
	encoder   *ckks.Encoder
	// checks[layer][projection name]
	checks []map[string]*checker

	Stats Stats
}

// Dial checks the server's model id against cfg.Model, creates the keys,
// opens a session (sending only the Galois keys) and precomputes the
// Freivalds checks of the encrypted layers.
func Dial(ctx context.Context, cfg ClientConfig) (*Client, error) {
	if cfg.Model == nil {
		return nil, errors.New("split: client needs the model's public weights")
	}
	if cfg.EncryptedLayers < 0 || cfg.EncryptedLayers > cfg.Model.Config.Layers {
		return nil, fmt.Errorf("split: %d encrypted layers outside [0, %d]", cfg.EncryptedLayers, cfg.Model.Config.Layers)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Minute}
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	l, err := NewLayout(&cfg.Model.Config)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, layout: l, http: cfg.HTTPClient}
	var info Info
	if err := c.getJSON(ctx, "/v1/info", &info); err != nil {
		return nil, err
	}
	if want := modelIDHex(cfg.Model); info.ModelID != want {
		return nil, fmt.Errorf("split: server serves model %s, the client's weights are model %s", info.ModelID, want)
	}
	if info.Protocol != wireVersion {
		return nil, fmt.Errorf("split: server speaks protocol %d, client %d", info.Protocol, wireVersion)
	}
	start := time.Now()
	kgen := rlwe.NewKeyGenerator(l.Params)
	c.sk = kgen.GenSecretKeyNew()
	gks := kgen.GenGaloisKeysNew(l.GaloisElements(), c.sk)
	c.encryptor = rlwe.NewEncryptor(l.Params, c.sk)
	c.decryptor = rlwe.NewDecryptor(l.Params, c.sk)
	c.encoder = ckks.NewEncoder(l.Params)
	keys, err := l.EncodeKeys(gks)
	if err != nil {
		return nil, err
	}
	c.Stats.KeyGen = time.Since(start)
	start = time.Now()
	c.checks = make([]map[string]*checker, cfg.EncryptedLayers)
	for li := range c.checks {
		c.checks[li] = map[string]*checker{}
		for _, r := range []Round{RoundQKV, RoundOutput, RoundMLP, RoundDown} {
			for _, p := range projections(&cfg.Model.Quant.Layers[li], r) {
				if c.checks[li][p.Name], err = newChecker(&p.Q.Weight); err != nil {
					return nil, err
				}
			}
		}
	}
	c.Stats.Check += time.Since(start)
	body, _, err := c.post(ctx, "/v1/sessions", keys)
	if err != nil {
		return nil, fmt.Errorf("split: open session: %w", err)
	}
	c.Stats.KeyBytes = int64(len(keys))
	var si SessionInfo
	if err := json.Unmarshal(body, &si); err != nil {
		return nil, fmt.Errorf("split: session reply: %w", err)
	}
	if si.ID == "" || si.MaxRows < 1 {
		return nil, errors.New("split: session reply without id or row limit")
	}
	c.session, c.maxRows = si.ID, si.MaxRows
	c.logf("session %s: %d Galois keys, %d bytes, keys made in %s", short(si.ID), len(gks), len(keys), c.Stats.KeyGen.Round(time.Millisecond))
	return c, nil
}

func short(id string) string { return id[:min(8, len(id))] }

func (c *Client) logf(format string, args ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf(format, args...)
	}
}

// Close ends the session on the server.
func (c *Client) Close(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.cfg.URL+"/v1/sessions/"+c.session, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", bearer(c.cfg.Token))
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("split: close session: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("split: close session: %s", resp.Status)
	}
	return nil
}

func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.URL+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", bearer(c.cfg.Token))
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("split: %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("split: %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("split: %s: %s: %s", path, resp.Status, strings.TrimSpace(string(b)))
	}
	return json.Unmarshal(b, v)
}

// post sends body and returns the response body and the server's reported
// compute time.
func (c *Client) post(ctx context.Context, path string, body []byte) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL+path, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", bearer(c.cfg.Token))
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, err
	}
	c.Stats.BytesSent += int64(len(body))
	c.Stats.BytesReceived += int64(len(b))
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(b[:min(len(b), 512)])))
	}
	ns, _ := strconv.ParseInt(resp.Header.Get(ComputeHeader), 10, 64)
	if c.cfg.tamper != nil {
		b = c.cfg.tamper(b)
	}
	return b, time.Duration(max(ns, 0)), nil
}

// l1 returns Σ|xᵢ|.
func l1(x []int64) float64 {
	var s float64
	for _, v := range x {
		s += math.Abs(float64(v))
	}
	return s
}

// logScaleFor returns the input scale exponent for a row x whose products
// with int8 weights are bounded by 127·Σ|xᵢ|: the largest exponent, at
// most 45, that keeps every result below q₀/4 after the rescaling.
func (c *Client) logScaleFor(x []int64) (int, error) {
	bound := model.WeightMax*l1(x) + 1
	q0 := float64(c.layout.Params.Q()[0])
	k := min(maxLogFit, int(math.Floor(math.Log2(q0/(4*bound)))))
	if k < minLogScale {
		return 0, fmt.Errorf("split: activations too large for the ciphertext modulus (bound %.3g)", bound)
	}
	return k, nil
}

// remote has the server compute the products of round r of layer li on
// x ([rows, in]); it returns one accumulator [rows, out] per projection,
// each checked against the weights.
func (c *Client) remote(ctx context.Context, li int, r Round, x model.Tensor) ([][]int64, error) {
	l := c.layout
	sh := l.shapeOf(&c.cfg.Model.Quant.Layers[li], r)
	rows := x.Shape[0]
	start := time.Now()
	req, scales, err := c.encrypt(li, r, x)
	if err != nil {
		return nil, err
	}
	groups := len(scales)
	body := l.EncodeRequest(req)
	c.Stats.Encrypt += time.Since(start)
	start = time.Now()
	resp, compute, err := c.post(ctx, "/v1/sessions/"+c.session+"/project", body)
	if err != nil {
		return nil, fmt.Errorf("split: layer %d %s: %w", li, r, err)
	}
	trip := time.Since(start)
	c.Stats.ServerCompute += compute
	c.Stats.Transfer += max(0, trip-compute)
	c.Stats.Requests++
	start = time.Now()
	cts, err := l.DecodeResponse(resp, groups*sh.OutCts)
	if err != nil {
		return nil, fmt.Errorf("split: layer %d %s: %w", li, r, err)
	}
	accs := make([][]int64, len(sh.Project))
	for i, out := range sh.Outs {
		accs[i] = make([]int64, rows*out)
	}
	bounds := make([]float64, rows)
	for row := range rows {
		bounds[row] = model.WeightMax * l1(x.Data[row*sh.In:(row+1)*sh.In])
	}
	vals := make([]float64, l.Params.MaxSlots())
	next := 0
	for g := range groups {
		first, last := g*l.RowsPerCiphertext, min(rows, (g+1)*l.RowsPerCiphertext)
		for i, out := range sh.Outs {
			for _, p := range l.outPieces(sh.In, out) {
				ct := cts[next]
				next++
				// The client knows the scale of its own ciphertexts; the
				// server's metadata is never read.
				ct.Scale = scales[g]
				pt := c.decryptor.DecryptNew(ct)
				if err := c.encoder.Decode(pt, vals); err != nil {
					return nil, fmt.Errorf("split: decode: %w", err)
				}
				for row := first; row < last; row++ {
					seg := vals[(row-first)*l.Slots:]
					for j := range p.Len {
						f := seg[j]
						// |x·Wᵀ| ≤ 127·Σ|xᵢ|: a larger value is wrong, and
						// refusing it keeps every error below the check's
						// modulus (see doc.go).
						if !(math.Abs(f) <= bounds[row]+0.5) {
							return nil, fmt.Errorf("%w: layer %d %s: accumulator %g outside ±%g", ErrCheck, li, sh.Project[i].Name, f, bounds[row])
						}
						rounded := math.Round(f)
						c.Stats.MaxError = max(c.Stats.MaxError, math.Abs(f-rounded))
						accs[i][row*out+p.Start+j] = int64(rounded)
					}
				}
			}
		}
	}
	c.Stats.Decrypt += time.Since(start)
	start = time.Now()
	for i, p := range sh.Project {
		if err := c.checks[li][p.Name].verify(x.Data, accs[i], rows); err != nil {
			return nil, fmt.Errorf("split: layer %d %s: %w", li, p.Name, err)
		}
	}
	c.Stats.Check += time.Since(start)
	c.logf("layer %d %s: %d rows, %d bytes up, %d down, server %s", li, r, rows, len(body), len(resp), compute.Round(time.Millisecond))
	return accs, nil
}

// encrypt packs and encrypts x ([rows, in]) for round r of layer li; it
// returns the request and the scale of each ciphertext group.
func (c *Client) encrypt(li int, r Round, x model.Tensor) (*Request, []rlwe.Scale, error) {
	l := c.layout
	layer := &c.cfg.Model.Quant.Layers[li]
	sh := l.shapeOf(layer, r)
	rows := x.Shape[0]
	inPieces := l.pieces(sh.In)
	req := &Request{Layer: li, Round: r, Rows: rows}
	groups := l.groups(rows)
	scales := make([]rlwe.Scale, groups)
	v := make([]float64, l.Params.MaxSlots())
	for g := range groups {
		first, last := g*l.RowsPerCiphertext, min(rows, (g+1)*l.RowsPerCiphertext)
		k := maxLogFit
		for row := first; row < last; row++ {
			kr, err := c.logScaleFor(x.Data[row*sh.In : (row+1)*sh.In])
			if err != nil {
				return nil, nil, err
			}
			k = min(k, kr)
		}
		scales[g] = rlwe.NewScale(math.Ldexp(1, k))
		for _, p := range inPieces {
			clear(v)
			for row := first; row < last; row++ {
				xr := x.Data[row*sh.In : (row+1)*sh.In]
				seg := v[(row-first)*l.Slots : (row-first+1)*l.Slots]
				for s := range seg {
					seg[s] = float64(xr[p.Start+s%p.Len])
				}
			}
			pt := ckks.NewPlaintext(l.Params, inLevel)
			pt.LogDimensions = l.Params.LogMaxDimensions()
			pt.Scale = scales[g]
			if err := c.encoder.Encode(v, pt); err != nil {
				return nil, nil, fmt.Errorf("split: encode: %w", err)
			}
			ct := l.newCiphertext(inLevel, scales[g])
			if err := c.encryptor.Encrypt(pt, ct); err != nil {
				return nil, nil, fmt.Errorf("split: encrypt: %w", err)
			}
			req.Cts = append(req.Cts, ct)
		}
	}
	return req, scales, nil
}

// products returns the accumulators of round r of layer li on x: from the
// server for an encrypted layer, computed locally otherwise.
func (c *Client) products(ctx context.Context, li int, r Round, x model.Tensor) ([][]int64, error) {
	if li < c.cfg.EncryptedLayers {
		return c.remote(ctx, li, r, x)
	}
	ps := projections(&c.cfg.Model.Quant.Layers[li], r)
	accs := make([][]int64, len(ps))
	rows := x.Shape[0]
	for i, p := range ps {
		w := &p.Q.Weight
		accs[i] = model.MatMulInt(x.Data, rows, w.Shape[1], w.Data, w.Shape[0], nil)
	}
	return accs, nil
}
