package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tickwire/tickwire/agones"
)

// fakeSidecar answers the Agones SDK's REST calls with 200 and records
// them ("POST /ready", …).
type fakeSidecar struct {
	mu    sync.Mutex
	calls []string
}

func (s *fakeSidecar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	w.Write([]byte("{}"))
}

// count is how many times the sidecar was called so.
func (s *fakeSidecar) count(call string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c == call {
			n++
		}
	}
	return n
}

// startAgonesServe runs "tickwire serve --agones" (plus args) against a
// fake sidecar and returns the sidecar, its HTTP server, the server's
// UDP and admin addresses and a function that stops the server and
// returns its exit code.
func startAgonesServe(t *testing.T, args ...string) (*fakeSidecar, *httptest.Server, string, string, func() int) {
	sc := &fakeSidecar{}
	hs := httptest.NewServer(sc)
	t.Cleanup(hs.Close)
	u, _ := url.Parse(hs.URL)
	t.Setenv(agones.EnvPort, u.Port())
	udp, adm := freeAddr(t, "udp"), freeAddr(t, "tcp")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		done <- run(ctx, append([]string{"serve", "--agones", "--listen", udp, "--admin", adm, "--exempt-loopback"}, args...), io.Discard, &errOut)
	}()
	stop := func() int { cancel(); return <-done }
	t.Cleanup(func() { cancel() })
	waitReady(t, "http://"+adm+"/readyz")
	return sc, hs, udp, adm, stop
}

