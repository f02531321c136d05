//go:build !race

package main

// testPlayers is the room the test plays: the example's 100 players.
const testPlayers = 100
