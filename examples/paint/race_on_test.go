//go:build race

package main

// testPlayers is the room the test plays: 100 bots simulating the whole
// map at 20 frames a second are too much for the race detector on a small
// machine, so under it the room is smaller (same code, fewer clients).
const testPlayers = 20
