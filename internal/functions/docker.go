// This file runs a function's image in Docker as crossplane render does (the
// Docker runtime).

package functions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
)

// functionPort is the port functions listen on inside their container.
const functionPort = "9443/tcp"

// dockerProbe remembers whether a Docker daemon answered.
type dockerProbe struct {
	command string
	once    sync.Once
	err     error
}

// available runs `docker version` once: the daemon must answer.
func (d *dockerProbe) available() error {
	d.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, d.command, "version", "--format", "{{.Server.Version}}").CombinedOutput()
		if err != nil {
			d.err = fmt.Errorf("docker is enabled but no daemon answered (%s version: %v: %s)", d.command, err, strings.TrimSpace(string(out)))
		}
	})
	return d.err
}

// DockerAvailable says whether the docker command reaches a daemon.
func DockerAvailable(command string) error {
	if command == "" {
		command = "docker"
	}
	return (&dockerProbe{command: command}).available()
}

// dockerBackend runs a function's image as `crossplane render` does: a
// container started with --insecure, its port 9443 published on a free
// loopback port, removed on close.
type dockerBackend struct {
	name, image  string
	env          []string
	probe        *dockerProbe
	startTimeout time.Duration
	logf         func(string, ...any)

	mu     sync.Mutex
	id     string
	target string
	cc     *grpc.ClientConn
	dead   bool
	closed bool
	last   string // output of the last failed docker command
}

func newDockerBackend(name, image, env string, probe *dockerProbe, startTimeout time.Duration, logf func(string, ...any)) *dockerBackend {
	if startTimeout <= 0 {
		startTimeout = 5 * time.Minute // a first pull may take long
	}
	b := &dockerBackend{name: name, image: image, probe: probe, startTimeout: startTimeout, logf: logf}
	for _, kv := range strings.Split(env, ",") {
		if strings.Contains(kv, "=") {
			b.env = append(b.env, kv)
		}
	}
	return b
}

func (b *dockerBackend) source() (Source, string) { return SourceDocker, b.image }
func (b *dockerBackend) waitForReady() bool       { return true }

func (b *dockerBackend) docker(ctx context.Context, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, b.probe.command, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", b.probe.command, args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

func (b *dockerBackend) conn(ctx context.Context) (context.Context, func(), *grpc.ClientConn, error) {
	if err := b.probe.available(); err != nil {
		return nil, nil, nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, nil, nil, errors.New("the function registry is closed")
	}
	if b.cc != nil && !b.dead {
		return ctx, func() {}, b.cc, nil
	}
	b.stopLocked()
	// Starting is not tied to the call: a cancelled call leaves the
	// container starting for the next one.
	sctx, cancel := context.WithTimeout(context.Background(), b.startTimeout)
	defer cancel()
	args := []string{"run", "--detach", "--rm", "--publish", "127.0.0.1::" + functionPort}
	for _, kv := range b.env {
		args = append(args, "--env", kv)
	}
	args = append(args, b.image, "--insecure")
	id, err := b.docker(sctx, args...)
	if err != nil {
		return nil, nil, nil, err
	}
	b.id = id
	port, err := b.docker(sctx, "port", id, functionPort)
	if err != nil {
		b.stopLocked()
		return nil, nil, nil, err
	}
	target := strings.SplitN(port, "\n", 2)[0]
	cc, err := dial(target)
	if err != nil {
		b.stopLocked()
		return nil, nil, nil, err
	}
	b.target, b.cc, b.dead = target, cc, false
	if b.logf != nil {
		b.logf("function %s: started container %.12s from %s on %s", b.name, id, b.image, target)
	}
	return ctx, func() {}, cc, nil
}

// failed checks whether the container still runs; if not, the next call
// starts a new one.
func (b *dockerBackend) failed(error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := b.docker(ctx, "inspect", "--format", "{{.State.Running}}", b.id)
	if err != nil || out != "true" {
		b.dead = true
		logs, _ := b.docker(ctx, "logs", "--tail", "20", b.id)
		b.last = logs
	}
}

func (b *dockerBackend) state() (string, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead {
		return "container stopped", b.last
	}
	return "", ""
}

func (b *dockerBackend) stopLocked() {
	if b.cc != nil {
		b.cc.Close()
		b.cc = nil
	}
	if b.id != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = b.docker(ctx, "rm", "--force", b.id)
		b.id = ""
	}
}

func (b *dockerBackend) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.stopLocked()
	return nil
}
