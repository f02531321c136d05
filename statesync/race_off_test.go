//go:build !race

package statesync_test

const raceEnabled = false
