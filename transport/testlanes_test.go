package transport

// A lane set for the tests: reliable-ordered orders, unreliable-sequenced
// control, reliable chat, unreliable voice with weights, and a bulk lane
// that compresses and fragments. (The server's real lane table is
// server/lanes.)
const (
	testLaneOrders  ChannelID = 1
	testLaneControl ChannelID = 2
	testLaneChat    ChannelID = 3
	testLaneVoice   ChannelID = 4
	testLaneBulk    ChannelID = 5
)

func testLanes() []ChannelConfig {
	return []ChannelConfig{
		{ID: testLaneOrders, Name: "orders", Reliability: ReliableOrdered, Priority: Critical, Weight: 1, BufferLimit: 4 << 10},
		{ID: testLaneControl, Name: "control", Reliability: UnreliableSequenced, Priority: Critical, Weight: 1, BufferLimit: 2 << 10},
		{ID: testLaneChat, Name: "chat", Reliability: ReliableOrdered, Priority: High, Weight: 1, BufferLimit: 8 << 10},
		{ID: testLaneVoice, Name: "voice", Reliability: Unreliable, Priority: High, Weight: 2, BufferLimit: 16 << 10},
		{ID: testLaneBulk, Name: "bulk", Reliability: Unreliable, Priority: Bulk, Weight: 1, BufferLimit: 64 << 10,
			Compression: CompressAboveThreshold, CompressionThreshold: 1024, AllowFragmentation: true},
	}
}
