// tickwire dashboard: polls the JSON API twice a second and draws the
// selected room. The figures drawn are written as JSON into #tw-data.
"use strict";
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const headers = token ? { Authorization: "Bearer " + token } : {};
let selected = new URLSearchParams(location.search).get("room");
let lastDesyncs = 0;

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

function drawRooms(rooms) {
  const body = document.querySelector("#rooms tbody");
  body.replaceChildren();
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
    if (s.loss_percent > 0) { g.fillStyle = "#f33"; g.fillRect(i * w, 0, Math.max(w - 1, 1), 4); }
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
function drawSeries(series) {
  const box = document.getElementById("series");
  box.replaceChildren();
  const byName = new Map();
  for (const s of series) {
    if (!byName.has(s.name)) byName.set(s.name, []);
    byName.get(s.name).push(s);
  }
  for (const [name, list] of byName) {
    box.append(el("h3", `${name.replaceAll("_", " ")} (${list[0].unit || ""}; red: late, orange: idle, line: zero)`));
    const c = el("canvas");
    c.width = 720; c.height = 40 * list.length + 20;
    c.id = "series-" + name;
    const g = c.getContext("2d");
    const pts = list.flatMap((s) => s.points);
    if (pts.length) {
      const t0 = Math.min(...pts.map((p) => p.tick)), t1 = Math.max(...pts.map((p) => p.tick), t0 + 1);
      const span = Math.max(1, ...pts.map((p) => Math.abs(p.value)));
      list.forEach((s, row) => {
        const mid = 20 + row * 40 + 20;
        g.fillStyle = "#445"; g.fillRect(0, mid, c.width, 1);
        g.fillStyle = "#aab"; g.fillText("p" + s.player, 2, mid - 8);
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
  drawSeries(room.model.series || []);
  drawSync(room);
  document.getElementById("tw-data").textContent = JSON.stringify({
    room: room.name,
    network_model: room.network_model,
    tick: room.tick,
    state: room.state,
    rtt: room.player_series.map((p) => ({ player: p.player, rtt_ms: p.rtt_history.map((s) => s.rtt_ms), jitter_ms: p.jitter_ms, loss_percent: p.loss_percent })),
    tick_timing: room.tick_timing,
    series: room.model.series || [],
    counters: room.model.counters || [],
    events: room.model.events || [],
    desync_report: (room.links && room.links.desync_report) || null,
  });
}

async function tick() {
  try {
    const list = await get("/api/v1/rooms");
    if (!selected || !list.rooms.some((r) => r.name === selected)) selected = list.rooms.length ? list.rooms[0].name : null;
    drawRooms(list.rooms);
    if (selected) drawRoom(await get("/api/v1/rooms/" + encodeURIComponent(selected)));
    document.getElementById("status").textContent = `${list.rooms.length} rooms · ${new Date().toLocaleTimeString()}`;
  } catch (e) {
    document.getElementById("status").textContent = String(e);
  }
}

tick();
setInterval(tick, 500);
