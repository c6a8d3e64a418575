//go:build !full

package workers

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// prove builds cmd/prove once for the package's tests.
var (
	buildOnce sync.Once
	proveBin  string
	buildErr  error
)

func proveBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "prove-*")
		if err != nil {
			buildErr = err
			return
		}
		proveBin = filepath.Join(dir, "prove")
		out, err := exec.Command("go", "build", "-o", proveBin, "github.com/veriformer/veriformer/cmd/prove").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/prove: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return proveBin
}

// proc is a process of cmd/prove whose output lines are logged and
// watched.
type proc struct {
	name  string
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	seen  chan struct{} // signalled on every line
	done  chan struct{}
	err   error
}

// start starts cmd/prove with args, its key cache the shared one.
func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(proveBinary(t), args...)
	cache, err := setup.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "VERIFORMER_CACHE="+cache)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	p := &proc{name: name, cmd: cmd, seen: make(chan struct{}, 1), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			t.Logf("%s: %s", name, sc.Text())
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			select {
			case p.seen <- struct{}{}:
			default:
			}
		}
		_, _ = io.Copy(io.Discard, out)
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits until a line of the process matches re, and returns it.
func (p *proc) wait(t *testing.T, re string, timeout time.Duration) string {
	t.Helper()
	r := regexp.MustCompile(re)
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if r.MatchString(l) {
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		select {
		case <-p.seen:
		case <-p.done:
			p.mu.Lock()
			for _, l := range p.lines {
				if r.MatchString(l) {
					p.mu.Unlock()
					return l
				}
			}
			p.mu.Unlock()
			t.Fatalf("%s ended (%v) without a line matching %q", p.name, p.err, re)
		case <-deadline:
			t.Fatalf("%s: no line matching %q within %v", p.name, re, timeout)
		}
	}
}

// output returns the process's lines so far.
func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// server starts an embedded NATS server with JetStream for the test.
func server(t *testing.T) *distributed.Embedded {
	t.Helper()
	e, err := distributed.StartEmbedded(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// run is the request every test proves: the micro model, "Hi" and two
// generated tokens, in the aggregated design.
func run(url string) []string {
	return []string{"--model", "micro", "--design", "aggregated", "--prompt", "Hi", "--tokens", "2", "--chain=false", "--stats=false", "--nats", url}
}

var statementLine = `^statement: `

// TestKilled kills, with SIGKILL, the coordinator once the native
// proof's job is done and the worker in the middle of the segment's
// Groth16 job, then starts a second worker and the coordinator again
// with the same request. The second coordinator reads the native job's
// result and does not publish it again (it ran once); the Groth16 job,
// whose worker died, goes to the second worker after the ack wait (3 s
// here); the run states the statement of the request as the
// deployment's keys give it, as a run without faults does.
func TestKilled(t *testing.T) {
	e := server(t)
	a := start(t, "worker a", "worker", "--nats", e.URL(), "--name", "a", "--ack-wait", "3s")
	first := start(t, "coordinator 1", run(e.URL())...)
	// Killed once it has published the Groth16 job, so that worker a
	// takes that job.
	first.wait(t, `published segment-0`, 5*time.Minute)
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done
	a.wait(t, `job segment-0 \(segment, attempt 1, delivery 1\) started`, 5*time.Minute)
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	start(t, "worker b", "worker", "--nats", e.URL(), "--name", "b", "--ack-wait", "3s")
	second := start(t, "coordinator 2", run(e.URL())...)
	got := second.wait(t, statementLine, 5*time.Minute)
	<-second.done
	if second.err != nil {
		t.Fatalf("the second coordinator: %v", second.err)
	}
	if strings.Contains(second.output(), "published native-0") {
		t.Fatalf("the second coordinator published the native job again:\n%s", second.output())
	}
	if !strings.Contains(second.output(), "done segment-0 (attempt 1, worker b)") {
		t.Fatalf("the Groth16 job was not finished by the second worker:\n%s", second.output())
	}
	if n := strings.Count(a.output(), "job native-0 (native, attempt 1, delivery 1) started"); n != 1 {
		t.Fatalf("the native job ran %d times", n)
	}
	if want := reference(t); got != want {
		t.Fatalf("after the kills: %s\nwithout: %s", got, want)
	}
}

// reference returns the statement line of the request as a run without
// workers states it: the deployment's final model id (from the cached
// keys' verifying keys) and the digests of the prompt and of the greedy
// generation.
func reference(t *testing.T) string {
	t.Helper()
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{'H', 'i'}
	gen, err := m.Generate(prompt, 2)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pipeline.VerifyingKeysAggregated(pipeline.AggregatedOptions{Options: pipeline.Options{Model: m, Prompt: prompt, Tokens: 2}, SegmentSize: 1}, len(prompt), len(gen.Tokens))
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.Of[fr.Element](keys.FinalModelID, prompt, gen.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	return "statement: " + st.String()
}
