// Command genwasm builds the WebAssembly client into web/page/assets, for
// a tickwire binary that embeds it (`go generate ./web/page`).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tickwire/tickwire/web/page"
)

func main() {
	dir := "assets"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := page.BuildClient(context.Background(), dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
