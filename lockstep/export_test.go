package lockstep

// SnapshotStep runs one snapshot check of g against x, for the forgery
// tests.
func SnapshotStep(g *GameLoop, x SnapshotExchange) { g.snapshotStep(x) }
