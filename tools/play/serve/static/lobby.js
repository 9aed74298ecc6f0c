// railrules serve --lobby: the host's page of the server's tables. It lists the games in progress
// with every page's link (/api/lobby/TOKEN/state) and starts a new table from the form
// (/api/lobby/TOKEN/start). No library, nothing fetched from elsewhere.
"use strict";

const API = "/api/lobby/" + encodeURIComponent(TOKEN) + "/";
let L = null;   // the last state the server sent

async function call(name, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const response = await fetch(API + name, init);
  let data;
  try { data = await response.json(); } catch (e) { data = {error: "the server answered " + response.status}; }
  if (!response.ok) throw new Error(data.error || String(response.status));
  return data;
}

function say(text, refused) {
  $("message").textContent = text || "";
  $("message").className = refused ? "refused" : "";
}

function link(path, text) {
  return el("a", {href: path, target: "_blank", rel: "noreferrer", title: location.origin + path}, text);
}

function row(t) {
  const game = el("td", {"data-label": "game"}, el("b", {}, t.title), " ", el("span", {class: "variant"},
    t.variant ? "(" + t.variant + ")" : ""), el("br"), link(t.table, "the table's page (hotseat)"),
    el("br"), el("small", {}, "seed " + t.seed));
  const seats = el("ul", {class: "seats"}, ...t.seats.map(p => el("li", {},
    p.link ? link(p.link, p.name) : p.name, " — " + p.plays)));
  const turn = t.over ? "over" + (t.winners.length ? ": " + t.winners.join(", ") + " won" : "") : t.turn.join(", ");
  return el("tr", {class: t.over ? "over" : ""}, game,
            el("td", {"data-label": "players and seats"}, t.players + " players", seats),
            el("td", {"data-label": "decisions"}, String(t.decisions)), el("td", {"data-label": "whose turn"}, turn),
            el("td", {class: "save", "data-label": "save"}, el("code", {}, t.save)));
}

function draw(l) {
  const first = !L;
  L = l;
  $("rows").replaceChildren(...l.tables.map(row));
  $("none").hidden = l.tables.length > 0;
  $("broken").replaceChildren(...l.broken.map(b => el("li", {}, b.save + ": not served (" + b.error + ")")));
  if (first) {
    $("ruleset").replaceChildren(...l.rulesets.map(r => el("option", {value: r.name}, r.title)));
    $("bots").replaceChildren(...l.bots.map(b => el("option", {value: b}, b)));
    chosen();
  }
}

// the form follows the game chosen: its variants, its players, the seats people may take
function chosen() {
  const r = L.rulesets.find(x => x.name === $("ruleset").value);
  $("variant").replaceChildren(el("option", {value: ""}, "(none)"), ...r.variants.map(v => el("option", {value: v}, v)));
  $("players").min = r.players[0]; $("players").max = r.players[1];
  const n = Math.min(Math.max(+$("players").value || r.players[0], r.players[0]), r.players[1]);
  $("players").value = n;
  seats();
}

function seats() {
  const n = +$("players").value || 0;
  const was = new Set([...document.querySelectorAll("#people input:checked")].map(i => +i.value));
  if (!was.size) was.add(1);
  $("people").replaceChildren(...Array.from({length: Math.min(n, 12)}, (_, k) => el("label", {},
    el("input", Object.assign({type: "checkbox", value: String(k + 1)}, was.has(k + 1) ? {checked: ""} : {})),
    " " + (k + 1))));
}

async function look() {
  try { draw(await call("state")); } catch (err) { say(err.message, true); }
}

$("ruleset").addEventListener("change", chosen);
$("players").addEventListener("input", seats);
$("start").addEventListener("submit", async e => {
  e.preventDefault();
  const form = {
    ruleset: $("ruleset").value, variant: $("variant").value || null, players: +$("players").value,
    people: [...document.querySelectorAll("#people input:checked")].map(i => +i.value),
    bots: $("bots").value, seed: $("seed").value === "" ? null : +$("seed").value};
  try {
    const done = await call("start", form);
    say("started " + done.started.title + " (" + done.started.save + "): its links are in the list");
  } catch (err) { say(err.message, true); }
  look();
});

look();
setInterval(look, 5000);
