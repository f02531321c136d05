//go:build !linux

package transport

import (
	"net"

	"golang.org/x/net/ipv4"
)

// batchConn is only used on Linux; elsewhere datagrams go one by one.
type batchConn interface{}

func newBatchConn(net.PacketConn) batchConn { return nil }

func (ep *endpoint) readBatches()                  {}
func (ep *endpoint) writeBatch(net.Addr, [][]byte) {}
func (ep *endpoint) writeMessages([]ipv4.Message)  {}
