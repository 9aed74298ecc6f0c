// What both pages of railrules serve (a game's, the lobby's) start from: the token their address
// ends with, an element by its id, and a new element with its attributes and children.
"use strict";

const TOKEN = decodeURIComponent(location.pathname.split("/").pop());
const $ = id => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}
