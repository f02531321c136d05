package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// progressLine is the one line on standard error that long work (bench
// steps, long demos) rewrites as it goes: what it is doing and how far.
// It writes only when standard error is a terminal and the output is not
// --json; otherwise it is silent. As an io.Writer, each Write replaces
// the line with the last line written, so code that logs its steps line
// by line can write to it.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer // nil: silent
	shown bool
}

// newProgressLine is the progress line of a command writing to stderr,
// silent unless stderr is a terminal and asJSON is false.
func newProgressLine(stderr io.Writer, asJSON bool) *progressLine {
	if asJSON || !isTerminal(stderr) {
		return &progressLine{}
	}
	return &progressLine{w: stderr}
}

// Write shows the last line of b (without its newline) in place of the
// line shown.
func (p *progressLine) Write(b []byte) (int, error) {
	text := strings.TrimRight(string(b), "\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		fmt.Fprintf(p.w, "\r\x1b[K%s", text)
		p.shown = true
	}
	return len(b), nil
}

// printf shows a formatted line.
func (p *progressLine) printf(format string, args ...any) { fmt.Fprintf(p, format, args...) }

// clear erases the line, before the output that follows the work.
func (p *progressLine) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
