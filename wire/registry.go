package wire

// The message type registry of the netcode design (1-byte types for
// high-frequency traffic, 2-byte for medium, 3-byte for rare).
const (
	// 1-byte types: high frequency (input, positions, block changes).
	PlayerInput      MessageType = 0x01
	InputAck         MessageType = 0x02
	EntityPosition   MessageType = 0x03
	EntityBatch      MessageType = 0x04
	BlockChange      MessageType = 0x05
	LightUpdate      MessageType = 0x06
	KeepAlive        MessageType = 0x07
	SoundEvent       MessageType = 0x08
	EffectTrigger    MessageType = 0x09
	ParticleSpawn    MessageType = 0x0A
	WorldTimeSync    MessageType = 0x0B
	DamageEvent      MessageType = 0x0C
	CollapseEvent    MessageType = 0x0D // batch structural collapse
	FluidUpdate      MessageType = 0x0E // batch fluid level changes
	WeatherUpdate    MessageType = 0x0F // weather state change
	EnvironmentEvent MessageType = 0x10 // storms, seasons, special events
	SignalBatch      MessageType = 0x11 // batch logic signal changes
	VitalStats       MessageType = 0x12 // player HP/hunger/thirst/temp/stamina

	// 2-byte types: medium frequency (actions, UI, chunk data).
	ChunkData           MessageType = 0x8001
	ChunkUnload         MessageType = 0x8002
	PlayerAction        MessageType = 0x8003
	ActionResult        MessageType = 0x8004
	EntitySpawn         MessageType = 0x8005
	EntityDespawn       MessageType = 0x8006
	EntityAnimation     MessageType = 0x8007
	PlayerCorrection    MessageType = 0x8008
	BlockCorrection     MessageType = 0x8009
	OpenUI              MessageType = 0x8010
	CloseUI             MessageType = 0x8011
	UIUpdate            MessageType = 0x8012
	UIAction            MessageType = 0x8013
	ChatMessage         MessageType = 0x8014
	InventoryUpdate     MessageType = 0x8015
	MachineState        MessageType = 0x8016 // automation machine state
	PowerGridState      MessageType = 0x8017 // power production/consumption
	BeltSegmentState    MessageType = 0x8018 // conveyor belt item flow
	EntityBatchSpawn    MessageType = 0x8019 // horde mass spawn
	EntityBatchDespawn  MessageType = 0x801A // mass despawn (AoE kills)
	VehicleState        MessageType = 0x801B // vehicle pos/rot/passengers
	MapData             MessageType = 0x801C // minimap chunk reveal
	WaypointAction      MessageType = 0x801D // create/delete/update waypoint
	DimensionTransition MessageType = 0x801E // entering new dimension
	DimensionReady      MessageType = 0x801F // new dimension ready to render
	QuestUpdate         MessageType = 0x8020 // quest accepted/progressed/done
	TradeAction         MessageType = 0x8021 // player trade proposal/confirm
	NPCInteraction      MessageType = 0x8022 // NPC dialog/response
	MerchantInventory   MessageType = 0x8023 // shop inventory
	StatusEffect        MessageType = 0x8024 // buff/debuff applied/removed
	ClaimEvent          MessageType = 0x8025 // territory claim change
	CraftingState       MessageType = 0x8026 // crafting station state
	MinigameAction      MessageType = 0x8027 // smithing/knapping input
	GameEvent           MessageType = 0x8028 // generic game event (nest, etc.)
	BossState           MessageType = 0x8029 // boss HP/phase/AoE zones
	RespawnRequest      MessageType = 0x802A // player respawn choice
	VehicleMount        MessageType = 0x802B // mount/dismount vehicle
	PartyUpdate         MessageType = 0x802C // party invite/join/leave/kick

	// 3-byte types: rare (handshake, assets, definitions).
	ClientHello         MessageType = 0xC00001
	ServerHello         MessageType = 0xC00002
	AssetRequest        MessageType = 0xC00003
	AssetResponse       MessageType = 0xC00004
	BlockAppearanceList MessageType = 0xC00005
	ItemAppearanceList  MessageType = 0xC00006
	EntityModelDef      MessageType = 0xC00007
	TextureAtlas        MessageType = 0xC00008
	AudioSample         MessageType = 0xC00009
	UIDefinition        MessageType = 0xC0000A
	ClientRuleDef       MessageType = 0xC0000B
	NameRegistrySync    MessageType = 0xC0000C
	ServerConfig        MessageType = 0xC0000D
	Disconnect          MessageType = 0xC0000E
	BiomeDefinitions    MessageType = 0xC0000F // biome data for client rendering
	RecipeList          MessageType = 0xC00010 // all recipes (on connect)
	LootTableDefs       MessageType = 0xC00011 // loot tables (for client prediction)
	ScriptBundle        MessageType = 0xC00012 // scripting language code for client
)

