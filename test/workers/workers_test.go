//go:build !full

package workers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// built holds the programs the package's tests run, each built once:
// cmd/prove and the NATS server of the module's dependency.
var built sync.Map // package path → *program

type program struct {
	once sync.Once
	path string
	err  error
}

// binary returns the program of package pkg, named name, built the
// first time.
func binary(t *testing.T, pkg, name string) string {
	t.Helper()
	v, _ := built.LoadOrStore(pkg, new(program))
	p := v.(*program)
	p.once.Do(func() {
		dir, err := os.MkdirTemp("", "bin-*")
		if err != nil {
			p.err = err
			return
		}
		p.path = filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-o", p.path, pkg).CombinedOutput(); err != nil {
			p.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.path
}

func proveBinary(t *testing.T) string {
	return binary(t, "github.com/veriformer/veriformer/cmd/prove", "prove")
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
	return launch(t, name, cmd, false)
}

// launch starts cmd, its output lines watched and logged — when quiet,
// only its last lines and only if the test fails, so that the failure's
// own message stays in view; the test's end kills it.
func launch(t *testing.T, name string, cmd *exec.Cmd, quiet bool) *proc {
	t.Helper()
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
			if !quiet {
				t.Logf("%s: %s", name, sc.Text())
			}
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
		if quiet && t.Failed() {
			p.mu.Lock()
			lines := p.lines[max(0, len(p.lines)-quietLines):]
			p.mu.Unlock()
			t.Logf("%s's last %d lines of output:\n%s", name, len(lines), strings.Join(lines, "\n"))
		}
	})
	return p
}

// quietLines is how many of a quiet process's last lines a failed test
// logs.
const quietLines = 12

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

// credentials writes a deployment's credentials with prove credentials
// (a coordinator, workers w1 and w2, with tls a certificate authority
// and a server certificate for 127.0.0.1) and returns their directory
// and the server's users.
func credentials(t *testing.T, tls bool) (string, *distributed.Users) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "credentials")
	args := []string{"credentials", "--out", dir, "--workers", "2"}
	if tls {
		args = append(args, "--tls-host", "127.0.0.1")
	}
	if out, err := exec.Command(proveBinary(t), args...).CombinedOutput(); err != nil {
		t.Fatalf("prove credentials: %v\n%s", err, out)
	}
	users := &distributed.Users{}
	for i, f := range []string{"coordinator.json", "worker-1.json", "worker-2.json"} {
		id, err := distributed.ReadIdentity(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			users.Coordinator = id.PublicKey()
		} else {
			users.Workers = append(users.Workers, id.PublicKey())
		}
	}
	return dir, users
}

// server starts an embedded NATS server with JetStream for the test,
// letting in the users of credentials written for it, whose directory
// it returns.
func server(t *testing.T) (*distributed.Embedded, string) {
	t.Helper()
	dir, users := credentials(t, false)
	e, err := distributed.StartEmbedded(t.TempDir(), 0, users)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e, dir
}

// worker starts prove worker i (1 or 2) of the credentials in dir, as
// a worker on the coordinator's machine runs: a cache of its own, the
// coordinator's key cache read (never written) for its compiled
// circuits and the keys the jobs pin.
func worker(t *testing.T, dir, url string, i int) *proc {
	t.Helper()
	cache, err := setup.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return start(t, fmt.Sprintf("worker w%d", i), "worker", "--nats", url, "--credentials", filepath.Join(dir, fmt.Sprintf("worker-%d.json", i)),
		"--ack-wait", "3s", "--cache", t.TempDir(), "--trusted-cache", cache)
}

// run is the request every test proves: the micro model, "Hi" and two
// generated tokens, in the aggregated design, by the coordinator of the
// credentials in dir.
func run(dir, url string) []string {
	return []string{"--model", "micro", "--design", "aggregated", "--prompt", "Hi", "--tokens", "2", "--chain=false", "--stats=false", "--nats", url,
		"--credentials", filepath.Join(dir, "coordinator.json")}
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
	e, dir := server(t)
	a := worker(t, dir, e.URL(), 1)
	first := start(t, "coordinator 1", run(dir, e.URL())...)
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
	worker(t, dir, e.URL(), 2)
	second := start(t, "coordinator 2", run(dir, e.URL())...)
	got := second.wait(t, statementLine, 5*time.Minute)
	<-second.done
	if second.err != nil {
		t.Fatalf("the second coordinator: %v", second.err)
	}
	if strings.Contains(second.output(), "published native-0") {
		t.Fatalf("the second coordinator published the native job again:\n%s", second.output())
	}
	if !strings.Contains(second.output(), "done segment-0 (attempt 1, worker w2)") {
		t.Fatalf("the Groth16 job was not finished by the second worker:\n%s", second.output())
	}
	if n := strings.Count(a.output(), "job native-0 (native, attempt 1, delivery 1) started"); n != 1 {
		t.Fatalf("the native job ran %d times", n)
	}
	if want := reference(t); got != want {
		t.Fatalf("after the kills: %s\nwithout: %s", got, want)
	}
}

func natsServerBinary(t *testing.T) string {
	return binary(t, "github.com/nats-io/nats-server/v2", "nats-server")
}

// freePorts returns n TCP ports of 127.0.0.1 that were free a moment
// ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// node is a NATS server process of a test's cluster.
type node struct {
	*proc
	name             string
	port, monitoring int
}

func (n *node) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", n.port) }

