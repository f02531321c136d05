package netsim

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// arrival is one packet received by a collector, at a virtual time
// measured from the start of the test.
type arrival struct {
	idx  int
	at   time.Duration
	data []byte
}

// collect reads c in a goroutine until it is closed; the returned function
// closes c and returns what arrived.
func collect(t *testing.T, c net.PacketConn) func() []arrival {
	t.Helper()
	start := time.Now()
	done := make(chan []arrival)
	go func() {
		var got []arrival
		buf := make([]byte, 64<<10)
		for {
			n, _, err := c.ReadFrom(buf)
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					t.Errorf("read: %v", err)
				}
				done <- got
				return
			}
			got = append(got, arrival{
				idx: int(binary.BigEndian.Uint64(buf)), at: time.Since(start),
				data: append([]byte(nil), buf[:n]...),
			})
		}
	}()
	return func() []arrival {
		c.Close()
		return <-done
	}
}

// packet returns a size-byte payload starting with idx.
func packet(idx, size int) []byte {
	b := make([]byte, max(size, 8))
	binary.BigEndian.PutUint64(b, uint64(idx))
	for i := 8; i < len(b); i++ {
		b[i] = byte(i)
	}
	return b
}

// memPair returns two endpoints of a fresh MemNetwork.
func memPair(t *testing.T) (*MemConn, *MemConn) {
	t.Helper()
	n := NewMemNetwork()
	a, err := n.ListenPacket("")
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.ListenPacket("")
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// sendEvery writes n packets from src to dst, one every gap.
func sendEvery(t *testing.T, src net.PacketConn, dst net.Addr, n, size int, gap time.Duration) {
	t.Helper()
	for i := range n {
		if _, err := src.WriteTo(packet(i, size), dst); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		time.Sleep(gap)
	}
}

// TestConnDeliversAtDecidedTimes checks the shell against the pure model:
// in virtual time every packet arrives exactly when Path decided.
func TestConnDeliversAtDecidedTimes(t *testing.T) {
	link := Link{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05, Duplicate: 0.02}
	const n, gap = 2000, time.Millisecond
	synctest.Test(t, func(t *testing.T) {
		ma, mb := memPair(t)
		a := Wrap(ma, Config{Seed: 99, Out: link})
		defer a.Close()
		stop := collect(t, mb)
		sendEvery(t, a, mb.LocalAddr(), n, 100, gap)
		time.Sleep(time.Second)
		got := stop()

		// The expected arrivals, from the model alone.
		p := NewPath(link, 99, 0)
		var want []arrival
		for i := range n {
			d := p.Decide(time.Time{}.Add(time.Duration(i)*gap), 100)
			if d.Drop != Kept {
				continue
			}
			want = append(want, arrival{idx: i, at: d.At.Sub(time.Time{})})
			if !d.DupAt.IsZero() {
				want = append(want, arrival{idx: i, at: d.DupAt.Sub(time.Time{})})
			}
		}
		byTime := func(x, y arrival) int {
			if c := x.at - y.at; c != 0 {
				return int(c)
			}
			return x.idx - y.idx
		}
		slices.SortStableFunc(want, byTime)
		slices.SortStableFunc(got, byTime)
		if len(got) != len(want) {
			t.Fatalf("%d arrivals, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i].idx != want[i].idx || got[i].at != want[i].at {
				t.Fatalf("arrival %d: packet %d at %v, want packet %d at %v",
					i, got[i].idx, got[i].at, want[i].idx, want[i].at)
			}
			if lat := got[i].at - time.Duration(got[i].idx)*gap; lat < 30*time.Millisecond || lat > 50*time.Millisecond {
				t.Fatalf("packet %d took %v, want 40ms ± 10ms", got[i].idx, lat)
			}
		}
		st := a.Stats().Out
		if st.Packets != n || st.Delivered != uint64(len(want)) || st.Lost+st.Delivered-st.Duplicated != n {
			t.Errorf("stats %+v, want %d sent and %d delivered", st, n, len(want))
		}
	})
}

func TestConnReorders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ma, mb := memPair(t)
		a := Wrap(ma, Config{Seed: 1, Out: Link{Latency: 5 * time.Millisecond, Reorder: 0.05}})
		defer a.Close()
		stop := collect(t, mb)
		sendEvery(t, a, mb.LocalAddr(), 2000, 50, time.Millisecond)
		time.Sleep(time.Second)
		got := stop()
		late, highest := 0, -1
		for _, g := range got {
			if g.idx < highest {
				late++
			}
			highest = max(highest, g.idx)
		}
		st := a.Stats().Out
		if len(got) != 2000 || late == 0 || uint64(late) != st.Reordered {
			t.Errorf("%d arrived, %d overtaken, %d held back; want 2000 arrived and every held-back packet overtaken",
				len(got), late, st.Reordered)
		}
	})
}

