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
// The last tap's outcome of each pane: { kind: sent|refused|stale, text, at }.
const results = new Map();
const RESULT_SHOWN_MS = 12000;
// Refusals that mean the screen moved on since the page drew it.
const STALE = new Set(["revision_stale", "prompt_changed", "options_changed", "endpoint_stale"]);
const REFUSALS = {
  capability_unavailable: "the agent takes no input from here now",
  delivery_unknown: "it may or may not have arrived; look at the pane",
  duplicate_in_flight: "the same tap is still on its way",
  key_not_allowed: "that key is not sent from here",
  unknown_pane: "the pane is gone",
  text_required: "there is nothing to send",
  unauthorized: "the address needs its token: open the link taw web url prints",
};

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

// A POST; null when it went through, else why not (the server's reason,
// or a word on the network).
async function send(path, body) {
  let answer;
  try {
    answer = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Authorization": "Bearer " + token },
      body: JSON.stringify(body),
    });
  } catch (_) {
    return "network";
  }
  if (answer.ok) return null;
  let why = answer.status === 401 ? "unauthorized" : answer.status + "";
  try {
    const detail = (await answer.json()).detail;
    why = typeof detail === "string" ? detail : (detail && detail.reason) || why;
  } catch (_) {}
  return why;
}

async function post(path, body) {
  const why = await send(path, body);
  say(why ? "not done: " + (REFUSALS[why] || why) : "");
  if (why) refresh();
  return !why;
}

// Sends to an agent, and shows on its card what came of it.
async function input(pane, fields, what) {
  const why = await send("api/input", Object.assign({ id: pane.id, expected: pane.action_guard }, fields));
  let result;
  if (!why) result = { kind: "sent", text: "Sent: " + what };
  else if (STALE.has(why)) result = { kind: "stale", text: "Not sent: the agent's screen changed since; here it is now" };
  else if (why === "network") result = { kind: "refused", text: "Not sent: the server did not answer" };
  else result = { kind: "refused", text: "Not sent: " + (REFUSALS[why] || why.replace(/_/g, " ")) };
  results.set(pane.id, Object.assign(result, { at: Date.now() }));
  render();
  if (why) refresh();
  setTimeout(render, RESULT_SHOWN_MS + 100);
  return !why;
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
        onclick: () => input(pane, { operation: "select", option_id: option.id }, option.label),
      }, option.label, option.description ? el("span", { class: "description" }, option.description) : null);
      if (!actionable) button.disabled = true;
      menu.append(button);
    }
    box.append(menu);
  }
  const result = results.get(pane.id);
  if (result && Date.now() - result.at < RESULT_SHOWN_MS) {
    box.append(el("div", { class: "result " + result.kind, role: "status" }, result.text));
  }
  const lines = open.has(pane.id) ? pane.lines : pane.preview;
  if (lines && lines.length) box.append(el("pre", {}, lines.join("\n")));
  if (open.has(pane.id) && actionable) {
    const keys = el("div", { class: "keys" });
    for (const key of ["Enter", "Escape", "Up", "Down", "Tab", "C-c"]) {
      if ((pane.capabilities.keys || []).includes(key)) {
        keys.append(el("button", { onclick: () => input(pane, { operation: "key", key }, key) }, key));
      }
    }
    const field = el("input", { type: "text", placeholder: "type to the agent", "aria-label": "text" });
    const send = el("button", {
      onclick: () => {
        if (!field.value) return;
        input(pane, { operation: "text", text: field.value, enter: true }, field.value).then((ok) => { if (ok) field.value = ""; });
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
  let answer;
  try {
    answer = await fetch("api/state", { headers: { "Authorization": "Bearer " + token } });
  } catch (_) {
    return;
  }
  if (answer.status === 401) { say(REFUSALS.unauthorized); return; }
  if (answer.ok) { panes = (await answer.json()).panes || []; render(); }
}

// The WebSocket, kept alive across a phone's sleep: the server beats every
// 25 s, so a socket silent for longer than SILENT_MS is dead even when the
// browser still calls it open (a phone that slept, a network that changed),
// and it is made anew, at once when the page is shown again.
const SILENT_MS = 60000;
let socket = null;
let heard = 0;
let retry = null;
let delay = 1000;

function live(text) {
  document.getElementById("live").textContent = text;
}

function connect() {
  clearTimeout(retry);
  if (socket) {
    socket.onclose = socket.onmessage = socket.onopen = null;
    socket.close();
  }
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const base = location.pathname.replace(/[^/]*$/, "");
  socket = new WebSocket(scheme + "//" + location.host + base + "ws?token=" + encodeURIComponent(token));
  heard = Date.now();
  socket.onopen = () => { delay = 1000; heard = Date.now(); live("live"); };
  socket.onmessage = (event) => {
    heard = Date.now();
    const frame = JSON.parse(event.data);
    if (frame.type === "state") { panes = frame.panes || []; render(); }
  };
  socket.onclose = () => {
    socket = null;
    live("reconnecting…");
    retry = setTimeout(connect, delay);
    delay = Math.min(delay * 2, 15000);
  };
}

function silent() {
  if (!socket) return true;
  const quiet = Date.now() - heard;
  if (socket.readyState === WebSocket.CONNECTING) return quiet > 20000;
  return socket.readyState !== WebSocket.OPEN || quiet > SILENT_MS;
}

setInterval(() => { if (socket && silent()) connect(); }, 5000);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible") return;
  refresh();
  if (silent() || Date.now() - heard > 30000) { delay = 1000; connect(); }
});
window.addEventListener("online", () => { delay = 1000; connect(); });
window.addEventListener("pageshow", (event) => { if (event.persisted) connect(); });

refresh();
connect();
