//go:build tickwire_debug

package sim

// debugChecks enables the expensive self-checks of debug builds.
const debugChecks = true
