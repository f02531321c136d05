package records

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Outcomes of a match.
const (
	OutcomeRunning    = "running"    // started, not ended yet
	OutcomeFinished   = "finished"   // played to its end
	OutcomeAbandoned  = "abandoned"  // every player left
	OutcomeDesync     = "desync"     // ended by a desync
	OutcomeShutdown   = "shutdown"   // ended by the server's shutdown or drain deadline
	OutcomeUnfinished = "unfinished" // the server died while it ran
)

// ErrNotFound is a match id the database does not hold.
var ErrNotFound = errors.New("records: no such match")

// ErrInUse is a database another server (or another Open) writes: one
// writer per database. The error wrapping it names the other process.
var ErrInUse = errors.New("records: the database is in use by another server")

// Player is a seated player of a match.
type Player struct {
	Player int `json:"player"`
	// Name is the player's name, if the model knows one.
	Name string `json:"name,omitempty"`
	// PublicKey is the player's Ed25519 key (hex) from the secure
	// handshake, "" on a plaintext server.
	PublicKey string `json:"public_key,omitempty"`
}

// Removal is a player removed during the match.
type Removal struct {
	Player int    `json:"player"`
	AtTick uint64 `json:"at_tick"`
	Reason string `json:"reason"`
}

// Record is one match.
type Record struct {
	ID           int64     `json:"id"`
	Room         string    `json:"room"`
	NetworkModel string    `json:"network_model"`
	MatchType    string    `json:"match_type,omitempty"`
	Players      []Player  `json:"players"`
	StartedAt    time.Time `json:"started_at"`
	EndedAt      time.Time `json:"ended_at,omitzero"`
	// UpdatedAt is the time of the row's last write: the start, a
	// progress update while the match runs (Progress), the end. An
	// unfinished match ended some time after it.
	UpdatedAt      time.Time `json:"updated_at,omitzero"`
	Ticks          uint64    `json:"ticks"`
	Outcome        string    `json:"outcome"`
	FinalHash      string    `json:"final_hash,omitempty"`
	Desyncs        uint64    `json:"desyncs"`
	Removals       []Removal `json:"removals"`
	QosAdjustments uint64    `json:"qos_adjustments"`
	ReplayFile     string    `json:"replay_file,omitempty"`
	ReplayHash     string    `json:"replay_hash,omitempty"`
}

// DB is an open match database. It is safe for concurrent use.
type DB struct {
	db   *sql.DB
	lock *writerLock // nil when read-only
}

// migrations are the schema's versions: migrations[i] takes a database
// from user_version i to i+1.
var migrations = []string{
	`CREATE TABLE matches (
		id INTEGER PRIMARY KEY,
		room TEXT NOT NULL,
		network_model TEXT NOT NULL,
		match_type TEXT NOT NULL DEFAULT '',
		started_at INTEGER NOT NULL,
		ended_at INTEGER,
		ticks INTEGER NOT NULL DEFAULT 0,
		outcome TEXT NOT NULL,
		final_hash TEXT NOT NULL DEFAULT '',
		desyncs INTEGER NOT NULL DEFAULT 0,
		qos_adjustments INTEGER NOT NULL DEFAULT 0,
		replay_file TEXT NOT NULL DEFAULT '',
		replay_hash TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX matches_started ON matches(started_at);
	CREATE TABLE match_players (
		match_id INTEGER NOT NULL REFERENCES matches(id),
		player INTEGER NOT NULL,
		name TEXT NOT NULL DEFAULT '',
		public_key TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (match_id, player)
	);
	CREATE TABLE match_removals (
		match_id INTEGER NOT NULL REFERENCES matches(id),
		player INTEGER NOT NULL,
		at_tick INTEGER NOT NULL,
		reason TEXT NOT NULL
	);
	CREATE INDEX match_removals_match ON match_removals(match_id);`,
	`ALTER TABLE matches ADD COLUMN updated_at INTEGER;
	UPDATE matches SET updated_at = COALESCE(ended_at, started_at);`,
}

