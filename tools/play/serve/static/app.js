// railrules serve: the page of one game. It asks the server for what this page may see
// (/api/TOKEN/state), draws it, and sends the person's clicks (act, why, undo, save, load).
// When a bot is to move, it asks the server to move it after the chosen delay: the bots' moves
// are shown one by one. No library, nothing fetched from elsewhere: it works offline.
// The board is drawn in a pane that zooms (wheel, pinch, buttons) and pans (drag): it opens
// where its labels are readable, at the whole board when that is readable too. The picture's
// legend and displays are taken out of it into the side column. When the options name hexes,
// the board is the list: the hexes are highlighted, and a long list of buttons is folded.
"use strict";

const API = "/api/" + encodeURIComponent(TOKEN) + "/";
let S = null;            // the last state the server sent
let boardVersion = -1;   // the version of the board drawn
let timer = null;        // the next bot move or look
let hexFilter = null;    // a clicked hex: the options list shows only those naming it
let speedChosen = false;
let unfolded = new Set(); // the option groups whose folded list the person opened (this version)
const FOLD_HEXES = 8;    // a choice among more hexes than this is made on the board
const FOLD_LONG = 40;    // a longer list of anything is folded, with a filter

async function call(name, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"},
    body: typeof body === "string" ? body : JSON.stringify(body)};
  const response = await fetch(API + name, init);
  let data;
  try { data = await response.json(); } catch (e) { data = {error: "the server answered " + response.status}; }
  if (!response.ok) {
    const err = new Error(data.error || String(response.status));
    err.data = data; err.status = response.status;
    throw err;
  }
  return data;
}

function say(text, refused) {
  const m = $("message");
  m.textContent = text || "";
  m.className = refused ? "refused" : "";
}

async function look() {
  clearTimeout(timer); timer = null;
  try {
    const s = await call("state?have=" + boardVersion);
    draw(s);
  } catch (err) {
    say(err.message, true);
    if (err.status !== 404) timer = setTimeout(look, 3000);
  }
}

function draw(s) {
  const moved = !S || S.version !== s.version;
  S = s;
  if (!moved) { schedule(s); return; }   // nothing changed: the buttons stay under the mouse
  hexFilter = null;
  unfolded = new Set();
  if (!speedChosen) { $("speed").value = String(Math.round(s.delay * 1000)); speedChosen = true; }
  document.title = s.title + " · " + s.page;
  $("title").textContent = s.title;
  $("page").textContent = s.seat ? "your page: " + s.page :
    s.seats.some(p => p.plays === "person") ? "the table (hotseat)" : "the table (bots only)";
  if (s.board !== undefined) { drawBoard(s.board); boardVersion = s.version; }
  $("seats").replaceChildren(...s.seats.map(p => {
    const item = el("li", {class: p.current ? "current" : "", "data-seat": p.id, title: p.plays});
    if (p.colour) {
      const dot = el("span", {class: "dot"});
      dot.style.background = p.colour;
      item.append(dot);
    }
    item.append(p.name + " (" + p.plays + ")");
    return item;
  }));
  drawStatus(s);
  drawOptions(s);
  markHexes(s);
  if (!view.scale) start(); else showView();
  toTheHexes();
  const log = $("log");
  log.textContent = s.log.join("\n");
  log.scrollTop = log.scrollHeight;
  $("summary").textContent = s.summary;
  $("undo").disabled = !s.can_undo;
  const current = s.seats.find(p => p.current);
  $("botstep").disabled = s.over || !current || current.plays === "person";
  $("host").hidden = !s.links;
  $("linkbox").hidden = !s.links;
  if (s.links) {
    $("links").replaceChildren(...Object.entries(s.links).map(([name, path]) =>
      el("li", {}, name + ": ", el("a", {href: path, target: "_blank", rel: "noreferrer"}, location.origin + path))));
  }
  drawCurtain(s);
  schedule(s);
}

