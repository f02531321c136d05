package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tickwire/tickwire/internal/udpfloor"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
)

// datapathFigures are a server's CPU per datagram against the machine's
// floor, over one measurement: the fields "bench relay" and "bench serve"
// print alike. The server runs in the bench's process, its load in
// processes of their own, so the two CPU times are separate.
type datapathFigures struct {
	Seconds             float64 `json:"seconds"` // length of the measurement
	DatagramsIn         uint64  `json:"datagrams_in"`
	DatagramsOut        uint64  `json:"datagrams_out"`
	BytesPerDatagramIn  float64 `json:"bytes_per_datagram_in"`
	BytesPerDatagramOut float64 `json:"bytes_per_datagram_out"`
	// ServerCPUSeconds is the bench process's user+system CPU over the
	// measurement: the server (and, in bench relay, its four probe
	// clients); LoadgenCPUSeconds the load processes'.
	ServerCPUSeconds  float64 `json:"server_cpu_seconds"`
	LoadgenCPUSeconds float64 `json:"loadgen_cpu_seconds"`
	// CPUUsPerDatagram is the server's CPU per datagram in and out;
	// FloorUsPerDatagram the batched UDP floor for the same mix (receive
	// floor per datagram in, send floor per datagram out, at their mean
	// sizes); RatioToFloor the first over the second.
	CPUUsPerDatagram   float64 `json:"cpu_us_per_datagram"`
	FloorUsPerDatagram float64 `json:"floor_us_per_datagram"`
	RatioToFloor       float64 `json:"ratio_to_floor"`
	// GamesPerCore is one second over the server's CPU per game-second.
	GamesPerCore float64 `json:"games_per_core"`
}

// meter measures a datapathFigures: start takes the counters, stop the
// differences.
type meter struct {
	srv   *server.Server
	loads []*exec.Cmd
	st0   server.Stats
	cpu0  time.Duration
	load0 time.Duration
	t0    time.Time
}

func startMeter(srv *server.Server, loads []*exec.Cmd) *meter {
	return &meter{srv: srv, loads: loads, st0: srv.Stats(), cpu0: cpuTime(), load0: loadCPU(loads), t0: time.Now()}
}

// stop returns the figures since start, for games games (the floor is
// set later, by withFloor).
func (m *meter) stop(games int) datapathFigures {
	cpu, load, st := cpuTime()-m.cpu0, loadCPU(m.loads)-m.load0, m.srv.Stats()
	f := datapathFigures{Seconds: time.Since(m.t0).Seconds(), ServerCPUSeconds: cpu.Seconds(), LoadgenCPUSeconds: load.Seconds(),
		DatagramsIn: st.DatagramsIn - m.st0.DatagramsIn, DatagramsOut: st.DatagramsOut - m.st0.DatagramsOut}
	if f.DatagramsIn > 0 {
		f.BytesPerDatagramIn = float64(st.BytesIn-m.st0.BytesIn) / float64(f.DatagramsIn)
	}
	if f.DatagramsOut > 0 {
		f.BytesPerDatagramOut = float64(st.BytesOut-m.st0.BytesOut) / float64(f.DatagramsOut)
	}
	if n := f.DatagramsIn + f.DatagramsOut; n > 0 {
		f.CPUUsPerDatagram = f.ServerCPUSeconds * 1e6 / float64(n)
	}
	if f.ServerCPUSeconds > 0 && f.DatagramsIn+f.DatagramsOut > 0 { // games that exchanged nothing were not played
		f.GamesPerCore = f.Seconds * float64(games) / f.ServerCPUSeconds
	}
	return f
}

// withFloor sets the floor and the ratio from the floors measured at the
// datagram sizes (recv at the size in, send at the size out).
func (f *datapathFigures) withFloor(recv, send udpfloor.Floor) {
	f.FloorUsPerDatagram = udpfloor.Mix(f.DatagramsIn, f.DatagramsOut, recv, send)
	if f.FloorUsPerDatagram > 0 {
		f.RatioToFloor = f.CPUUsPerDatagram / f.FloorUsPerDatagram
	}
}

