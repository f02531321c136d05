// tickwire dashboard: polls the JSON API twice a second and draws the
// selected room. The figures drawn are written as JSON into #tw-data.
"use strict";
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const headers = token ? { Authorization: "Bearer " + token } : {};
let selected = new URLSearchParams(location.search).get("room");
let lastDesyncs = 0;
// The map's view: "all" (the players' union) or a player number (?view=N).
let mapView = new URLSearchParams(location.search).get("view") || "all";
const owners = ["#99a", "#e44", "#49f", "#4c4", "#fc3", "#c6f", "#3cc", "#f93", "#f6b"];

async function get(path) {
  const r = await fetch(path, { headers, cache: "no-store" });
  if (!r.ok) throw new Error(path + ": " + r.status);
  return r.json();
}

function counter(figs, name) {
  const f = (figs || []).find((c) => c.name === name);
  return f ? f.value : 0;
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

// plural is "1 room", "2 rooms".
function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

// emptyHint is what the rooms table says while the server has none.
const emptyHint = "No rooms yet. A room opens when its first player joins: " +
  "tickwire bot --server ADDR --room NAME --players 2 (ADDR: the server's --listen; " +
  "add --server-key KEY, serve --json's public_key), or your game's client.";

function drawRooms(rooms) {
  const body = document.querySelector("#rooms tbody");
  body.replaceChildren();
  if (!rooms.length) {
    const td = el("td", emptyHint, "empty");
    td.colSpan = 8;
    const tr = el("tr");
    tr.id = "rooms-empty";
    tr.append(td);
    body.append(tr);
    document.getElementById("room").hidden = true;
  }
  for (const r of rooms) {
    const tr = el("tr");
    tr.dataset.room = r.name;
    if (r.name === selected) tr.className = "selected";
    const counters = r.counters.filter((c) => c.value).map((c) => c.name + " " + c.value).join(", ");
    for (const v of [r.name, r.network_model, r.players + "/" + r.size, r.tick, r.state,
      r.age_s.toFixed(0) + " s", r.bytes_per_s.toFixed(0), counters]) tr.append(el("td", String(v)));
    tr.onclick = () => { selected = r.name; tick(); };
    body.append(tr);
  }
}

function colour(v, budget) {
  return v < budget / 2 ? "#4c4" : v < budget ? "#dc3" : "#e33";
}

function lagometer(p) {
  const fig = el("figure");
  const c = el("canvas");
  c.width = 360; c.height = 80;
  const g = c.getContext("2d");
  const h = p.rtt_history, w = c.width / Math.max(h.length, 60);
  const top = Math.max(100, ...h.map((s) => s.rtt_ms + s.jitter_ms));
  h.forEach((s, i) => {
    const y = (s.rtt_ms / top) * c.height;
    g.fillStyle = colour(s.rtt_ms, 150);
    g.fillRect(i * w, c.height - y, Math.max(w - 1, 1), y);
    g.fillStyle = "#58f";
    g.fillRect(i * w, c.height - ((s.rtt_ms + s.jitter_ms) / top) * c.height, Math.max(w - 1, 1), 1);
    // Loss as the rate of the sample's interval: a bar down from the
    // top, full height at 10 % (0.9 % is a tick, not a strip).
    if (s.loss_percent > 0) {
      g.fillStyle = "#f33";
      g.fillRect(i * w, 0, Math.max(w - 1, 1), Math.max(Math.min(s.loss_percent / 10, 1) * c.height / 4, 1));
    }
  });
  fig.append(c, el("figcaption", `player ${p.player}: RTT ${p.rtt_ms.toFixed(1)} ms, jitter ${p.jitter_ms.toFixed(1)} ms, loss ${p.loss_percent.toFixed(1)} %`));
  return fig;
}

function drawTicks(t) {
  const c = document.getElementById("ticks"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const n = Math.max(t.turns_ms.length, 60), w = c.width / n;
  const budget = t.budget_ms || 1, top = Math.max(budget * 1.5, ...t.turns_ms);
  t.turns_ms.forEach((v, i) => {
    const y = Math.max((v / top) * c.height, 1);
    g.fillStyle = colour(v, budget);
    g.fillRect(i * w, c.height - y, Math.max(w - 1, 1), y);
  });
  g.fillStyle = "#e33";
  g.fillRect(0, c.height - (budget / top) * c.height, c.width, 1);
}

// drawSeries draws every series of the model's report, grouped by name:
// x is the tick, y the value, flagged points (late, idle) highlighted.
// Each chart's legend names only the flags its points carry.
function drawSeries(series) {
  const box = document.getElementById("series");
  box.replaceChildren();
  const legends = {};
  const byName = new Map();
  for (const s of series) {
    if (!byName.has(s.name)) byName.set(s.name, []);
    byName.get(s.name).push(s);
  }
  for (const [name, list] of byName) {
    const pts = list.flatMap((s) => s.points);
    const flags = new Set(pts.map((p) => p.flag).filter(Boolean));
    const legend = [list[0].unit || "", "green: a point", flags.has("late") && "red: late", flags.has("idle") && "orange: idle",
      "line: zero, one row per player"].filter(Boolean).join("; ");
    legends[name] = legend;
    box.append(el("h3", `${name.replaceAll("_", " ")} (${legend})`));
    const c = el("canvas");
    c.width = 720; c.height = 40 * list.length + 20;
    c.id = "series-" + name;
    const g = c.getContext("2d");
    if (pts.length) {
      const t0 = Math.min(...pts.map((p) => p.tick)), t1 = Math.max(...pts.map((p) => p.tick), t0 + 1);
      const span = Math.max(1, ...pts.map((p) => Math.abs(p.value)));
      list.forEach((s, row) => {
        const mid = 20 + row * 40 + 20;
        g.fillStyle = "#445"; g.fillRect(0, mid, c.width, 1);
        g.fillStyle = "#aab"; g.textBaseline = "middle"; g.fillText("p" + s.player, 2, mid); // on its row's zero line
        for (const p of s.points) {
          const x = 24 + ((p.tick - t0) / (t1 - t0)) * (c.width - 30);
          const y = mid - (p.value / span) * 18;
          g.fillStyle = p.flag === "late" ? "#f33" : p.flag === "idle" ? "#f93" : "#6c6";
          g.fillRect(x - 1.5, y - 1.5, p.flag ? 4 : 3, p.flag ? 4 : 3);
        }
      });
    }
    box.append(c);
  }
  return legends;
}

// drawHistograms draws every distribution of the model's report, one
// canvas per name, one row of bars per player; it returns what it drew.
function drawHistograms(hists) {
  const box = document.getElementById("histograms");
  box.replaceChildren();
  const byName = new Map();
  for (const h of hists) {
    if (!byName.has(h.name)) byName.set(h.name, []);
    byName.get(h.name).push(h);
  }
  for (const [name, list] of byName) {
    box.append(el("h3", `${name.replaceAll("_", " ")} (${list[0].unit || "count"} per bucket, by player)`));
    const c = el("canvas");
    c.width = 720; c.height = 60 * list.length;
    c.id = "hist-" + name;
    const g = c.getContext("2d");
    list.forEach((h, row) => {
      const top = Math.max(1, ...h.buckets.map((b) => b.count)), n = Math.max(h.buckets.length, 1);
      const w = (c.width - 30) / n, base = row * 60 + 50;
      g.fillStyle = "#aab"; g.fillText("p" + h.player, 2, base - 20);
      h.buckets.forEach((b, i) => {
        const y = (b.count / top) * 40;
        g.fillStyle = "#58f"; g.fillRect(24 + i * w, base - y, Math.max(w - 2, 1), y);
        g.fillStyle = "#aab"; g.fillText(b.le > 1e300 ? "more" : "≤" + +b.le.toPrecision(2), 24 + i * w, base + 9);
      });
    });
    box.append(c);
  }
  return hists;
}

// drawMap draws the model's spectator map, if it has one: cells seen by
// the view (the union of the players' vision, or one player's) lighter,
// entities coloured by owner (in one player's view only those it sees).
function drawMap(m) {
  const panel = document.getElementById("map-panel");
  panel.hidden = !m;
  if (!m) return null;
  const sel = document.getElementById("map-view");
  const views = ["all", ...m.vision.map((v) => String(v.player))];
  if ([...sel.options].map((o) => o.value).join() !== views.join()) {
    sel.replaceChildren(...views.map((v) => {
      const o = el("option", v === "all" ? "union of the players' vision" : `player ${v}'s view`);
      o.value = v;
      return o;
    }));
  }
  if (!views.includes(mapView)) mapView = "all";
  sel.value = mapView;
  sel.onchange = () => { mapView = sel.value; tick(); };
  const shown = mapView === "all" ? m.vision : m.vision.filter((v) => String(v.player) === mapView);
  const seen = new Uint8Array(m.width * m.height);
  for (const v of shown) {
    const bits = atob(v.cells || "");
    for (let i = 0; i < seen.length && i >> 3 < bits.length; i++) if (bits.charCodeAt(i >> 3) & (1 << (i & 7))) seen[i] = 1;
  }
  const visible = new Set(shown.flatMap((v) => v.visible || []));
  const c = document.getElementById("map"), g = c.getContext("2d");
  const s = Math.min(c.width / Math.max(m.width, 1), c.height / Math.max(m.height, 1));
  g.fillStyle = "#0b0d12"; g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = "#263042";
  let seenCells = 0;
  for (let i = 0; i < seen.length; i++) if (seen[i]) { seenCells++; g.fillRect((i % m.width) * s, Math.floor(i / m.width) * s, s, s); }
  let drawn = 0;
  for (const e of m.entities) {
    const sees = visible.has(e.id);
    if (mapView !== "all" && !sees) continue;
    g.globalAlpha = sees ? 1 : 0.35;
    g.fillStyle = owners[e.owner % owners.length];
    const r = e.unit ? Math.max(s * 0.45, 1.5) : Math.max(s * 0.8, 2.5);
    g.fillRect(e.x * s - r / 2, e.y * s - r / 2, r, r);
    drawn++;
  }
  g.globalAlpha = 1;
  return { width: m.width, height: m.height, view: mapView, entities: m.entities.length, drawn, seen_cells: seenCells,
    players: m.vision.map((v) => v.player) };
}

function drawSync(room) {
  const m = room.model, figs = m.counters || [];
  const box = document.getElementById("sync");
  box.replaceChildren();
  const desyncs = counter(figs, "desyncs");
  for (const f of figs) box.append(el("span", `${f.name.replaceAll("_", " ")}: ${f.value}`, f.name === "desyncs" && f.value ? "bad" : ""));
  box.classList.toggle("flash", desyncs > lastDesyncs);
  lastDesyncs = desyncs;
  const report = room.links && room.links.desync_report;
  if (report) {
    const a = el("a", "desync report", "bad");
    a.href = report;
    a.id = "desync-report";
    box.append(a);
  }
  const ev = document.getElementById("events");
  ev.replaceChildren();
  for (const e of (m.events || []).slice(-20).reverse()) ev.append(el("li", `tick ${e.tick}${e.player ? " player " + e.player : ""}: ${e.kind}: ${e.detail}`, e.kind));
}

function drawRoom(room) {
  document.getElementById("room").hidden = false;
  document.getElementById("room-name").textContent = `${room.name} (${room.network_model}, ${room.state}, tick ${room.tick})`;
  const lag = document.getElementById("lagometers");
  lag.replaceChildren(...room.player_series.map(lagometer));
  drawTicks(room.tick_timing);
  const legends = drawSeries(room.model.series || []);
  const hists = drawHistograms(room.model.histograms || []);
  const map = drawMap(room.model.map);
  drawSync(room);
  return {
    room: room.name,
    network_model: room.network_model,
    tick: room.tick,
    state: room.state,
    rtt: room.player_series.map((p) => ({ player: p.player, rtt_ms: p.rtt_history.map((s) => s.rtt_ms), jitter_ms: p.jitter_ms, loss_percent: p.loss_percent })),
    tick_timing: room.tick_timing,
    series: room.model.series || [],
    counters: room.model.counters || [],
    events: room.model.events || [],
    histograms: hists,
    map,
    desync_report: (room.links && room.links.desync_report) || null,
    legends,
  };
}

async function tick() {
  try {
    const list = await get("/api/v1/rooms");
    if (!selected || !list.rooms.some((r) => r.name === selected)) selected = list.rooms.length ? list.rooms[0].name : null;
    drawRooms(list.rooms);
    const data = selected ? drawRoom(await get("/api/v1/rooms/" + encodeURIComponent(selected))) : {};
    const status = `${plural(list.rooms.length, "room")} · ${new Date().toLocaleTimeString()}`;
    document.getElementById("status").textContent = status;
    data.status = status;
    data.empty = list.rooms.length ? "" : emptyHint;
    document.getElementById("tw-data").textContent = JSON.stringify(data);
  } catch (e) {
    document.getElementById("status").textContent = String(e);
  }
}

tick();
setInterval(tick, 500);