// The table's page of a game with secrets is sent a person's view only once they asked for it
// (s.curtain: whose view is held back): the device is handed over first, the others look away.
function drawCurtain(s) {
  const closed = !!s.curtain;
  $("curtain").hidden = !closed;
  for (const id of ["choice", "logbox", "statebox"]) $(id).hidden = closed;
  if (closed) {
    say("");   // what the last person was told stays with them
    const name = s.seats.find(p => p.id === s.curtain).name;
    $("curtaintext").textContent = name + "'s turn: this game has secrets. Hand the device to " +
      name + ", then show their view.";
    $("reveal").textContent = "I am " + name + ": show my view";
  }
}

$("reveal").addEventListener("click", async () => {
  try { await call("lift", {seat: S.curtain}); S = null; } catch (err) { say(err.message, true); }
  look();   // (S = null: the same version, drawn again with the view the server now sends)
});

function drawStatus(s) {
  const status = $("status");
  const current = s.seats.find(p => p.current);
  const last = s.last ? s.last.by + ": " + s.last.label + (s.last.note ? " (" + s.last.note + ")" : "") + ". " : "";
  status.className = s.options.length ? "yours" : "";
  if (s.over) status.textContent = last + "\n" + s.standings;
  else if (s.options.length) status.textContent = last + "Your choice, " + current.name + ".";
  else if (current && current.plays === "person") status.textContent = last + "Waiting for " + current.name + ".";
  else if (current) status.textContent = last + current.name + " (" + current.plays + ") is to move.";
  else status.textContent = last;
  if (s.unsaved) status.textContent += "\n" + s.unsaved;   // the save after the last decision failed
}

function drawOptions(s) {
  const shown = hexFilter ? s.options.filter(o => o.hexes.includes(hexFilter)) : s.options;
  $("choicetitle").textContent = hexFilter ? "options on " + hexFilter : "options";
  $("paused").textContent = s.paused || "";
  if (s.example) $("whylabel").placeholder = "why… (an action, e.g. " + s.example + ")";
  const groups = new Map();
  for (const o of shown) {
    if (!groups.has(o.name)) groups.set(o.name, []);
    groups.get(o.name).push(o);
  }
  const rows = [];
  for (const [name, options] of groups) {
    const single = options.length === 1 && !options[0].args.length;   // a choice without values
    const row = single ? el("div", {class: "single"}) : el("div", {class: "group", "data-name": name}, el("b", {}, name));
    const buttons = options.map(optionButton);
    const onBoard = options.every(o => o.hexes.length) && options.length > FOLD_HEXES;
    if ((onBoard || options.length > FOLD_LONG) && !hexFilter) row.append(...folded(name, buttons, onBoard));
    else row.append(...buttons);
    rows.push(row);
  }
  if (hexFilter) {
    const all = el("button", {type: "button"}, "all options");
    all.addEventListener("click", () => { hexFilter = null; drawOptions(S); markHexes(S); });
    rows.push(all);
  }
  if (!s.options.length) rows.push(el("p", {}, s.over ? "The game is over." : "Nothing to choose on this page now."));
  $("options").replaceChildren(...rows);
}

function optionButton(o) {
  const text = o.args.length ? o.args.join(" ") : o.name;
  const button = el("button", {type: "button", class: "option", "data-label": o.label,
                               title: [o.label, o.names, o.cost, o.about].filter(Boolean).join("  ")}, text);
  if (o.names) button.append(el("small", {}, o.names));
  if (o.cost) button.append(el("small", {}, o.cost));
  return button;
}

// A long list folded: a choice among hexes is made on the board (the list opens on asking);
// any other long list opens with a filter that keeps the buttons whose text holds what is typed.
function folded(name, buttons, onBoard) {
  const open = unfolded.has(name);
  const hexes = new Set(S.options.filter(o => o.name === name).flatMap(o => o.hexes)).size;
  const hint = el("span", {class: "hint"}, !onBoard ? buttons.length + " choices" :
    (hexes === buttons.length ? hexes + " hexes" : buttons.length + " choices on " + hexes + " hexes") +
    ": click a highlighted hex on the board");
  const list = el("div", {class: "list"}, ...buttons);
  const filter = el("input", {class: "filter", type: "search", placeholder: "filter…", "aria-label": "filter the " + name + " choices"});
  filter.addEventListener("input", () => {
    const word = filter.value.trim().toLowerCase();
    for (const b of buttons) b.hidden = word !== "" && !b.textContent.toLowerCase().includes(word);
  });
  const details = el("details", {}, el("summary", {}, onBoard ? "or list them" : "list them"), filter, list);
  details.open = open;
  details.addEventListener("toggle", () => { if (details.open) unfolded.add(name); else unfolded.delete(name); });
  return [hint, details];
}

