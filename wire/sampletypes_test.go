package wire

// Sample message types of each prefix class, used by the tests (the
// numbers the seed design gives these messages).
const (
	PlayerInput    MessageType = 0x01
	EntityPosition MessageType = 0x03
	EntityBatch    MessageType = 0x04
	KeepAlive      MessageType = 0x07
	ChunkData      MessageType = 0x8001
	ChatMessage    MessageType = 0x8014
	PartyUpdate    MessageType = 0x802C
	ClientHello    MessageType = 0xC00001
	ScriptBundle   MessageType = 0xC00012
)
