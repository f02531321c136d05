package transport

// Sequence numbers wrap around. They are compared with serial-number
// arithmetic (RFC 1982): a is after b when the signed distance a-b is
// positive, which stays correct across the wrap as long as the two values
// are less than half the number space apart.

// seqDiff32 is the signed distance a-b between two datagram sequences.
func seqDiff32(a, b uint32) int32 { return int32(a - b) }

// seqDiff16 is the signed distance a-b between two channel sequences.
func seqDiff16(a, b uint16) int16 { return int16(a - b) }