func TestConnBandwidth(t *testing.T) {
	const rate, size = 125_000, 1000 // 1 Mbit/s
	synctest.Test(t, func(t *testing.T) {
		ma, mb := memPair(t)
		a := Wrap(ma, Config{Out: Link{BandwidthBps: rate, Latency: 20 * time.Millisecond}})
		defer a.Close()
		stop := collect(t, mb)
		sendEvery(t, a, mb.LocalAddr(), 1500, size, 4*time.Millisecond) // twice the rate for 6 s
		time.Sleep(time.Second)
		got := stop()
		span := got[len(got)-1].at - got[0].at
		measured := float64((len(got)-1)*size) / span.Seconds()
		if measured < rate*0.95 || measured > rate*1.05 {
			t.Errorf("delivered %.0f B/s over %v, want %d ± 5%%", measured, span, rate)
		}
		st := a.Stats().Out
		if st.QueueDropped == 0 || st.Delivered+st.QueueDropped != 1500 {
			t.Errorf("stats %+v: want tail drops and every packet accounted for", st)
		}
	})
}

func TestConnInDirection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ma, mb := memPair(t)
		a := Wrap(ma, Config{In: Link{Latency: 30 * time.Millisecond, Corrupt: 1}})
		defer mb.Close()
		stop := collect(t, a)
		for range 100 {
			mb.WriteTo(make([]byte, 64), a.LocalAddr()) // all zero: a flipped bit shows
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Second)
		got := stop()
		if len(got) != 100 {
			t.Fatalf("%d arrived, want 100", len(got))
		}
		for i, g := range got {
			if want := time.Duration(i)*time.Millisecond + 30*time.Millisecond; g.at != want {
				t.Errorf("packet %d arrived at %v, want %v", i, g.at, want)
			}
			ones := 0
			for _, b := range g.data {
				for ; b != 0; b &= b - 1 {
					ones++
				}
			}
			if ones != 1 {
				t.Errorf("packet %d has %d bits flipped, want 1", i, ones)
			}
		}
		if st := a.Stats(); st.In.Corrupted != 100 || st.In.Delivered != 100 || st.Out.Packets != 0 {
			t.Errorf("stats %+v", st)
		}
	})
}

func TestConnReadDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ma, _ := memPair(t)
		a := Wrap(ma, Config{})
		defer a.Close()
		start := time.Now()
		a.SetReadDeadline(start.Add(50 * time.Millisecond))
		_, _, err := a.ReadFrom(make([]byte, 10))
		if !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != 50*time.Millisecond {
			t.Fatalf("after %v: %v, want a timeout at 50ms", time.Since(start), err)
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("%v is not a net.Error timeout", err)
		}
		// A deadline moved while ReadFrom waits takes effect.
		a.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		go func() {
			time.Sleep(20 * time.Millisecond)
			a.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		}()
		start = time.Now()
		if _, _, err := a.ReadFrom(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != 120*time.Millisecond {
			t.Fatalf("after %v: %v, want a timeout at 120ms", time.Since(start), err)
		}
		// A past write deadline fails writes; clearing it restores them.
		a.SetWriteDeadline(time.Now().Add(-time.Second))
		if _, err := a.WriteTo([]byte{1}, ma.LocalAddr()); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("write after deadline: %v", err)
		}
		a.SetDeadline(time.Time{})
		if _, err := a.WriteTo([]byte{1}, ma.LocalAddr()); err != nil {
			t.Errorf("write without deadline: %v", err)
		}
	})
}

func TestConnCloseUnblocksReaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ma, _ := memPair(t)
		a := Wrap(ma, Config{Out: Link{Latency: time.Second}})
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				_, _, err := a.ReadFrom(make([]byte, 10))
				errs <- err
			}()
		}
		a.WriteTo([]byte{1}, ma.LocalAddr()) // in flight when closed
		synctest.Wait()
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := <-errs; !errors.Is(err, net.ErrClosed) {
				t.Errorf("blocked read returned %v, want net.ErrClosed", err)
			}
		}
		if _, err := a.WriteTo([]byte{1}, ma.LocalAddr()); !errors.Is(err, net.ErrClosed) {
			t.Errorf("write after close: %v", err)
		}
		if err := a.Close(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("second close: %v", err)
		}
		if a.LocalAddr().String() != ma.LocalAddr().String() {
			t.Errorf("LocalAddr %v, want %v", a.LocalAddr(), ma.LocalAddr())
		}
	})
}