// typeNames is the registry as a table for MessageType.String. It is never
// modified.
var typeNames = map[MessageType]string{
	PlayerInput:         "PlayerInput",
	InputAck:            "InputAck",
	EntityPosition:      "EntityPosition",
	EntityBatch:         "EntityBatch",
	BlockChange:         "BlockChange",
	LightUpdate:         "LightUpdate",
	KeepAlive:           "KeepAlive",
	SoundEvent:          "SoundEvent",
	EffectTrigger:       "EffectTrigger",
	ParticleSpawn:       "ParticleSpawn",
	WorldTimeSync:       "WorldTimeSync",
	DamageEvent:         "DamageEvent",
	CollapseEvent:       "CollapseEvent",
	FluidUpdate:         "FluidUpdate",
	WeatherUpdate:       "WeatherUpdate",
	EnvironmentEvent:    "EnvironmentEvent",
	SignalBatch:         "SignalBatch",
	VitalStats:          "VitalStats",
	ChunkData:           "ChunkData",
	ChunkUnload:         "ChunkUnload",
	PlayerAction:        "PlayerAction",
	ActionResult:        "ActionResult",
	EntitySpawn:         "EntitySpawn",
	EntityDespawn:       "EntityDespawn",
	EntityAnimation:     "EntityAnimation",
	PlayerCorrection:    "PlayerCorrection",
	BlockCorrection:     "BlockCorrection",
	OpenUI:              "OpenUI",
	CloseUI:             "CloseUI",
	UIUpdate:            "UIUpdate",
	UIAction:            "UIAction",
	ChatMessage:         "ChatMessage",
	InventoryUpdate:     "InventoryUpdate",
	MachineState:        "MachineState",
	PowerGridState:      "PowerGridState",
	BeltSegmentState:    "BeltSegmentState",
	EntityBatchSpawn:    "EntityBatchSpawn",
	EntityBatchDespawn:  "EntityBatchDespawn",
	VehicleState:        "VehicleState",
	MapData:             "MapData",
	WaypointAction:      "WaypointAction",
	DimensionTransition: "DimensionTransition",
	DimensionReady:      "DimensionReady",
	QuestUpdate:         "QuestUpdate",
	TradeAction:         "TradeAction",
	NPCInteraction:      "NPCInteraction",
	MerchantInventory:   "MerchantInventory",
	StatusEffect:        "StatusEffect",
	ClaimEvent:          "ClaimEvent",
	CraftingState:       "CraftingState",
	MinigameAction:      "MinigameAction",
	GameEvent:           "GameEvent",
	BossState:           "BossState",
	RespawnRequest:      "RespawnRequest",
	VehicleMount:        "VehicleMount",
	PartyUpdate:         "PartyUpdate",
	ClientHello:         "ClientHello",
	ServerHello:         "ServerHello",
	AssetRequest:        "AssetRequest",
	AssetResponse:       "AssetResponse",
	BlockAppearanceList: "BlockAppearanceList",
	ItemAppearanceList:  "ItemAppearanceList",
	EntityModelDef:      "EntityModelDef",
	TextureAtlas:        "TextureAtlas",
	AudioSample:         "AudioSample",
	UIDefinition:        "UIDefinition",
	ClientRuleDef:       "ClientRuleDef",
	NameRegistrySync:    "NameRegistrySync",
	ServerConfig:        "ServerConfig",
	Disconnect:          "Disconnect",
	BiomeDefinitions:    "BiomeDefinitions",
	RecipeList:          "RecipeList",
	LootTableDefs:       "LootTableDefs",
	ScriptBundle:        "ScriptBundle",
}