// TestServeAgonesReadyAgainAfterMatch: a server that allocated itself for
// a match marks itself Ready again once the match ended (so that a
// Buffer-autoscaled fleet can scale it down), and its /readyz fails while
// the SDK sidecar is unreachable.
func TestServeAgonesReadyAgainAfterMatch(t *testing.T) {
	sc, hs, udp, adm, stop := startAgonesServe(t)
	if code, _, _ := runCmd(t, "bot", "--server", udp, "--room", "one", "--players", "2", "--ticks", "60"); code != 0 {
		t.Fatalf("bot exit %d", code)
	}
	waitFor(t, "allocated, then ready again", func() bool {
		return sc.count("POST /allocate") == 1 && sc.count("POST /ready") == 2
	})
	if n := sc.count("POST /shutdown"); n != 0 {
		t.Fatalf("a reused server asked for shutdown %d times", n)
	}
	hs.CloseClientConnections()
	hs.Close() // the sidecar is gone
	waitFor(t, "/readyz answers 503 naming agones", func() bool {
		code, body := httpGet(t, "http://"+adm+"/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "agones")
	})
	if code := stop(); code != 0 {
		t.Fatalf("serve exit %d", code)
	}
}

// TestServeAgonesOneMatch: with --agones-one-match the server asks for
// its shutdown once its match ended and is not Ready again.
func TestServeAgonesOneMatch(t *testing.T) {
	sc, _, udp, _, stop := startAgonesServe(t, "--agones-one-match")
	if code, _, _ := runCmd(t, "bot", "--server", udp, "--room", "one", "--players", "2", "--ticks", "60"); code != 0 {
		t.Fatalf("bot exit %d", code)
	}
	waitFor(t, "shutdown asked", func() bool { return sc.count("POST /shutdown") == 1 })
	if code, out, errOut := runCmd(t, "bot", "--server", udp, "--room", "two", "--players", "1", "--ticks", "10"); code == 0 || !strings.Contains(out+errOut, "draining") {
		t.Errorf("a new room after the server's one match: exit %d: %s%s", code, out, errOut)
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exit %d", code)
	}
	if n := sc.count("POST /ready"); n != 1 {
		t.Fatalf("ready %d times, want once", n)
	}
}

// TestFleetManifest checks deploy/agones/fleet.yaml as an operator would
// before applying it: its arguments parse as "tickwire serve" flags, the
// drain timeout ends before the termination grace period, the admin token
// comes from a Secret, and the records are written to a volume that
// outlives the pod, one database file per pod.
func TestFleetManifest(t *testing.T) {
	b, err := os.ReadFile("../../deploy/agones/fleet.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type env struct {
		Name      string `yaml:"name"`
		ValueFrom struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	}
	type pod struct {
		TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
		Containers                    []struct {
			Name         string `yaml:"name"`
			Args         []string
			Env          []env
			VolumeMounts []struct {
				Name      string `yaml:"name"`
				MountPath string `yaml:"mountPath"`
			} `yaml:"volumeMounts"`
		}
		Volumes []struct {
			Name                  string    `yaml:"name"`
			EmptyDir              *struct{} `yaml:"emptyDir"`
			PersistentVolumeClaim *struct {
				ClaimName string `yaml:"claimName"`
			} `yaml:"persistentVolumeClaim"`
		}
	}
	var fleet struct {
		Kind string
		Spec struct {
			Template struct {
				Spec struct {
					Template struct{ Spec pod }
				}
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for fleet.Kind != "Fleet" {
		if err := dec.Decode(&fleet); err != nil {
			t.Fatalf("no Fleet in the manifest: %v", err)
		}
	}
	p := fleet.Spec.Template.Spec.Template.Spec
	if len(p.Containers) != 1 {
		t.Fatalf("%d containers, want tickwire alone", len(p.Containers))
	}
	c := p.Containers[0]
	envs := map[string]env{}
	for _, e := range c.Env {
		envs[e.Name] = e
	}
	// Kubernetes expands $(VAR) in args from the container's env.
	var expanded []string
	vars := regexp.MustCompile(`\$\(([A-Z_]+)\)`)
	for _, a := range c.Args {
		for _, m := range vars.FindAllStringSubmatch(a, -1) {
			if _, ok := envs[m[1]]; !ok {
				t.Errorf("argument %q uses $(%s), which the container's env does not set", a, m[1])
			}
		}
		expanded = append(expanded, vars.ReplaceAllString(a, "x"))
	}
	if len(expanded) == 0 || expanded[0] != "serve" {
		t.Fatalf("args %v: want serve", c.Args)
	}
	f, err := parseServeFlags(expanded[1:], io.Discard)
	if err != nil {
		t.Fatalf("the fleet's serve flags: %v", err)
	}
	if !f.op.agones {
		t.Error("no --agones")
	}
	grace := time.Duration(p.TerminationGracePeriodSeconds) * time.Second
	if f.op.drainTimeout <= 0 || f.op.drainTimeout > grace-10*time.Second {
		t.Errorf("--drain-timeout %v: want positive and at least 10 s below terminationGracePeriodSeconds (%v)", f.op.drainTimeout, grace)
	}
	if !isLoopback(f.admin) {
		token := vars.FindStringSubmatch(argValue(c.Args, "--admin-token"))
		if token == nil || envs[token[1]].ValueFrom.SecretKeyRef == nil {
			t.Errorf("--admin %s is not loopback: want --admin-token=$(VAR) with VAR from a Secret", f.admin)
		}
	}
	db := argValue(c.Args, "--db")
	name := vars.FindStringSubmatch(path.Base(db))
	if name == nil || envs[name[1]].ValueFrom.FieldRef == nil || envs[name[1]].ValueFrom.FieldRef.FieldPath != "metadata.name" {
		t.Errorf("--db %q: want a file named after the pod ($(VAR) with VAR the pod's metadata.name): one writer per database", db)
	}
	var volume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == path.Dir(db) {
			volume = m.Name
		}
	}
	found := false
	for _, v := range p.Volumes {
		if v.Name == volume {
			found = true
			if v.EmptyDir != nil || v.PersistentVolumeClaim == nil {
				t.Errorf("--db %q is on volume %q, which dies with the pod: want a PersistentVolumeClaim", db, volume)
			}
		}
	}
	if !found {
		t.Errorf("--db %q is on no volume of the pod", db)
	}
}

// argValue is the value of --name=value among args ("" if absent).
func argValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}
