package split

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"

	"github.com/veriformer/veriformer/model"
)

// ServerConfig configures a [Server].
type ServerConfig struct {
	// Model is the model whose projections the server computes.
	Model *model.Model
	// Token is the bearer token every request must carry (required).
	Token string
	// MaxSessions bounds the live sessions (default 16): each holds its
	// evaluation keys, tens of megabytes.
	MaxSessions int
	// SessionTTL is the idle time after which a session expires (default
	// 10 minutes).
	SessionTTL time.Duration
	// Workers is the number of goroutines of one product (default
	// GOMAXPROCS).
	Workers int
	// MaxCiphertexts bounds the input ciphertexts of one request (default
	// 8): a product holds 63 baby-step rotations of each (for 4,096
	// slots), so this bounds the memory of a request; clients split longer
	// prompts into several passes.
	MaxCiphertexts int
	// Logf, if set, receives one line per request.
	Logf func(format string, args ...any)
	// now replaces time.Now in tests.
	now func() time.Time
	// weights, if set, replaces Model's weights in the products, and
	// cheat, if set, rewrites each result: the cheating servers of the
	// tests.
	weights *model.Model
	cheat   func(p *projector, layer int, r Round, in, out []*rlwe.Ciphertext) []*rlwe.Ciphertext
}

// Info is what GET /v1/info returns.
type Info struct {
	Protocol int    `json:"protocol"`
	ModelID  string `json:"model_id"`
	Family   string `json:"family"`
	Layers   int    `json:"layers"`
	Slots    int    `json:"slots"`
	Keys     int    `json:"keys"`
}

// SessionInfo is what POST /v1/sessions returns.
type SessionInfo struct {
	ID        string `json:"id"`
	ExpiresIn int    `json:"expires_in_seconds"`
	// MaxRows is the most rows one request may carry.
	MaxRows    int    `json:"max_rows"`
	ModelID    string `json:"model_id"`
	KeysBytes  int    `json:"keys_bytes"`
	ServerTime string `json:"server_time"`
}

// Server serves encrypted projections over HTTP (see doc.go, "HTTP API").
type Server struct {
	cfg     ServerConfig
	layout  *Layout
	modelID string
	maxBody int64
	maxRows int

	mu       sync.Mutex
	sessions map[string]*session
	// slots bounds the products computed at once, uploads the key
	// messages read at once.
	slots, uploads chan struct{}
}

type session struct {
	mu       sync.Mutex // one product at a time per session
	proj     *projector
	lastUsed time.Time
}

// ComputeHeader carries the server's compute time of a response, in
// nanoseconds.
const ComputeHeader = "X-Split-Compute-Ns"

// NewServer returns a server for cfg.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Model == nil {
		return nil, errors.New("split: server needs a model")
	}
	if cfg.Token == "" {
		return nil, errors.New("split: server needs a bearer token")
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = 16
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 10 * time.Minute
	}
	if cfg.MaxCiphertexts <= 0 {
		cfg.MaxCiphertexts = 8
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	l, err := NewLayout(&cfg.Model.Config)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, layout: l, modelID: modelIDHex(cfg.Model), sessions: map[string]*session{},
		slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/cfg.Workers)), uploads: make(chan struct{}, 2)}
	widest := 0
	for _, layer := range cfg.Model.Quant.Layers {
		for _, r := range []Round{RoundQKV, RoundOutput, RoundMLP, RoundDown} {
			widest = max(widest, l.shapeOf(&layer, r).InCts)
		}
	}
	s.maxRows = min(cfg.Model.Config.MaxPositions, l.RowsPerCiphertext*max(1, cfg.MaxCiphertexts/widest))
	s.maxBody = int64(max(l.keysBytes(), requestHeaderBytes+l.groups(s.maxRows)*widest*l.ciphertextBytes(inLevel)))
	return s, nil
}

func modelIDHex(m *model.Model) string { return fmt.Sprintf("%064x", m.ID()) }

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/info", s.info)
	mux.HandleFunc("POST /v1/sessions", s.createSession)
	mux.HandleFunc("POST /v1/sessions/{id}/project", s.project)
	mux.HandleFunc("DELETE /v1/sessions/{id}", s.deleteSession)
	return s.authenticate(mux)
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

