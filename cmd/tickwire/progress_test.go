package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestProgressLine: the line is silent unless standard error is a
// terminal and the output is not --json; shown, each write replaces the
// line with its last line and clear erases it.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	silent := []*progressLine{newProgressLine(&buf, false), newProgressLine(&buf, true), newProgressLine(os.Stderr, true)}
	for _, p := range silent {
		p.printf("step %d/%d", 1, 3)
		p.clear()
	}
	if buf.Len() != 0 {
		t.Fatalf("a silent progress line wrote %q", buf.String())
	}
	p := &progressLine{w: &buf}
	p.printf("step 1/3\n")
	p.Write([]byte("core: 10 ns\nstep 2/3\n"))
	p.clear()
	p.clear() // nothing shown: nothing to erase
	if got, want := buf.String(), "\r\x1b[Kstep 1/3\r\x1b[Kstep 2/3\r\x1b[K"; got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}
}

// TestDemoProgressNotOnAPipe: a demo whose standard error is not a
// terminal writes no progress there, and its standard output is the
// summary alone.
func TestDemoProgressNotOnAPipe(t *testing.T) {
	code, out, errOut := runCmd(t, "demo", "--players", "2", "--ticks", "30", "--latency", "0s", "--jitter", "0s", "--loss", "0")
	if code != exitOK || errOut != "" || strings.Contains(out, "\r") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestShowElapsed: the build's progress line counts seconds on a
// terminal and is erased when the work ends; elsewhere it is silent.
func TestShowElapsed(t *testing.T) {
	var b strings.Builder
	stop := showElapsed(&progressLine{w: &b}, "building")
	stop()
	if got := b.String(); !strings.HasPrefix(got, "\r\x1b[Kbuilding: 0 s") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("terminal: %q", got)
	}
	showElapsed(&progressLine{}, "building")() // silent, and stops
}
