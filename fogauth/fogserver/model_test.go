package fogserver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
)

func TestModel(t *testing.T) {
	m := Model(Config{MaxConcurrentGames: 3})
	if m.Name != room.FogAuthoritative || m.MaxRooms != 3 || m.TickRate != 30 || m.MaxRoomSize != 8 || m.New == nil {
		t.Fatalf("model %+v", m)
	}
	// The channels are the server's lanes verbatim: one handshake for
	// every model's clients.
	if !reflect.DeepEqual(m.Channels, lanes.Channels()) {
		t.Errorf("channels %+v", m.Channels)
	}
	names := map[string]bool{}
	for _, x := range m.Metrics() {
		names[x.Name] = true
	}
	for _, want := range []string{"tickwire_fogauth_games", "tickwire_fogauth_client_bytes_per_second", "tickwire_fogauth_budget_saturated_total",
		"tickwire_fogauth_tick_overruns_total", "tickwire_fogauth_tick_p99_seconds"} {
		if !names[want] {
			t.Errorf("no metric %s", want)
		}
	}
}

func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Room: fogauth.Config{BandwidthPerClientKbps: 1}}, "bandwidth_per_client_kbps"},
		{Config{Room: fogauth.Config{MaxEntitiesPerUpdate: 70000}}, "max_entities_per_update"},
		{Config{Room: fogauth.Config{StalenessBonus: fogauth.MaxStalenessBonus + 1}}, "priority_staleness_bonus"},
		{Config{Room: fogauth.Config{TickRate: 5000}}, "tick_rate"},
		{Config{MaxConcurrentGames: -1}, "max_concurrent_games"},
		{Config{}, "NewGame"},
	} {
		if err := tc.c.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %s", tc.c, err, tc.want)
		}
	}
	noGame := func(int, int, uint64, uint64) (fogauth.Game, int, error) { return nil, 0, fogauth.ErrConfig }
	if err := (Config{NewGame: noGame}).Check(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
