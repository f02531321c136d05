package tracker_test

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/tracker"
	"github.com/tickwire/tickwire/tracker/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) tracker.Store { return &tracker.MemoryStore{} }, time.Unix(1_800_000_000, 0))
}
