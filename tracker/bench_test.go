package tracker_test

import (
	"testing"

	"github.com/tickwire/tickwire/tracker"
	"github.com/tickwire/tickwire/tracker/storetest"
)

func BenchmarkBrowse10k(b *testing.B) {
	storetest.BrowseLatency(b, tracker.NewDirectory(tracker.Config{MaxListings: -1}))
}
