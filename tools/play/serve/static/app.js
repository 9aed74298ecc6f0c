// railrules serve: the page of one game. It asks the server for what this page may see
// (/api/TOKEN/state), draws it, and sends the person's clicks (act, why, undo, save, load).
// When a bot is to move, it asks the server to move it after the chosen delay: the bots' moves
// are shown one by one. No library, nothing fetched from elsewhere: it works offline.
"use strict";

const TOKEN = decodeURIComponent(location.pathname.split("/").pop());
const API = "/api/" + encodeURIComponent(TOKEN) + "/";
const $ = id => document.getElementById(id);
let S = null;            // the last state the server sent
let boardVersion = -1;   // the version of the board drawn
let timer = null;        // the next bot move or look
let hexFilter = null;    // a clicked hex: the options list shows only those naming it
let speedChosen = false;
let revealed = null;     // hotseat with secrets: the seat whose view the table's page shows now

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

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
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
  if (!speedChosen) { $("speed").value = String(Math.round(s.delay * 1000)); speedChosen = true; }
  document.title = s.title + " · " + s.page;
  $("title").textContent = s.title;
  $("page").textContent = s.seat ? "your page: " + s.page :
    s.seats.some(p => p.plays === "person") ? "the table (hotseat)" : "the table (bots only)";
  if (s.board !== undefined) { $("board").innerHTML = s.board; boardVersion = s.version; }
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

// The table's page of a game with secrets shows a person's view only once they asked for it:
// the device is handed over first, the others look away.
function drawCurtain(s) {
  const closed = !s.seat && s.secret && s.shown !== null && s.shown !== revealed;
  $("curtain").hidden = !closed;
  for (const id of ["choice", "logbox", "statebox"]) $(id).hidden = closed;
  if (closed) {
    const name = s.seats.find(p => p.id === s.shown).name;
    $("curtaintext").textContent = name + "'s turn: this game has secrets. Hand the device to " +
      name + ", then show their view.";
    $("reveal").textContent = "I am " + name + ": show my view";
  }
}

$("reveal").addEventListener("click", () => { revealed = S.shown; drawCurtain(S); });

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
    const row = single ? el("div", {class: "single"}) : el("div", {class: "group"}, el("b", {}, name));
    for (const o of options) {
      const text = o.args.length ? o.args.join(" ") : o.name;
      const button = el("button", {type: "button", class: "option", "data-label": o.label,
                                   title: [o.label, o.names, o.cost, o.about].filter(Boolean).join("  ")}, text);
      if (o.names) button.append(el("small", {}, o.names));
      if (o.cost) button.append(el("small", {}, o.cost));
      row.append(button);
    }
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

function markHexes(s) {
  const can = new Set(s.options.flatMap(o => o.hexes));
  const last = new Set(s.last ? s.last.hexes : []);
  for (const g of document.querySelectorAll("#board g.hex")) {
    const id = g.getAttribute("data-id");
    g.classList.toggle("can", can.has(id));
    g.classList.toggle("chosen", id === hexFilter);
    g.classList.toggle("last", last.has(id));
  }
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
