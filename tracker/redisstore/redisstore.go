// Package redisstore is a tracker.Store in Redis, so that several tracker
// instances behind a load balancer serve one directory.
//
// Layout (every key under Prefix, "tickwire:tracker:" by default):
//
//	listing:{id}   JSON tracker.Entry, expiring at the listing's Expires (PXAT)
//	listings       ZSET of listing ids scored by expiry (unix ms): browse and the limit
//	pub:{addr}     ZSET of the listing ids one publisher address holds: its limit
//	key:{hex}      ZSET of the listing ids naming one server key: its limit
//	code:{code}    JSON tracker.CodeEntry, expiring at its Expires
//	codes          ZSET of codes scored by expiry: the limit
//	rate:{key}     a rate limit's theoretical arrival time (GCRA, unix µs)
//
// Creation with its limits, conditional updates, deletion, taking a
// single-use code and rate limits are Lua scripts, so that concurrent
// trackers never exceed a limit, hand one code to two players or give
// one client more requests than the rate.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tickwire/tickwire/tracker"
)

// Store is a tracker.Store over a Redis client.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
}

// New returns a store using rdb with keys under prefix ("" means
// "tickwire:tracker:").
func New(rdb redis.UniversalClient, prefix string) *Store {
	if prefix == "" {
		prefix = "tickwire:tracker:"
	}
	return &Store{rdb: rdb, prefix: prefix}
}

// Open connects to a redis:// URL (redis://HOST:PORT/DB) and checks it
// answers.
func Open(ctx context.Context, url string) (*Store, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("tracker store %q: %w", url, err)
	}
	rdb := redis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("tracker store %q: %w", url, err)
	}
	return New(rdb, ""), nil
}

// Close closes the Redis client.
func (s *Store) Close() error { return s.rdb.Close() }

func ms(t time.Time) int64 { return t.UnixMilli() }

// putScript: KEYS[1] listing key, KEYS[2] index, KEYS[3] the publisher's
// index, KEYS[4] the server key's index ("" for none); ARGV: value,
// expiry ms, id, now ms, create (1/0), total limit, per-publisher limit,
// per-key limit. Returns 1 done, 0 not found, -1 full, -2 the source full.
var putScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
local subs = {}
for i = 3, 4 do
  if KEYS[i] ~= '' then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[4])
    subs[#subs + 1] = {KEYS[i], tonumber(ARGV[4 + i])}
  end
end
if ARGV[5] == '1' then
  local limit = tonumber(ARGV[6])
  if limit > 0 and redis.call('ZCARD', KEYS[2]) >= limit then return -1 end
  for _, s in ipairs(subs) do
    if s[2] > 0 and redis.call('ZCARD', s[1]) >= s[2] then return -2 end
  end
elseif not redis.call('ZSCORE', KEYS[2], ARGV[3]) then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
for _, s in ipairs(subs) do
  redis.call('ZADD', s[1], ARGV[2], ARGV[3])
  redis.call('PEXPIREAT', s[1], ARGV[2])
end
return 1
`)

// sourceKeys are the per-publisher and per-server-key index keys of e
// ("" where it has none).
func (s *Store) sourceKeys(e tracker.Entry) (string, string) {
	var pub, key string
	if e.Publisher != "" {
		pub = s.prefix + "pub:" + e.Publisher
	}
	if e.Listing.ServerKey != "" {
		key = s.prefix + "key:" + e.Listing.ServerKey
	}
	return pub, key
}

func (s *Store) Put(ctx context.Context, e tracker.Entry, now time.Time, create bool, lim tracker.Limits) error {
	v, err := json.Marshal(e)
	if err != nil {
		return err
	}
	c := "0"
	if create {
		c = "1"
	}
	pub, key := s.sourceKeys(e)
	n, err := putScript.Run(ctx, s.rdb, []string{s.prefix + "listing:" + e.Listing.ID, s.prefix + "listings", pub, key},
		v, ms(e.Listing.Expires), e.Listing.ID, ms(now), c, lim.Total, lim.PerPublisher, lim.PerServerKey).Int()
	switch {
	case err != nil:
		return err
	case n == -1:
		return tracker.ErrFull
	case n == -2:
		return tracker.ErrSourceFull
	case n == 0:
		return tracker.ErrNotFound
	}
	return nil
}

// Ping implements tracker.Pinger: nil while Redis answers.
func (s *Store) Ping(ctx context.Context) error { return s.rdb.Ping(ctx).Err() }

// allowScript: KEYS[1] the rate key; ARGV: now µs, µs per token, burst
// µs (tokens × µs per token). GCRA: returns 0 allowed, else the µs to
// wait.
var allowScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
if tat < now then tat = now end
local new = tat + tonumber(ARGV[2])
local wait = new - tonumber(ARGV[3]) - now
if wait > 0 then return wait end
redis.call('SET', KEYS[1], string.format('%d', new), 'PX', math.ceil((new - now) / 1000) + 1)
return 0
`)

// Allow implements tracker.SharedLimiter: every tracker on this Redis
// takes from one bucket per key.
func (s *Store) Allow(ctx context.Context, key string, r tracker.Rate, now time.Time) (bool, time.Duration, error) {
	per := max(r.Per.Microseconds()/int64(max(r.N, 1)), 1)
	wait, err := allowScript.Run(ctx, s.rdb, []string{s.prefix + "rate:" + key}, now.UnixMicro(), per, per*int64(r.N)).Int64()
	if err != nil {
		return false, 0, err
	}
	return wait == 0, time.Duration(wait) * time.Microsecond, nil
}