// cluster starts three NATS server processes with JetStream, a cluster
// as scripts/cluster-local.sh starts it but on free ports: the users of
// the credentials in dir (written with a TLS certificate), TLS between
// the nodes and to the clients, their data in the test's temporary
// directories. It returns them once each accepts connections and the
// cluster has a JetStream meta leader. The nodes' logs are the test's
// only if it fails.
func cluster(t *testing.T, dir string) []*node {
	t.Helper()
	bin := natsServerBinary(t)
	ports := freePorts(t, 9) // clients, routes, monitoring
	var routes []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[3+i]))
	}
	tlsBlock := fmt.Sprintf("tls { cert_file: %q, key_file: %q, ca_file: %q, verify: true }",
		filepath.Join(dir, "tls", "server.pem"), filepath.Join(dir, "tls", "server-key.pem"), filepath.Join(dir, "tls", "ca.pem"))
	clientTLS := fmt.Sprintf("tls { cert_file: %q, key_file: %q }", filepath.Join(dir, "tls", "server.pem"), filepath.Join(dir, "tls", "server-key.pem"))
	users, err := os.ReadFile(filepath.Join(dir, "users.conf"))
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]*node, 3)
	for i := range nodes {
		n := &node{name: fmt.Sprintf("n%d", i+1), port: ports[i], monitoring: ports[6+i]}
		conf := filepath.Join(t.TempDir(), n.name+".conf")
		text := fmt.Sprintf("server_name: %s\nhost: 127.0.0.1\nport: %d\nhttp_port: %d\njetstream { store_dir: %q }\n%s\n%s\ncluster {\n  name: veriformer\n  listen: 127.0.0.1:%d\n  routes: [%s]\n  %s\n}\n",
			n.name, n.port, n.monitoring, t.TempDir(), clientTLS, users, ports[3+i], strings.Join(routes, ", "), tlsBlock)
		if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		n.proc = launch(t, "node "+n.name, exec.Command(bin, "-c", conf), true)
		nodes[i] = n
	}
	deadline := time.Now().Add(time.Minute)
	for _, n := range nodes {
		for {
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", n.port), time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s does not accept connections: %v", n.name, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for {
		meta, _, err := leaders(nodes[0])
		if err == nil {
			t.Logf("the JetStream meta leader: %s", meta)
			return nodes
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster has no JetStream meta leader: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// leaders asks node n (its monitoring port, /jsz) for the JetStream meta
// leader and the leaders of the streams, and returns the meta leader's
// name and the number of these groups each node leads.
func leaders(n *node) (string, map[string]int, error) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/jsz?streams=true", n.monitoring))
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("/jsz of node %s: %s: %s", n.name, resp.Status, body)
	}
	var info natsserver.JSInfo
	if err := json.Unmarshal(body, &info); err != nil {
		return "", nil, fmt.Errorf("/jsz of node %s: %w", n.name, err)
	}
	if info.Meta == nil || info.Meta.Leader == "" {
		return "", nil, fmt.Errorf("node %s knows of no meta leader", n.name)
	}
	count := map[string]int{info.Meta.Leader: 1}
	for _, a := range info.AccountDetails {
		for _, s := range a.Streams {
			if s.Cluster == nil || s.Cluster.Leader == "" {
				return "", nil, fmt.Errorf("stream %s has no leader", s.Name)
			}
			count[s.Cluster.Leader]++
		}
	}
	return info.Meta.Leader, count, nil
}

// leading returns the node that leads the most of the JetStream meta
// group and the streams (the meta leader among equals), as the first
// node that answers names them; it asks again for up to 10 s while a
// stream has no leader.
func leading(t *testing.T, nodes []*node) *node {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, n := range nodes {
			meta, count, err := leaders(n)
			if err != nil {
				t.Logf("node %s: %v", n.name, err)
				continue
			}
			t.Logf("leaders, as node %s names them: meta %s, groups led %v", n.name, meta, count)
			var victim *node
			for _, m := range nodes {
				if victim == nil || count[m.name] > count[victim.name] || count[m.name] == count[victim.name] && m.name == meta {
					victim = m
				}
			}
			return victim
		}
		if time.Now().After(deadline) {
			t.Fatal("no node names the cluster's leaders")
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestNodeKilled kills, with SIGKILL, one node of a cluster of three
// NATS server processes with JetStream while a run is on its two
// workers: the node that leads the most of the JetStream meta group and
// the deployment's three streams (the jobs, the results and the blobs'
// object store, each of three replicas; the meta leader among equals),
// as the monitoring endpoint /jsz of the first node that answers names
// them, once the coordinator has published the Groth16 job of the
// segment (after the native job's result). The workers and the
// coordinator know the three nodes' URLs. The run finishes on the two
// nodes left: the coordinator states the statement of the request as
// the deployment's keys give it and exits with status 0, and both
// workers still run (the errors of the queue while the cluster elects
// new leaders end neither).
func TestNodeKilled(t *testing.T) {
	dir, _ := credentials(t, true)
	nodes := cluster(t, dir)
	var urls []string
	for _, n := range nodes {
		urls = append(urls, n.url())
	}
	all := strings.Join(urls, ",")
	workers := []*proc{worker(t, dir, all, 1), worker(t, dir, all, 2)}
	coord := start(t, "coordinator", run(dir, all)...)
	coord.wait(t, `published segment-0`, 5*time.Minute)
	victim := leading(t, nodes)
	t.Logf("killing node %s", victim.name)
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-victim.done
	got := coord.wait(t, statementLine, 5*time.Minute)
	<-coord.done
	if coord.err != nil {
		t.Fatalf("the coordinator after node %s was killed: %v", victim.name, coord.err)
	}
	for _, w := range workers {
		select {
		case <-w.done:
			t.Fatalf("%s ended (%v) after node %s was killed", w.name, w.err, victim.name)
		default:
		}
	}
	if want := reference(t); got != want {
		t.Fatalf("after node %s was killed: %s\nwithout: %s", victim.name, got, want)
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
