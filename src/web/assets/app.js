// The page of taw web: the panes of the state API, the agents that need
// you first, each question's menu as buttons. Every text from a pane is
// set as text (textContent), never as HTML.
"use strict";

const TOKEN_KEY = "taw_token";
const params = new URLSearchParams(location.search);
if (params.has("token")) {
  localStorage.setItem(TOKEN_KEY, params.get("token"));
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + (rest ? "?" + rest : ""));
}
const token = localStorage.getItem(TOKEN_KEY) || "";
const ORDER = { needs_input: 0, error: 1, working: 2, idle: 3, offline: 4 };
let panes = [];
const open = new Set();

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "onclick") node.addEventListener("click", value);
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child == null) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function say(text) {
  document.getElementById("error").textContent = text || "";
}

async function post(path, body) {
  const answer = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": "Bearer " + token },
    body: JSON.stringify(body),
  });
  if (!answer.ok) {
    let why = answer.status + "";
    try {
      const detail = (await answer.json()).detail;
      why = typeof detail === "string" ? detail : (detail && detail.reason) || why;
    } catch (_) {}
    say("not sent: " + why);
    refresh();
    return false;
  }
  say("");
  return true;
}

function input(pane, fields) {
  return post("api/input", Object.assign({ id: pane.id, expected: pane.action_guard }, fields));
}

function render() {
  const list = document.getElementById("panes");
  const sorted = panes.slice().sort((a, b) =>
    (b.starred - a.starred) || ((ORDER[a.status] ?? 9) - (ORDER[b.status] ?? 9)) ||
    a.target.localeCompare(b.target));
  list.replaceChildren(...sorted.map(card));
}

function card(pane) {
  const status = pane.status in ORDER ? pane.status : "unknown";
  const box = el("section", { class: "pane " + status, "data-id": pane.id });
  const star = el("button", {
    class: "star" + (pane.starred ? " on" : ""),
    "aria-label": "star",
    onclick: () => post("api/star", { target: pane.target, starred: !pane.starred }).then(refresh),
  }, pane.starred ? "★" : "☆");
  const name = el("span", { class: "name", onclick: () => { toggle(pane.id); } }, pane.name);
  box.append(el("div", { class: "head" }, star, name, el("span", { class: "status" }, status.replace("_", " "))));
  box.append(el("div", { class: "where" }, pane.target + " · " + pane.kind));
  if (pane.question) box.append(el("div", { class: "question" }, pane.question));
  const actionable = pane.actionable && !pane.stale && pane.capabilities && pane.capabilities.input === "guarded_v1";
  if (pane.menu && pane.menu.length) {
    const menu = el("div", { class: "menu" });
    for (const option of pane.menu) {
      const button = el("button", {
        class: option.selected ? "selected" : "",
        onclick: () => input(pane, { operation: "select", option_id: option.id }),
      }, option.label, option.description ? el("span", { class: "description" }, option.description) : null);
      if (!actionable) button.disabled = true;
      menu.append(button);
    }
    box.append(menu);
  }
  const lines = open.has(pane.id) ? pane.lines : pane.preview;
  if (lines && lines.length) box.append(el("pre", {}, lines.join("\n")));
  if (open.has(pane.id) && actionable) {
    const keys = el("div", { class: "keys" });
    for (const key of ["Enter", "Escape", "Up", "Down", "Tab", "C-c"]) {
      if ((pane.capabilities.keys || []).includes(key)) {
        keys.append(el("button", { onclick: () => input(pane, { operation: "key", key }) }, key));
      }
    }
    const field = el("input", { type: "text", placeholder: "type to the agent", "aria-label": "text" });
    const send = el("button", {
      onclick: () => {
        if (!field.value) return;
        input(pane, { operation: "text", text: field.value, enter: true }).then((ok) => { if (ok) field.value = ""; });
      },
    }, "Send");
    box.append(keys, el("div", { class: "send" }, field, send));
  }
  if (open.has(pane.id) && !pane.id.startsWith("cfg:")) {
    box.append(el("div", { class: "keys" }, el("button", {
      onclick: () => {
        const name = prompt("Name (empty takes it off)", pane.name);
        if (name !== null) post("api/rename", { id: pane.id, name }).then(refresh);
      },
    }, "Rename")));
  }
  return box;
}

function toggle(id) {
  if (open.has(id)) open.delete(id); else open.add(id);
  render();
}

async function refresh() {
  const answer = await fetch("api/state", { headers: { "Authorization": "Bearer " + token } });
  if (answer.status === 401) { say("the address needs its token: open the link taw web url prints"); return; }
  if (answer.ok) { panes = (await answer.json()).panes || []; render(); }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const base = location.pathname.replace(/[^/]*$/, "");
  const socket = new WebSocket(scheme + "//" + location.host + base + "ws?token=" + encodeURIComponent(token));
  socket.onopen = () => { document.getElementById("live").textContent = "live"; };
  socket.onmessage = (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type === "state") { panes = frame.panes || []; render(); }
  };
  socket.onclose = () => {
    document.getElementById("live").textContent = "reconnecting…";
    setTimeout(connect, 2000);
  };
}

refresh();
connect();