// Open opens (creating if needed) the database at path as its only
// writer, brings its schema up to date, and marks matches that were running
// when the last server died as unfinished (their ticks and last write
// kept). It takes a lock (the file path+".lock", holding the writer's pid,
// host and start time) for as long as the DB is open: while another
// process or another Open holds it, Open fails with ErrInUse naming that
// writer, before it reads or writes anything.
func Open(ctx context.Context, path string) (*DB, error) {
	lock, err := lockWriter(path)
	if err != nil {
		return nil, err
	}
	d := &DB{db: openWriter(path), lock: lock}
	if err := d.migrate(ctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("records: %s: %w", path, err)
	}
	if _, err := d.db.ExecContext(ctx, `UPDATE matches SET outcome = ? WHERE outcome = ?`, OutcomeUnfinished, OutcomeRunning); err != nil {
		d.Close()
		return nil, fmt.Errorf("records: %s: %w", path, err)
	}
	return d, nil
}

// openWriter is the database at path for writing. _txlock=immediate:
// every transaction takes SQLite's write lock when it begins, so that a
// migration reads user_version and applies its step as one (and two
// writers never deadlock upgrading a read lock).
func openWriter(path string) *sql.DB {
	db, _ := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	return db // sql.Open of a registered driver only fails on a bad name
}

// OpenReadOnly opens an existing database for reading (while a server
// writes it), without migrating or marking anything.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		db.Close()
		return nil, fmt.Errorf("records: open %s: %w", path, err)
	}
	if v == 0 {
		db.Close()
		return nil, fmt.Errorf("records: %s holds no match records", path)
	}
	if v != len(migrations) {
		db.Close()
		return nil, fmt.Errorf("records: %s has schema version %d, this binary reads %d (a server of this version upgrades it when it opens it)", path, v, len(migrations))
	}
	return &DB{db: db}, nil
}

// migrate applies the migrations the database lacks, each in its own
// transaction that reads user_version under the write lock (BEGIN
// IMMEDIATE), so that two first opens racing (the writer lock aside:
// a filesystem without locks) apply each step once.
func (d *DB) migrate(ctx context.Context) error {
	wait := 5 * time.Millisecond
	deadline := time.Now().Add(10 * time.Second)
	for {
		done, err := d.migrateStep(ctx)
		if busy(err) && time.Now().Before(deadline) {
			// Several first opens of a fresh file race for the switch to
			// WAL and the write lock; SQLite can refuse at once instead
			// of waiting its busy timeout. Wait and try the step again.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			wait = min(2*wait, 200*time.Millisecond)
			continue
		}
		if done || err != nil {
			return err
		}
	}
}

// busy reports whether err is SQLite's SQLITE_BUSY (the database is
// locked by another connection).
func busy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}

// migrateStep applies the next migration, if any; done reports there was
// none.
func (d *DB) migrateStep(ctx context.Context) (done bool, err error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return false, err
	}
	switch {
	case v > len(migrations):
		return false, fmt.Errorf("schema version %d is newer than this binary's %d", v, len(migrations))
	case v == len(migrations):
		return true, nil
	}
	if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
		return false, fmt.Errorf("migration %d: %w", v+1, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

// Close closes the database and releases its writer lock.
func (d *DB) Close() error {
	err := d.db.Close()
	if d.lock != nil {
		d.lock.release()
	}
	return err
}

func us(t time.Time) int64 { return t.UnixMicro() }

// Start records a match that begins: r's room, model, match type, players
// and StartedAt. It returns the match's id.
func (d *DB) Start(ctx context.Context, r Record) (int64, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO matches (room, network_model, match_type, started_at, updated_at, outcome) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Room, r.NetworkModel, r.MatchType, us(r.StartedAt), us(r.StartedAt), OutcomeRunning)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	for _, p := range r.Players {
		if _, err := tx.ExecContext(ctx, `INSERT INTO match_players (match_id, player, name, public_key) VALUES (?, ?, ?, ?)`,
			id, p.Player, p.Name, p.PublicKey); err != nil {
			return 0, err
		}
	}
	return id, tx.Commit()
}

// Played is how far a running match got: the ticks match ID played.
type Played struct {
	ID    int64
	Ticks uint64
}

