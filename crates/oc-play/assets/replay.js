"use strict";
// The replay page's player: no network, no storage, no console output. `#end` in the address
// steps through every frame to the last one (as the step button does); `#frame=N` shows frame N.
(function () {
  const errorList = document.getElementById("errors");
  function fail(message) {
    const li = document.createElement("li");
    li.textContent = message;
    errorList.appendChild(li);
    errorList.hidden = false;
  }
  window.addEventListener("error", (e) => fail(String(e.message)));

  const D = JSON.parse(document.getElementById("battle-data").textContent);
  const $ = (id) => document.getElementById(id);
  const NS = "http://www.w3.org/2000/svg";
  const g = D.grid;
  const last = D.frames.length - 1;
  const name = (i) => (D.units[i] ? D.units[i].name : "unit " + i);
  // A unit of several figures: its living ones of its figures now (joining and dividing change them).
  const figs = (s) => (s.figures ? ", " + s.figures[0] + " of " + s.figures[1] + " figures" : "");
  // A unit with bodies joined to it (a mixed unit): its HP and theirs, "n of m" of the whole.
  const whole = (f, i) => {
    const s = f.units[i];
    let hp = Math.max(0, s.hp), max = s.max_hp;
    const bodies = [];
    f.units.forEach((b, k) => {
      if (b.state !== "joined" || b.with !== i) return;
      hp += Math.max(0, b.hp); max += b.max_hp;
      bodies.push(name(k) + (b.figures ? " (" + b.figures[0] + " of " + b.figures[1] + ")" : ""));
    });
    return { hp, max, frac: max > 0 ? Math.min(1, hp / max) : 0, bodies: bodies.length ? " + " + bodies.join(" + ") : "" };
  };
  const at = (t) => (t ? "(" + t[0] + ", " + t[1] + ")" : "");
  const words = (v) => (typeof v === "string" ? v.replace(/_/g, " ") : JSON.stringify(v));
  const pct = (p) => (100 * p).toFixed(p > 0 && p < 0.01 ? 2 : 0) + "%";

  function svg(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, text, parent, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }
  function outcome(o) {
    if (o === "draw") return "a draw";
    if (o && o.win) return "the " + o.win + " wins";
    return words(o);
  }

  // The board: the picture `oc render` drew (or the terrain from data), then the units over it.
  const picW = D.picture ? D.picture.width : D.width * g;
  const picH = D.picture ? D.picture.height : D.height * g;
  const board = svg("svg", { viewBox: "0 0 " + picW + " " + picH, role: "img", "aria-label": "the map " + D.map }, $("board"));
  if (D.picture) {
    svg("image", { href: D.picture.src, x: 0, y: 0, width: picW, height: picH }, board);
  } else {
    D.terrain.forEach((t, k) => {
      const x = k % D.width, y = Math.floor(k / D.width);
      svg("rect", { x: x * g, y: y * g, width: g, height: g, fill: D.colours[t] || "#ff00ff", stroke: "#18181c", "stroke-width": 1 }, board);
    });
  }
  const changedLayer = svg("g", {}, board);
  // Under fog: the squares the chosen side does not see are shaded, and the enemies on them hidden.
  const fogLayer = svg("g", { id: "fog" }, board);
  const marks = svg("g", {}, board);
  const unitLayer = svg("g", {}, board);
  if (D.fog) $("view-label").hidden = false;
  function seenBy(f, side) {
    if (!D.fog || side === "all" || !f.sight) return null;
    const runs = f.sight[side === "attacker" ? 0 : 1] || [];
    const seen = new Set();
    for (const [y, x0, x1] of runs) for (let x = x0; x <= x1; x++) seen.add(x + "," + y);
    return seen;
  }
  const c = g / 2;
  const glyphs = D.units.map((u, i) => {
    const grp = svg("g", { class: "unit " + u.side, "data-unit": i }, unitLayer);
    const tip = svg("title", {}, grp);
    const ring = svg("circle", { cx: c, cy: c, r: g * 0.46, fill: "none", stroke: "#ffcc00", "stroke-width": g * 0.08 }, grp);
    const face = svg("line", { x1: c, y1: c, x2: c, y2: c, stroke: "#111", "stroke-width": g * 0.09, "stroke-linecap": "round" }, grp);
    svg("circle", { class: "body", cx: c, cy: c - g * 0.05, r: g * 0.33, stroke: "#fff", "stroke-width": g * 0.05 }, grp);
    const label = svg("text", { x: c, y: c + g * 0.05, "text-anchor": "middle", "font-size": g * 0.3 }, grp);
    label.textContent = u.name.slice(0, 2);
    svg("rect", { x: g * 0.1, y: g * 0.82, width: g * 0.8, height: g * 0.12, fill: "#222" }, grp);
    const bar = svg("rect", { x: g * 0.1, y: g * 0.82, width: g * 0.8, height: g * 0.12, fill: "#3c3" }, grp);
    const status = svg("circle", { cx: g * 0.85, cy: g * 0.15, r: g * 0.12, fill: "#8e44ad", stroke: "#fff", "stroke-width": 2 }, grp);
    return { grp, tip, ring, face, bar, status };
  });
  const hpColour = (f) => (f > 0.5 ? "#3c3" : f > 0.25 ? "#e6b800" : "#e03b24");

  // The units table: one row per unit, updated in place.
  const tbody = $("units").querySelector("tbody");
  if (D.resources.length === 0) $("resources-head").hidden = true;
  else {
    $("resources-head").textContent = D.resources.map((r) => r[0]).join(" / ");
    $("resources-head").title = D.resources.map((r) => r[1]).join("; ");
  }
  const rows = D.units.map((u, i) => {
    const tr = html("tr", null, tbody, "unit " + u.side);
    tr.dataset.unit = i;
    tr.dataset.side = u.side;
    const who = html("td", null, tr);
    html("span", u.name, who);
    html("span", " " + u.class, who, "small");
    const hp = html("td", null, tr, "num");
    const bar = html("span", null, hp, "bar");
    const fill = html("span", null, bar);
    const hpText = html("span", "", hp);
    const weapon = html("td", "", tr);
    const statuses = html("td", "", tr);
    const resources = html("td", "", tr, "num");
    if (D.resources.length === 0) resources.hidden = true;
    return { tr, fill, hpText, weapon, statuses, resources };
  });

  // Whether unit i is seen in frame f by the chosen side's view (`seen`: null for the whole battle).
  function shownIn(fr, seen, side, i) {
    if (!seen || !fr) return true;
    const u = D.units[i], s = fr.units[i];
    return !u || !s || u.side === side || seen.has(s.x + "," + s.y);
  }

  function acting(f) {
    for (const r of f.records) if (r.event === "turn") return r.turn.unit;
    return f.active === undefined ? null : f.active;
  }

  function describe(r) {
    switch (r.event) {
      case "start":
        return r.scenario + " on " + r.map + ", seed " + r.seed + ": " + r.units.length + " units deploy";
      case "round":
        return "Round " + r.round + " begins; the " + r.first + " leads";
      case "turn": {
        const t = r.turn;
        let s = name(t.unit);
        if (t.to) s += " moves to " + at(t.to) + ";";
        if (t.equip) s += " equips " + t.equip + ";";
        if (t.discard && t.discard.length) s += " drops " + t.discard.join(", ") + ";";
        if (t.trade) s += " trades with " + name(t.trade.with) + ";";
        s += " " + r.note;
        if (t.then_to) s += "; then moves on to " + at(t.then_to);
        if (r.hp.length) s += " [HP " + r.hp.map((p) => name(p[0]) + " " + p[1]).join(", ") + "]";
        if (r.routed.length) s += " Routed: " + r.routed.map(name).join(", ") + ".";
        return s;
      }
      case "recover":
        return name(r.unit) + " recovers " + r.amount + " HP (now " + r.hp + ")";
      case "trigger":
        return name(r.unit) + ", on " + words(r.on) + ": " + r.note;
      case "affliction":
        return name(r.unit) + ": " + r.status + " " + r.change;
      case "seen": {
        const parts = [];
        if (r.spotted.length) parts.push("spots " + r.spotted.map((p) => name(p[0]) + " at " + at(p[1])).join(", "));
        if (r.lost.length) parts.push("loses sight of " + r.lost.map(name).join(", "));
        const tiles = r.tiles.reduce((n, run) => n + (run[2] - run[1] + 1), 0);
        if (tiles) parts.push(tiles + " new squares in sight");
        return "The " + r.side + " " + (parts.join("; ") || "sees nothing new");
      }
      case "refill":
        return r.resource + ": " + r.values.map((p) => name(p[0]) + " " + p[1]).join(", ");
      case "order":
        return "Order of activations: " + r.units.map(name).join(", ");
      case "rolloff":
        return "Roll-off " + r.rolls.map((p) => p[0] + "-" + p[1]).join(", ") + ": the " + r.side + " activates";
      case "end":
        return "Round " + r.round + ": " + outcome(r.outcome) + " (" + r.reason + ")";
      default:
        return JSON.stringify(r);
    }
  }

  // A record as a side that sees only what its units see can tell it (null: nothing of it).
  function toldTo(r, side, nowShown, wasShown) {
    const enemy = (i) => D.units[i] && D.units[i].side !== side;
    switch (r.event) {
      case "turn": {
        const i = r.turn.unit;
        if (!enemy(i) || nowShown(i)) return describe(r);
        return wasShown(i) ? name(i) + " moves out of sight" : "An enemy out of sight acts";
      }
      case "recover":
      case "trigger":
      case "affliction":
        return enemy(r.unit) && !nowShown(r.unit) ? null : describe(r);
      case "seen":
        return r.side === side ? describe(r) : null;
      case "refill": {
        const values = r.values.filter((p) => !enemy(p[0]) || nowShown(p[0]));
        return values.length ? describe(Object.assign({}, r, { values })) : null;
      }
      default:
        return describe(r);
    }
  }

  function forecastBox(f, prev, fc, box) {
    const div = html("div", null, box, "forecast");
    const a = fc.attacker, t = fc.target;
    html("p", "Forecast: " + name(a) + " (" + (fc.weapon || "unarmed") + ") attacks " + name(t) + " at distance " + fc.distance, div);
    const table = html("table", null, div);
    const head = html("tr", null, table);
    ["", "hit", "crit", "damage (crit)", "strikes", "routs the other"].forEach((h) => html("th", h, head, h ? "num" : ""));
    const line = (who, hit, crit, dmg, critDmg, strikes, rout) => {
      const tr = html("tr", null, table);
      html("td", who, tr);
      html("td", pct(hit), tr, "num");
      html("td", pct(crit), tr, "num");
      html("td", dmg + (critDmg !== dmg ? " (" + critDmg + ")" : ""), tr, "num");
      html("td", "x" + strikes, tr, "num");
      html("td", pct(rout), tr, "num");
    };
    line(name(a), fc.hit, fc.crit, fc.damage, fc.crit_damage, fc.strikes, fc.rout);
    line(name(t) + (fc.counter_weapon ? " (" + fc.counter_weapon + ")" : ""), fc.counter_hit, fc.counter_crit, fc.counter_damage, fc.counter_crit_damage, fc.counter_strikes, fc.counter_rout);
    html("p", "Expected: " + name(t) + " takes " + fc.dealt.toFixed(1) + ", " + name(a) + " takes " + fc.taken.toFixed(1), div, "small");
    if (prev) {
      const hp = (fr, i) => (fr.units[i] ? fr.units[i].hp : "?");
      html("p", "Result: " + name(a) + " " + hp(prev, a) + " \u2192 " + hp(f, a) + " HP, " + name(t) + " " + hp(prev, t) + " \u2192 " + hp(f, t) + " HP", div, "result");
    }
  }

  let frame = 0;
  let timer = null;
  const icon = (d) => '<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="' + d + '"/></svg>';
  const PLAY = icon("M4 2v12l10-6z");
  const PAUSE = icon("M3 2h4v12H3zM9 2h4v12H9z");

  function show(k) {
    k = Math.max(0, Math.min(last, Math.floor(Number(k)) || 0));
    frame = k;
    document.body.dataset.frame = String(k);
    const f = D.frames[k];
    const prev = k > 0 ? D.frames[k - 1] : null;
    // The last frame of a finished battle: nobody is to act.
    const over = k === last && D.end;
    $("round").textContent = "Round " + f.round + (D.rounds ? " of " + D.rounds : "") + " \u00b7 " + (over ? "the battle is over" : "the " + f.to_act + " to act");
    $("counter").textContent = "step " + k + " of " + last;
    $("scrub").value = String(k);
    changedLayer.replaceChildren();
    for (const [x, y, t] of f.changed || []) {
      svg("rect", { x: x * g, y: y * g, width: g, height: g, fill: D.colours[t] || "#ff00ff", stroke: "#18181c" }, changedLayer);
      const label = svg("text", { x: x * g + 3, y: y * g + g - 4, "font-size": Math.max(10, g * 0.22) }, changedLayer);
      label.textContent = t;
    }
    const who = acting(f);
    // In a side's view, what it could not see stays unsaid: an enemy's step out of its sight, its
    // path where either end is hidden, a forecast of an attack on or by a hidden unit.
    const side = $("view").value;
    const seen = seenBy(f, side);
    const seenBefore = prev ? seenBy(prev, side) : null;
    const nowShown = (i) => shownIn(f, seen, side, i);
    const wasShown = (i) => !prev || shownIn(prev, seenBefore, side, i);
    fogLayer.replaceChildren();
    document.body.dataset.view = seen ? side : "all";
    if (seen) {
      for (let y = 0; y < D.height; y++) {
        for (let x = 0; x < D.width; x++) {
          if (!seen.has(x + "," + y)) svg("rect", { class: "fog", x: x * g, y: y * g, width: g, height: g }, fogLayer);
        }
      }
    }
    D.units.forEach((u, i) => {
      const gl = glyphs[i], row = rows[i], s = f.units[i];
      // A unit not yet made (divided off another later in the battle).
      gl.grp.style.display = s ? "" : "none";
      row.tr.hidden = !s;
      if (!s) return;
      const w = whole(f, i), frac = w.frac;
      gl.grp.setAttribute("transform", "translate(" + s.x * g + " " + s.y * g + ")");
      const hidden = seen && u.side !== side && !seen.has(s.x + "," + s.y);
      gl.grp.style.display = s.state === "ready" && !hidden ? "" : "none";
      gl.grp.dataset.hidden = hidden ? "fog" : "";
      gl.ring.style.display = i === who ? "" : "none";
      gl.bar.setAttribute("width", String(g * 0.8 * frac));
      gl.bar.setAttribute("fill", hpColour(frac));
      gl.status.style.display = s.statuses && s.statuses.length ? "" : "none";
      const fx = s.facing ? s.facing[0] : 0, fy = s.facing ? s.facing[1] : 0;
      const len = Math.hypot(fx, fy) || 1;
      gl.face.setAttribute("x2", String(c + (fx / len) * g * 0.48));
      gl.face.setAttribute("y2", String(c + (fy / len) * g * 0.48));
      gl.face.style.display = s.facing ? "" : "none";
      gl.tip.textContent = u.name + " (" + u.class + ") " + s.hp + "/" + s.max_hp + " HP" + figs(s) + w.bodies + (s.statuses ? "; " + s.statuses.join(", ") : "");
      row.tr.dataset.state = s.state;
      row.tr.dataset.hp = String(s.hp);
      row.tr.dataset.hidden = hidden ? "fog" : "";
      row.tr.classList.toggle("acting", i === who);
      // An enemy the chosen side does not see: the table keeps its row, not what it knows.
      row.fill.style.width = hidden ? "0%" : 100 * frac + "%";
      row.fill.style.background = hpColour(frac);
      row.hpText.textContent = hidden ? "unseen" : s.hp + "/" + s.max_hp + figs(s) + w.bodies + (s.state === "ready" ? "" : " " + s.state);
      row.weapon.textContent = hidden ? "" : s.equipped || "";
      row.statuses.textContent = hidden ? "" : (s.statuses || []).join(", ");
      row.resources.textContent = hidden ? "" : (s.resources || []).join(" / ");
    });
    // Where the acting unit came from, and whom it attacked.
    marks.replaceChildren();
    if (prev && who !== null && prev.units[who] && f.units[who]) {
      const p = prev.units[who], q = f.units[who];
      if ((p.x !== q.x || p.y !== q.y) && wasShown(who) && nowShown(who)) {
        svg("line", { class: "move", x1: p.x * g + c, y1: p.y * g + c, x2: q.x * g + c, y2: q.y * g + c }, marks);
      }
      for (const r of f.records) {
        if (r.event !== "turn" || !r.turn.act || !r.turn.act.attack) continue;
        const k = r.turn.act.attack.target, t = f.units[k];
        if (t && nowShown(who) && nowShown(k)) svg("line", { class: "strike", x1: q.x * g + c, y1: q.y * g + c, x2: t.x * g + c, y2: t.y * g + c }, marks);
      }
    }
    const box = $("forecast");
    box.replaceChildren();
    if (f.forecast && (wasShown(f.forecast.attacker) || nowShown(f.forecast.attacker)) && nowShown(f.forecast.target)) {
      forecastBox(f, prev, f.forecast, box);
    }
    const events = $("events");
    events.replaceChildren();
    for (const r of f.records) {
      const text = seen ? toldTo(r, side, nowShown, wasShown) : describe(r);
      if (text) html("li", text, events, r.event);
    }
    const v = $("victory");
    if (k === last && D.end) {
      v.hidden = false;
      v.dataset.outcome = D.end.outcome;
      v.textContent = D.end.line;
    } else {
      v.hidden = true;
    }
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").innerHTML = PLAY;
  }
  function play() {
    if (frame >= last) show(0);
    pause();
    timer = setInterval(() => {
      if (frame >= last) pause();
      else show(frame + 1);
    }, Number($("speed").value) || 600);
    $("play").innerHTML = PAUSE;
  }
  $("first").addEventListener("click", () => { pause(); show(0); });
  $("back").addEventListener("click", () => { pause(); show(frame - 1); });
  $("step").addEventListener("click", () => { pause(); show(frame + 1); });
  $("last").addEventListener("click", () => { pause(); show(last); });
  $("play").addEventListener("click", () => (timer === null ? play() : pause()));
  $("speed").addEventListener("change", () => { if (timer !== null) play(); });
  $("view").addEventListener("change", () => show(frame));
  const scrub = $("scrub");
  scrub.max = String(last);
  scrub.addEventListener("input", () => { pause(); show(scrub.value); });
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "SELECT") return;
    const keys = { " ": () => $("play").click(), ArrowRight: () => $("step").click(), ArrowLeft: () => $("back").click(), Home: () => $("first").click(), End: () => $("last").click() };
    const act = keys[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  });

  // `#view=attacker&frame=N` (or `defender`) shows that side's view of frame N.
  let hash = location.hash;
  const view = /^#view=(attacker|defender|all)&?/.exec(hash);
  if (view && D.fog) $("view").value = view[1];
  if (view) hash = "#" + hash.slice(view[0].length);
  show(0);
  const wanted = /^#frame=(\d+)$/.exec(hash);
  if (hash === "#end") {
    // Step to the end the way a viewer would, one click at a time.
    const step = $("step");
    for (let n = 0; frame < last && n <= last; n++) step.click();
  } else if (wanted) {
    show(wanted[1]);
  }
  document.body.dataset.ready = "1";
})();