func (s *Server) authenticate(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.cfg.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="split"`)
			httpError(w, http.StatusUnauthorized, "missing or wrong bearer token")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) info(w http.ResponseWriter, _ *http.Request) {
	c := &s.cfg.Model.Config
	writeJSON(w, Info{Protocol: wireVersion, ModelID: s.modelID, Family: string(c.Family), Layers: c.Layers,
		Slots: s.layout.Slots, Keys: len(s.layout.Rotations())})
}

// readBody reads at most limit bytes, refusing longer bodies with 413.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	if r.ContentLength > limit {
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body of %d bytes exceeds %d", r.ContentLength, limit))
		return nil, false
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body exceeds %d bytes", limit))
		} else {
			httpError(w, http.StatusBadRequest, "reading body: "+err.Error())
		}
		return nil, false
	}
	return b, true
}

// expire drops idle sessions; s.mu must be held.
func (s *Server) expire(now time.Time) {
	for id, sess := range s.sessions {
		if now.Sub(sess.lastUsed) > s.cfg.SessionTTL {
			delete(s.sessions, id)
			s.logf("session %s expired", id[:8])
		}
	}
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	if !s.hasRoom() {
		httpError(w, http.StatusServiceUnavailable, "too many sessions")
		return
	}
	select {
	case s.uploads <- struct{}{}:
		defer func() { <-s.uploads }()
	case <-r.Context().Done():
		httpError(w, http.StatusServiceUnavailable, "cancelled while waiting")
		return
	}
	b, ok := readBody(w, r, int64(s.layout.keysBytes()))
	if !ok {
		return
	}
	keys, err := s.layout.DecodeKeys(b)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		httpError(w, http.StatusInternalServerError, "session id")
		return
	}
	id := hex.EncodeToString(raw[:])
	now := s.cfg.now()
	s.mu.Lock()
	s.expire(now)
	if len(s.sessions) >= s.cfg.MaxSessions {
		s.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, "too many sessions")
		return
	}
	s.sessions[id] = &session{proj: newProjector(s.layout, keys, s.cfg.Workers), lastUsed: now}
	s.mu.Unlock()
	s.logf("session %s created (%d key bytes)", id[:8], len(b))
	writeJSON(w, SessionInfo{ID: id, ExpiresIn: int(s.cfg.SessionTTL / time.Second), MaxRows: s.maxRows,
		ModelID: s.modelID, KeysBytes: len(b), ServerTime: now.UTC().Format(time.RFC3339)})
}

// hasRoom reports whether a session could be created, before its keys
// are read.
func (s *Server) hasRoom() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(s.cfg.now())
	return len(s.sessions) < s.cfg.MaxSessions
}

func (s *Server) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.now()
	s.expire(now)
	sess := s.sessions[id]
	if sess != nil {
		sess.lastUsed = now
	}
	return sess
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	_, ok := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	if !ok {
		httpError(w, http.StatusNotFound, "no such session")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// inCts returns the input ciphertexts per row of a round, 0 if the layer
// or round does not exist.
func (s *Server) inCts(layer int, r Round) int {
	if layer < 0 || layer >= len(s.cfg.Model.Quant.Layers) || r < RoundQKV || r > RoundDown {
		return 0
	}
	return s.layout.shapeOf(&s.cfg.Model.Quant.Layers[layer], r).InCts
}

func (s *Server) project(w http.ResponseWriter, r *http.Request) {
	sess := s.lookup(r.PathValue("id"))
	if sess == nil {
		httpError(w, http.StatusNotFound, "no such session (expired or never created)")
		return
	}
	b, ok := readBody(w, r, s.maxBody)
	if !ok {
		return
	}
	req, err := s.layout.DecodeRequest(b, s.inCts, s.maxRows)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	select {
	case s.slots <- struct{}{}:
	case <-r.Context().Done():
		httpError(w, http.StatusServiceUnavailable, "cancelled while waiting")
		return
	}
	start := time.Now()
	weights := s.cfg.Model
	if s.cfg.weights != nil {
		weights = s.cfg.weights
	}
	ps := projections(&weights.Quant.Layers[req.Layer], req.Round)
	out, err := sess.proj.project(ps, req.Rows, req.Cts)
	if err == nil && s.cfg.cheat != nil {
		out = s.cfg.cheat(sess.proj, req.Layer, req.Round, req.Cts, out)
	}
	<-s.slots
	if err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	elapsed := time.Since(start)
	body := s.layout.EncodeResponse(out)
	s.logf("layer %d %s: %d rows, %d ciphertexts in, %d out, %s", req.Layer, req.Round, req.Rows, len(req.Cts), len(out), elapsed.Round(time.Millisecond))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set(ComputeHeader, strconv.FormatInt(elapsed.Nanoseconds(), 10))
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// bearer formats the Authorization header value.
func bearer(token string) string { return "Bearer " + strings.TrimSpace(token) }