// floorPair measures the batched UDP floor at a datapath's datagram
// sizes: the receive side at the size in, the send side at the size out.
func floorPair(in, out float64, count int) (recv, send udpfloor.Floor, err error) {
	if recv, err = udpfloor.Measure(int(in+0.5), count, time.Minute); err != nil {
		return
	}
	send, err = udpfloor.Measure(int(out+0.5), count, time.Minute)
	return
}

// loadCPU is the user+system CPU time of the load processes so far.
func loadCPU(loads []*exec.Cmd) time.Duration {
	var t time.Duration
	for _, c := range loads {
		if c.ProcessState != nil {
			t += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		} else if c.Process != nil {
			t += processCPU(c.Process.Pid)
		}
	}
	return t
}

// processCPU is a running process's user+system CPU time, from
// /proc/PID/stat (Linux; zero elsewhere), in clock ticks of 10 ms.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	// After the command: state is field 3, utime 14 and stime 15.
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// steadyRun is one steady-load measurement of a server in this process:
// the models it hosts, whether it is encrypted, and the load processes.
type steadyRun struct {
	models   []room.Model
	tickRate int
	secure   bool
	games    int // rooms that must play before the measurement
	clients  int // connections of the load, which bounds how long they may take to join
	// load returns the load processes' commands for the server's address
	// and its public key ("" when plaintext).
	load     func(addr, key string) []*exec.Cmd
	settle   time.Duration
	measure  time.Duration
	progress io.Writer
	// after, if set, looks at the server at the end of the measurement.
	after func(*server.Server)
}

// run starts the server and the load, waits for the games to play and
// settle, measures, and stops everything.
func (s steadyRun) run(ctx context.Context) (datapathFigures, error) {
	tcfg := lanes.TransportConfig()
	tcfg.MaxConnections = 1 << 16
	tcfg.AcceptBacklog = 4096
	if s.secure {
		sc, err := securityFlags{exemptLoopback: true}.serverConfig(tcfg.MaxConnections)
		if err != nil {
			return datapathFigures{}, err
		}
		tcfg.Security = sc
	}
	cfg := server.Config{TickRate: s.tickRate, Models: s.models, MaxGames: -1, MaxWaitingPerAddr: -1}
	lr, err := startLocalRelay(ctx, tcfg, cfg)
	if err != nil {
		return datapathFigures{}, err
	}
	defer lr.stop()
	key := ""
	if pk := lr.ln.PublicKey(); pk != nil {
		key = hex.EncodeToString(pk)
	}
	loads := s.load(lr.addr.String(), key)
	for _, c := range loads {
		c.Stderr = s.progress
		if err := c.Start(); err != nil {
			return datapathFigures{}, err
		}
	}
	defer stopLoads(loads)
	playing, err := waitPlaying(ctx, lr.srv, s.games, 30*time.Second+time.Duration(s.clients)*20*time.Millisecond)
	if err != nil {
		return datapathFigures{}, err
	}
	if playing < s.games {
		return datapathFigures{}, fmt.Errorf("only %d of %d games started", playing, s.games)
	}
	if err := sleepCtx(ctx, s.settle); err != nil {
		return datapathFigures{}, err
	}
	m := startMeter(lr.srv, loads)
	if err := sleepCtx(ctx, s.measure); err != nil {
		return datapathFigures{}, err
	}
	f := m.stop(s.games)
	if s.after != nil {
		s.after(lr.srv)
	}
	return f, nil
}

// stopLoads interrupts the load processes and waits for them.
func stopLoads(loads []*exec.Cmd) {
	for _, c := range loads {
		if c.Process != nil {
			c.Process.Signal(os.Interrupt)
		}
	}
	for _, c := range loads {
		if c.Process != nil {
			c.Wait()
		}
	}
}