func (s *Store) Get(ctx context.Context, id string, now time.Time) (tracker.Entry, error) {
	v, err := s.rdb.Get(ctx, s.prefix+"listing:"+id).Bytes()
	if errors.Is(err, redis.Nil) {
		return tracker.Entry{}, tracker.ErrNotFound
	}
	if err != nil {
		return tracker.Entry{}, err
	}
	var e tracker.Entry
	if err := json.Unmarshal(v, &e); err != nil {
		return tracker.Entry{}, fmt.Errorf("tracker store: listing %s: %w", id, err)
	}
	if !now.Before(e.Listing.Expires) {
		return tracker.Entry{}, tracker.ErrNotFound
	}
	return e, nil
}

// deleteScript: KEYS[1] listing key, KEYS[2] index; ARGV[1] id, ARGV[2]
// the prefix. Removes the listing from its publisher's and server key's
// indexes too. Returns 1 deleted, 0 not found.
var deleteScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if not v then return 0 end
redis.call('DEL', KEYS[1])
local ok, e = pcall(cjson.decode, v)
if ok then
  if type(e['publisher']) == 'string' then redis.call('ZREM', ARGV[2] .. 'pub:' .. e['publisher'], ARGV[1]) end
  local l = e['listing']
  if type(l) == 'table' and type(l['server_key']) == 'string' then redis.call('ZREM', ARGV[2] .. 'key:' .. l['server_key'], ARGV[1]) end
end
return 1
`)

func (s *Store) Delete(ctx context.Context, id string) error {
	n, err := deleteScript.Run(ctx, s.rdb, []string{s.prefix + "listing:" + id, s.prefix + "listings"}, id, s.prefix).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return tracker.ErrNotFound
	}
	return nil
}

// listBatch is how many listings one MGET reads.
const listBatch = 500

func (s *Store) List(ctx context.Context, now time.Time) ([]tracker.Listing, error) {
	ids, err := s.rdb.ZRangeByScore(ctx, s.prefix+"listings", &redis.ZRangeBy{Min: fmt.Sprint(ms(now) + 1), Max: "+inf"}).Result()
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	out := make([]tracker.Listing, 0, len(ids))
	keys := make([]string, 0, listBatch)
	for start := 0; start < len(ids); start += listBatch {
		keys = keys[:0]
		for _, id := range ids[start:min(start+listBatch, len(ids))] {
			keys = append(keys, s.prefix+"listing:"+id)
		}
		vals, err := s.rdb.MGet(ctx, keys...).Result()
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			str, ok := v.(string)
			if !ok {
				continue // expired between the two reads
			}
			var e tracker.Entry
			if json.Unmarshal([]byte(str), &e) != nil || !now.Before(e.Listing.Expires) {
				continue
			}
			out = append(out, e.Listing)
		}
	}
	return out, nil
}

// putCodeScript: KEYS[1] code key, KEYS[2] code index; ARGV: value, expiry
// ms, code, now ms, limit. Returns 1 done, 0 taken, -1 full.
var putCodeScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local limit = tonumber(ARGV[5])
if limit > 0 and redis.call('ZCARD', KEYS[2]) >= limit then return -1 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
`)

func (s *Store) PutCode(ctx context.Context, code string, c tracker.CodeEntry, now time.Time, limit int) error {
	v, err := json.Marshal(c)
	if err != nil {
		return err
	}
	n, err := putCodeScript.Run(ctx, s.rdb, []string{s.prefix + "code:" + code, s.prefix + "codes"},
		v, ms(c.Expires), code, ms(now), limit).Int()
	switch {
	case err != nil:
		return err
	case n == -1:
		return tracker.ErrFull
	case n == 0:
		return tracker.ErrCodeTaken
	}
	return nil
}

// takeCodeScript: KEYS[1] code key, KEYS[2] code index; ARGV[1] code.
// Returns the value, deleting it unless it is multi-use.
var takeCodeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return false end
local ok, e = pcall(cjson.decode, v)
if not ok or not e['multi_use'] then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return v
`)

func (s *Store) TakeCode(ctx context.Context, code string, now time.Time) (tracker.CodeEntry, error) {
	v, err := takeCodeScript.Run(ctx, s.rdb, []string{s.prefix + "code:" + code, s.prefix + "codes"}, code).Text()
	if errors.Is(err, redis.Nil) {
		return tracker.CodeEntry{}, tracker.ErrCodeNotFound
	}
	if err != nil {
		return tracker.CodeEntry{}, err
	}
	var c tracker.CodeEntry
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		return tracker.CodeEntry{}, fmt.Errorf("tracker store: code %s: %w", code, err)
	}
	if !now.Before(c.Expires) {
		return tracker.CodeEntry{}, tracker.ErrCodeNotFound
	}
	return c, nil
}

var (
	_ tracker.Store         = (*Store)(nil)
	_ tracker.Pinger        = (*Store)(nil)
	_ tracker.SharedLimiter = (*Store)(nil)
)