function markHexes(s) {
  const can = new Set(s.options.flatMap(o => o.hexes));
  const last = new Set(s.last ? s.last.hexes : []);
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const layer = svg.querySelector("g.highlight");
  layer.replaceChildren();
  for (const g of svg.querySelectorAll("g.hex")) {
    const id = g.getAttribute("data-id");
    g.classList.toggle("can", can.has(id));
    g.classList.toggle("last", last.has(id));
    if (!can.has(id)) continue;
    for (const shape of g.querySelectorAll("polygon")) {   // drawn over the neighbours' edges
      const copy = shape.cloneNode(false);
      copy.removeAttribute("fill"); copy.removeAttribute("stroke"); copy.removeAttribute("stroke-width");
      copy.removeAttribute("stroke-dasharray");
      if (id === hexFilter) copy.setAttribute("class", "chosen");
      layer.append(copy);
    }
  }
  $("board").classList.toggle("choosing", can.size > 0);
}

// ------------------------------------------------------------------ the board's pane
// The view: ``scale`` screen pixels per unit of the picture, (x, y) the picture's point at the
// pane's top left corner. ``map`` is the box of the hexes and their texts, in picture units.
const view = {scale: 0, x: 0, y: 0, map: null, readable: 1};
const READABLE = {name: 11, label: 9, "edge-label": 9};   // the smallest font on screen, px

function drawBoard(text) {
  const board = $("board");
  board.innerHTML = text;
  const svg = board.querySelector("svg");
  if (!svg) return;
  const key = [];
  for (const part of svg.querySelectorAll(":scope > g.legend, :scope > g.display")) key.push(part);
  for (const part of svg.querySelectorAll(":scope > g.panel, :scope > text.title, :scope > rect.background")) part.remove();
  $("key").replaceChildren(...key.map(part => {
    const holder = el("div", {});
    const small = document.createElementNS(svg.namespaceURI, "svg");
    for (const a of ["font-family", "font-size"]) small.setAttribute(a, svg.getAttribute(a));
    small.append(part);
    holder.append(small);
    return holder;
  }));
  $("keybox").hidden = key.length === 0;
  for (const small of $("key").querySelectorAll("svg")) {
    const box = small.getBBox();
    small.setAttribute("viewBox", [box.x - 4, box.y - 4, box.width + 8, box.height + 8].join(" "));
    small.setAttribute("width", Math.ceil(box.width + 8));
    small.setAttribute("height", Math.ceil(box.height + 8));
  }
  svg.removeAttribute("width"); svg.removeAttribute("height");
  const marks = svg.querySelector("#marks");
  const layer = document.createElementNS(svg.namespaceURI, "g");
  layer.setAttribute("class", "highlight");
  svg.insertBefore(layer, marks);
  const box = svg.getBBox();
  view.map = {x: box.x, y: box.y, width: box.width, height: box.height};
  view.readable = Math.max(1, ...[...svg.querySelectorAll("text")].map(t =>
    (READABLE[t.getAttribute("class")] || 0) / (+t.getAttribute("font-size") || 9)));
}

// The middle of the hexes the options name (none: null).
function hexesMiddle() {
  const boxes = [...$("board").querySelectorAll("g.hex.can")].map(g => g.getBBox());
  if (!boxes.length) return null;
  return [boxes.reduce((t, b) => t + b.x + b.width / 2, 0) / boxes.length,
          boxes.reduce((t, b) => t + b.y + b.height / 2, 0) / boxes.length];
}