func TestConnReadQueueOverflow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ma, mb := memPair(t)
		a := Wrap(ma, Config{ReadQueue: 10})
		defer a.Close()
		defer mb.Close()
		sendEvery(t, mb, a.LocalAddr(), 25, 8, 0)
		synctest.Wait()
		if st := a.Stats().In; st.Delivered != 10 || st.Overflow != 15 || st.Packets != 25 {
			t.Errorf("stats %+v, want 10 delivered and 15 overflowed", st)
		}
	})
}

func TestConnFailedWritesAreCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ma, _ := memPair(t)
		a := Wrap(ma, Config{})
		defer a.Close()
		if _, err := a.WriteTo([]byte{1}, nil); err != nil {
			t.Fatal(err) // the wrapped write fails later, asynchronously
		}
		synctest.Wait()
		if st := a.Stats().Out; st.Failed != 1 || st.Delivered != 0 {
			t.Errorf("stats %+v, want 1 failed", st)
		}
	})
}

func TestConnSetLinks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ma, mb := memPair(t)
		a := Wrap(ma, Config{})
		defer a.Close()
		stop := collect(t, mb)
		sendEvery(t, a, mb.LocalAddr(), 10, 8, time.Millisecond)
		a.SetLinks(Link{Loss: 1}, Link{})
		sendEvery(t, a, mb.LocalAddr(), 10, 8, time.Millisecond)
		synctest.Wait()
		if got := stop(); len(got) != 10 {
			t.Errorf("%d arrived, want the 10 sent before the link was cut", len(got))
		}
	})
}

// TestConnRepeatable runs one impaired exchange twice: the same seed gives
// the same arrivals, to the nanosecond.
func TestConnRepeatable(t *testing.T) {
	link := Link{Latency: 20 * time.Millisecond, Jitter: 8 * time.Millisecond, Loss: 0.1,
		Burst: Burst{Enter: 0.02, Exit: 0.3}, Duplicate: 0.05, Reorder: 0.05, Corrupt: 0.05, BandwidthBps: 200_000}
	run := func() []arrival {
		var got []arrival
		synctest.Test(t, func(t *testing.T) {
			ma, mb := memPair(t)
			a := Wrap(ma, Config{Seed: 5, Out: link})
			defer a.Close()
			stop := collect(t, mb)
			sendEvery(t, a, mb.LocalAddr(), 500, 300, time.Millisecond)
			time.Sleep(time.Second)
			got = stop()
		})
		return got
	}
	first, second := run(), run()
	if len(first) == 0 || !slices.EqualFunc(first, second, func(x, y arrival) bool {
		return x.idx == y.idx && x.at == y.at && slices.Equal(x.data, y.data)
	}) {
		t.Errorf("two runs differ (%d and %d arrivals)", len(first), len(second))
	}
}

// TestConnReordersAndReleasesInBursts: the wrapped PacketConn is the
// impairing wrapper of the congestion issue (a plain net.PacketConn):
// with JitterReorders packets sent 1 ms apart swap order, and with
// DeliveryInterval they arrive only on the grid, several at a time.
func TestConnReordersAndReleasesInBursts(t *testing.T) {
	const grid = 5 * time.Millisecond
	link := Link{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, JitterReorders: true, DeliveryInterval: grid}
	synctest.Test(t, func(t *testing.T) {
		ma, mb := memPair(t)
		a := Wrap(ma, Config{Seed: 5, Out: link})
		defer a.Close()
		epoch := time.Now() // a multiple of the grid since the Unix epoch
		stop := collect(t, mb)
		sendEvery(t, a, mb.LocalAddr(), 500, 100, time.Millisecond)
		time.Sleep(time.Second)
		got := stop()
		if len(got) != 500 {
			t.Fatalf("%d arrivals, want 500", len(got))
		}
		swapped, bursts := 0, map[time.Duration]int{}
		for i, g := range got {
			if epoch.Add(g.at).UnixNano()%int64(grid) != 0 {
				t.Fatalf("packet %d arrives at %v, off the %v grid", g.idx, g.at, grid)
			}
			if i > 0 && g.idx < got[i-1].idx {
				swapped++
			}
			bursts[g.at]++
		}
		if swapped < 50 || len(bursts) > 500/3 {
			t.Errorf("%d packets overtaken, %d bursts", swapped, len(bursts))
		}
	})
}