// Progress records, in one transaction, the ticks each running match of
// played has played by now (so that a match cut by a crash still says how
// far it got and when it was last seen). It returns how many rows it
// updated: a match no longer running is left alone.
func (d *DB) Progress(ctx context.Context, now time.Time, played ...Played) (int, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	updated := 0
	for _, p := range played {
		res, err := tx.ExecContext(ctx, `UPDATE matches SET ticks = ?, updated_at = ? WHERE id = ? AND outcome = ?`,
			int64(p.Ticks), us(now), p.ID, OutcomeRunning)
		if err != nil {
			return 0, err
		}
		n, _ := res.RowsAffected()
		updated += int(n)
	}
	return updated, tx.Commit()
}

// End records how match r.ID ended: EndedAt (also its last write),
// Ticks, Outcome, FinalHash, Desyncs, Removals, QosAdjustments and the
// replay.
func (d *DB) End(ctx context.Context, r Record) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE matches SET ended_at = ?, updated_at = ?, ticks = ?, outcome = ?, final_hash = ?, desyncs = ?,
		qos_adjustments = ?, replay_file = ?, replay_hash = ? WHERE id = ?`,
		us(r.EndedAt), us(r.EndedAt), int64(r.Ticks), r.Outcome, r.FinalHash, int64(r.Desyncs), int64(r.QosAdjustments), r.ReplayFile, r.ReplayHash, r.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %d", ErrNotFound, r.ID)
	}
	for _, rm := range r.Removals {
		if _, err := tx.ExecContext(ctx, `INSERT INTO match_removals (match_id, player, at_tick, reason) VALUES (?, ?, ?, ?)`,
			r.ID, rm.Player, int64(rm.AtTick), rm.Reason); err != nil {
			return err
		}
	}
	return tx.Commit()
}

const selectMatch = `SELECT id, room, network_model, match_type, started_at, ended_at, updated_at, ticks, outcome, final_hash,
	desyncs, qos_adjustments, replay_file, replay_hash FROM matches`

func scanMatch(row interface{ Scan(...any) error }) (Record, error) {
	var r Record
	var started int64
	var ended, updated sql.NullInt64
	var ticks, desyncs, qos int64
	if err := row.Scan(&r.ID, &r.Room, &r.NetworkModel, &r.MatchType, &started, &ended, &updated, &ticks, &r.Outcome,
		&r.FinalHash, &desyncs, &qos, &r.ReplayFile, &r.ReplayHash); err != nil {
		return r, err
	}
	r.StartedAt = time.UnixMicro(started).UTC()
	if ended.Valid {
		r.EndedAt = time.UnixMicro(ended.Int64).UTC()
	}
	if updated.Valid {
		r.UpdatedAt = time.UnixMicro(updated.Int64).UTC()
	}
	r.Ticks, r.Desyncs, r.QosAdjustments = uint64(ticks), uint64(desyncs), uint64(qos)
	return r, nil
}

// Get returns match id with its players and removals.
func (d *DB) Get(ctx context.Context, id int64) (Record, error) {
	r, err := scanMatch(d.db.QueryRowContext(ctx, selectMatch+` WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%w: %d", ErrNotFound, id)
	}
	if err != nil {
		return r, err
	}
	if r.Players, err = d.players(ctx, id); err != nil {
		return r, err
	}
	r.Removals = []Removal{}
	rows, err := d.db.QueryContext(ctx, `SELECT player, at_tick, reason FROM match_removals WHERE match_id = ? ORDER BY rowid`, id)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	for rows.Next() {
		var rm Removal
		var at int64
		if err := rows.Scan(&rm.Player, &at, &rm.Reason); err != nil {
			return r, err
		}
		rm.AtTick = uint64(at)
		r.Removals = append(r.Removals, rm)
	}
	return r, rows.Err()
}

// players are match id's players, in seat order (never nil).
func (d *DB) players(ctx context.Context, id int64) ([]Player, error) {
	ps := []Player{}
	rows, err := d.db.QueryContext(ctx, `SELECT player, name, public_key FROM match_players WHERE match_id = ? ORDER BY player`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p Player
		if err := rows.Scan(&p.Player, &p.Name, &p.PublicKey); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, rows.Err()
}

// List returns the newest matches first, at most limit (≤ 0: 100), with
// their players, without their removals.
func (d *DB) List(ctx context.Context, limit int) ([]Record, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := d.db.QueryContext(ctx, selectMatch+` ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		r, err := scanMatch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	for i := range out {
		if out[i].Players, err = d.players(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}
