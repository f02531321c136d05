package main

import "testing"

// TestParseDrops: the drops of the sockets on the port are summed (two
// SO_REUSEPORT sockets), other ports' are not.
func TestParseDrops(t *testing.T) {
	table := []byte(`   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            
  130: 0100007F:A1B2 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 101 2 0000000000000000 17        
  131: 0100007F:A1B2 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 102 2 0000000000000000 25        
  132: 0100007F:A1B3 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 103 2 0000000000000000 1000      
`)
	if got := parseDrops(table, 0xA1B2); got != 42 {
		t.Fatalf("drops %d, want 42", got)
	}
	if got := parseDrops(table, 0xA1B4); got != 0 {
		t.Fatalf("drops of an unused port %d, want 0", got)
	}
}