// A new choice among hexes none of which is in the pane: the map moves to them.
function toTheHexes() {
  const middle = hexesMiddle();
  if (!middle || !view.scale) return;
  const p = pane(), w = p.width / view.scale, h = p.height / view.scale;
  const seen = [...$("board").querySelectorAll("g.hex.can")].some(g => {
    const b = g.getBBox(), x = b.x + b.width / 2, y = b.y + b.height / 2;
    return x >= view.x && x <= view.x + w && y >= view.y && y <= view.y + h;
  });
  if (!seen) zoomTo(view.scale, ...middle);
}

// Where the board opens: the whole board if its labels are readable so; else at the readable
// size, at the middle of the hexes the options name (or of the board).
function start() {
  if (!view.map) return;
  const fit = fitScale();
  if (fit >= view.readable) { fitAll(); return; }
  const m = view.map;
  zoomTo(view.readable, ...(hexesMiddle() || [m.x + m.width / 2, m.y + m.height / 2]));
}

function pane() { const b = $("board"); return {width: b.clientWidth || 1, height: b.clientHeight || 1}; }
function fitScale() {
  const p = pane(), m = view.map;
  return m ? Math.min(p.width / (m.width + 16), p.height / (m.height + 16)) : 1;
}
function fitAll() { const m = view.map; if (m) zoomTo(fitScale(), m.x + m.width / 2, m.y + m.height / 2); }

function zoomTo(scale, cx, cy) {   // (cx, cy) of the picture at the pane's middle
  const p = pane();
  view.scale = scale;
  view.x = cx - p.width / 2 / scale;
  view.y = cy - p.height / 2 / scale;
  showView();
}

// Zoom by ``factor`` keeping the picture's point under (px, py) of the pane where it is.
function zoomAt(factor, px, py) {
  const min = Math.min(fitScale(), view.readable) / 2, max = view.readable * 4;
  const scale = Math.min(max, Math.max(min, view.scale * factor));
  view.x += px / view.scale - px / scale;
  view.y += py / view.scale - py / scale;
  view.scale = scale;
  showView();
}

function showView() {
  const svg = $("board").querySelector("svg");
  if (!svg || !view.map) return;
  const p = pane(), m = view.map, w = p.width / view.scale, h = p.height / view.scale;
  // the board stays at least partly in the pane
  view.x = Math.min(Math.max(view.x, m.x - w * 0.8), m.x + m.width - w * 0.2);
  view.y = Math.min(Math.max(view.y, m.y - h * 0.8), m.y + m.height - h * 0.2);
  svg.setAttribute("viewBox", [view.x, view.y, w, h].map(v => v.toFixed(2)).join(" "));
}

$("zoomin").addEventListener("click", () => { const p = pane(); zoomAt(1.4, p.width / 2, p.height / 2); });
$("zoomout").addEventListener("click", () => { const p = pane(); zoomAt(1 / 1.4, p.width / 2, p.height / 2); });
$("zoomfit").addEventListener("click", fitAll);
window.addEventListener("resize", () => {
  if (!view.scale) return;
  showView();
});

$("board").addEventListener("wheel", e => {
  e.preventDefault();
  const r = $("board").getBoundingClientRect();
  zoomAt(Math.exp(-e.deltaY * (e.deltaMode ? 0.05 : 0.0015)), e.clientX - r.left - $("board").clientLeft,
         e.clientY - r.top - $("board").clientTop);
}, {passive: false});

