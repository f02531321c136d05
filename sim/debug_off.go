//go:build !tickwire_debug

package sim

// debugChecks enables the expensive self-checks of debug builds; build with
// -tags tickwire_debug to turn them on.
const debugChecks = false
