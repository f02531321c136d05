package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/protocol"
)

// codecReport is the JSON object "tickwire bench codec --json" prints.
type codecReport struct {
	Seed             uint64  `json:"seed"`
	Players          int     `json:"players"`
	TicksPerSecond   int     `json:"ticks_per_second"`
	Ticks            int     `json:"ticks"`
	Orders           int     `json:"orders"`
	Packets          int     `json:"packets"`
	MaxPacketBytes   int     `json:"max_packet_bytes"`
	NaiveBytes       int     `json:"naive_bytes"`
	TLVBytes         int     `json:"tlv_bytes"`
	Ratio            float64 `json:"ratio"`
	TLVBytesPerOrder float64 `json:"tlv_bytes_per_order"`
	EncodeNsPerOrder float64 `json:"encode_ns_per_order"`
	DecodeNsPerOrder float64 `json:"decode_ns_per_order"`
}

// benchCodec measures NativeCodec on the seeded order traffic model against
// the naive fixed-width baseline (see package ordertraffic).
func benchCodec(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench codec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	seed := fs.Uint64("seed", 1, "traffic model seed")
	players := fs.Int("players", 8, "players")
	ticks := fs.Int("ticks", 10_000, "ticks")
	tps := fs.Int("tps", 30, "ticks per second")
	minTime := fs.Duration("benchtime", 500*time.Millisecond, "minimum time spent timing encode and decode each")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	m := ordertraffic.Model{Seed: *seed, Players: *players, Ticks: *ticks, TicksPerSecond: *tps}
	traffic := ordertraffic.Generate(m)
	codec := protocol.NativeCodec{}
	packets, err := codec.Encode(nil, traffic)
	if err != nil {
		return err
	}
	r := codecReport{Seed: *seed, Players: *players, TicksPerSecond: *tps, Ticks: *ticks, Packets: len(packets),
		NaiveBytes: ordertraffic.NaiveBytes(traffic, *players)}
	for _, t := range traffic {
		r.Orders += len(t.Orders)
	}
	for _, p := range packets {
		r.TLVBytes += len(p)
		r.MaxPacketBytes = max(r.MaxPacketBytes, len(p))
	}
	if r.TLVBytes > 0 {
		r.Ratio = float64(r.NaiveBytes) / float64(r.TLVBytes)
	}
	if r.Orders == 0 {
		return fmt.Errorf("%w: the traffic model produced no orders", errUsage)
	}
	r.TLVBytesPerOrder = float64(r.TLVBytes) / float64(r.Orders)
	encode := func() error {
		var err error
		packets, err = codec.Encode(packets[:0], traffic)
		return err
	}
	decoded := make([]protocol.TickOrders, 0, len(traffic))
	decode := func() error {
		decoded = decoded[:0]
		for _, p := range packets {
			var err error
			if decoded, err = codec.Decode(decoded, p); err != nil {
				return err
			}
		}
		return nil
	}
	if r.EncodeNsPerOrder, err = timePerOrder(ctx, encode, r.Orders, *minTime); err != nil {
		return err
	}
	if r.DecodeNsPerOrder, err = timePerOrder(ctx, decode, r.Orders, *minTime); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(r)
	}
	fmt.Fprintf(stdout, "order codec on %d ticks × %d players at %d tps (seed %d): %d orders in %d packets (largest %d bytes)\n",
		r.Ticks, r.Players, r.TicksPerSecond, r.Seed, r.Orders, r.Packets, r.MaxPacketBytes)
	fmt.Fprintf(stdout, "naive %d bytes, TLV %d bytes (%.1f per order): ratio %.2f\n", r.NaiveBytes, r.TLVBytes, r.TLVBytesPerOrder, r.Ratio)
	fmt.Fprintf(stdout, "encode %.1f ns/order, decode %.1f ns/order\n", r.EncodeNsPerOrder, r.DecodeNsPerOrder)
	return nil
}

// timePerOrder runs f until minTime has passed and returns ns per order.
func timePerOrder(ctx context.Context, f func() error, orders int, minTime time.Duration) (float64, error) {
	if err := f(); err != nil { // warm up
		return 0, err
	}
	start := time.Now()
	runs := 0
	for time.Since(start) < minTime || runs == 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := f(); err != nil {
			return 0, err
		}
		runs++
	}
	return float64(time.Since(start).Nanoseconds()) / float64(runs*orders), nil
}