// Pointers down on the board: one drags the view, two pinch it. A drag is no click on a hex.
const pointers = new Map();
let dragged = false;
$("board").addEventListener("pointerdown", e => {
  pointers.set(e.pointerId, {x: e.clientX, y: e.clientY});
  if (pointers.size === 1) dragged = false;
});
$("board").addEventListener("pointermove", e => {
  const was = pointers.get(e.pointerId);
  if (!was) return;
  const now = {x: e.clientX, y: e.clientY};
  if (pointers.size === 1) {
    if (!dragged && Math.hypot(now.x - was.x, now.y - was.y) < 5) return;
    if (!dragged) $("board").setPointerCapture(e.pointerId);
    dragged = true;
    $("board").classList.add("dragging");
    view.x -= (now.x - was.x) / view.scale;
    view.y -= (now.y - was.y) / view.scale;
    showView();
  } else if (pointers.size === 2) {
    const other = [...pointers.entries()].find(([id]) => id !== e.pointerId)[1];
    const r = $("board").getBoundingClientRect();
    const before = Math.hypot(was.x - other.x, was.y - other.y), after = Math.hypot(now.x - other.x, now.y - other.y);
    const mid = {x: (now.x + other.x) / 2 - r.left - $("board").clientLeft, y: (now.y + other.y) / 2 - r.top - $("board").clientTop};
    view.x -= (now.x - was.x) / 2 / view.scale;
    view.y -= (now.y - was.y) / 2 / view.scale;
    if (before > 0) zoomAt(after / before, mid.x, mid.y); else showView();
    dragged = true;
  }
  pointers.set(e.pointerId, now);
});
for (const type of ["pointerup", "pointercancel", "pointerleave"]) {
  $("board").addEventListener(type, e => {
    pointers.delete(e.pointerId);
    if (!pointers.size) $("board").classList.remove("dragging");
  });
}

function schedule(s) {
  clearTimeout(timer);
  const current = s.seats.find(p => p.current);
  const botToMove = !s.over && current && current.plays !== "person";
  const delay = +$("speed").value;
  if (botToMove && delay >= 0) timer = setTimeout(botMove, delay);
  else if (!s.over) timer = setTimeout(look, botToMove ? 1500 : 1000);   // another page may move
}

async function botMove() {
  try {
    await call("step", {version: S.version});
  } catch (err) {
    if (err.status !== 409) say(err.message, true);
  }
  look();
}

async function act(label) {
  say("");
  try {
    const done = await call("act", {label: label, version: S.version});
    say("you: " + done.done);
  } catch (err) {
    say(err.message + (err.data && err.data.why ? "\n" + err.data.why : ""), true);
  }
  look();
}

$("options").addEventListener("click", e => {
  const button = e.target.closest("button.option");
  if (button) act(button.getAttribute("data-label"));
});

$("board").addEventListener("click", async e => {
  if (dragged) { dragged = false; return; }   // the end of a drag, not a click
  // the hex under the pointer, also when a mark, a track or a name drawn over it took the click
  const g = e.target.closest("g.hex") || document.elementsFromPoint(e.clientX, e.clientY)
    .map(node => node.closest("g.hex")).find(Boolean);
  if (!g || !S) return;
  const id = g.getAttribute("data-id");
  if (!$("curtain").hidden) { say("show your view first"); return; }
  if (!S.options.length) { say(S.over ? "the game is over" : "it is not your turn"); return; }
  const on = S.options.filter(o => o.hexes.includes(id));
  if (on.length === 1) { act(on[0].label); return; }
  if (on.length > 1) { hexFilter = id; drawOptions(S); markHexes(S); say(on.length + " options name " + id + ": choose one"); return; }
  try { say((await call("why", {hex: id})).why, true); } catch (err) { say(err.message, true); }
});

$("whyform").addEventListener("submit", async e => {
  e.preventDefault();
  if (!$("curtain").hidden) { say("show your view first"); return; }
  try { say((await call("why", {label: $("whylabel").value})).why); } catch (err) { say(err.message, true); }
});

$("undo").addEventListener("click", async () => {
  try { say((await call("undo", {})).done); } catch (err) { say(err.message, true); }
  look();
});

$("botstep").addEventListener("click", botMove);
$("speed").addEventListener("change", () => { if (S) schedule(S); });

$("save").addEventListener("click", async () => {
  try {
    const done = await call("save", {});
    // the file's text as the server wrote it: parsed here, numbers above 2^53 would change
    const blob = new Blob([done.text], {type: "application/json"});
    const a = el("a", {href: URL.createObjectURL(blob), download: done.saved.split("/").pop()});
    a.click();
    say("saved to " + done.saved + " (and downloaded)");
  } catch (err) { say(err.message, true); }
});

$("load").addEventListener("change", async e => {
  const file = e.target.files[0];
  if (!file) return;
  try { say((await call("load", await file.text())).done); } catch (err) { say(err.message, true); }
  e.target.value = "";
  look();
});

look();
