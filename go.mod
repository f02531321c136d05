module github.com/tickwire/tickwire

go 1.26.0

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/klauspost/compress v1.20.3
	golang.org/x/net v0.62.0
)

require golang.org/x/sys v0.49.0 // indirect
