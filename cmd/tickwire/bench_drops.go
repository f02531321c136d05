package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// receiveDrops is the number of datagrams the kernel dropped at the UDP
// sockets bound to port because their receive buffer was full (every
// SO_REUSEPORT socket of a relay together), from the drops column of
// /proc/net/udp and /proc/net/udp6; 0 where those files do not exist.
func receiveDrops(port int) uint64 {
	var n uint64
	for _, f := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		b, err := os.ReadFile(f)
		if err == nil {
			n += parseDrops(b, port)
		}
	}
	return n
}

// parseDrops sums the drops of the sockets bound to port in a
// /proc/net/udp table: local_address is "ADDR:PORT" in hex, drops the
// last column.
func parseDrops(table []byte, port int) uint64 {
	suffix := fmt.Sprintf(":%04X", port)
	var n uint64
	sc := bufio.NewScanner(bytes.NewReader(table))
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 13 || !strings.HasSuffix(f[1], suffix) {
			continue
		}
		if d, err := strconv.ParseUint(f[len(f)-1], 10, 64); err == nil {
			n += d
		}
	}
	return n
}
