// Fuzi web page: chats that persist (list, history, new, rename, delete), replies streamed from
// /v1/chat (SSE over fetch) and rendered as safe Markdown (render.js), footnotes that open the passage,
// copy / regenerate / edit / retry, 👍/👎 on answers, photo upload, a queue for questions sent while a reply
// streams, zh/en interface.
"use strict";

import { applyLanguage, lang, t, toggleLanguage } from "./i18n.js";
import { ChatList, newId } from "./chats.js";
import { copyText, el, markdown, noteId, stamp } from "./render.js";

const PAGE = 50;
const MAX_PHOTO = 10 * 1024 * 1024;  // the server's limit (adapters/web/media.py); larger photos are refused here
const $ = (id) => document.getElementById(id);
const state = { token: localStorage.getItem("fuzi.token") || "", chat: "", controller: null, queue: [], seq: 0 };

// ---------------------------------------------------------------- HTTP
function headers(type = "application/json") {
  const h = { "Content-Type": type };
  if (state.token) h.Authorization = "Bearer " + state.token;
  return h;
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: headers() });
  if (response.status === 401) { $("login").hidden = false; throw new Error("unauthorized"); }
  return response;
}

async function errorText(response) {
  let body = {};
  try { body = await response.json(); } catch { /* not JSON */ }
  if (response.status === 429) return t("slow_down")(body.retry_after_s || Number(response.headers.get("retry-after")) || 60);
  if (response.status === 413) return t("too_long");
  if (response.status === 403) return t("forbidden");
  return t("http_error")(response.status);
}

// ---------------------------------------------------------------- scrolling: follow only a reader at the bottom
const atBottom = () => { const m = $("messages"); return m.scrollHeight - m.scrollTop - m.clientHeight < 48; };
function follow(wasAtBottom) { if (wasAtBottom) $("messages").scrollTop = $("messages").scrollHeight; }

function place(node, before) {
  const stay = atBottom();
  $("messages").querySelector(".empty")?.remove();
  if (before) before.before(node); else $("messages").append(node);
  follow(stay);
  return node;
}

// ---------------------------------------------------------------- messages
function action(label, handler) {
  const button = el("button", { type: "button", class: "act" }, t(label));
  button.addEventListener("click", () => handler(button));
  return button;
}

function addQuestion(text, when) {
  const node = el("article", { class: "msg me", "aria-label": t("you") }, el("div", { class: "body" }, text));
  node.append(el("div", { class: "meta" }, stamp(when), action("edit", () => { $("input").value = text; $("input").focus(); })));
  return place(node);
}

function addReply(question, when, before) {
  const node = el("article", { class: "msg fuzi", "aria-label": t("fuzi"), "data-scope": String(++state.seq) },
    el("div", { class: "body" }));
  node.question = question;
  node.raw = "";
  node.append(el("div", { class: "meta" }, stamp(when)));
  return place(node, before);
}

function addNotice(text, { retry, before } = {}) {
  const node = el("div", { class: "msg notice", role: "status" }, el("div", { class: "body" }, text));
  if (retry) node.append(el("div", { class: "meta" }, action("retry", () => ask(retry))));
  return place(node, before);
}

function showStatus(node) {
  node.querySelector(".body").replaceChildren(el("span", { class: "status" }, t("thinking")));
  node.classList.add("streaming");
}

let frame = 0;
function showDelta(node) {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    const stay = atBottom();
    node.querySelector(".body").replaceChildren(markdown(node.raw, [], node.dataset.scope));
    follow(stay);
  });
}

function footnotes(node, citations) {
  const list = el("ol", { class: "footnotes", "aria-label": t("footnotes") });
  for (const cite of citations) {
    const button = el("button", { type: "button", "data-passage": cite.id, "aria-expanded": "false" }, cite.ref || cite.id);
    const item = el("li", { value: String(cite.n), id: noteId(node.dataset.scope, cite) }, button);
    button.addEventListener("click", () => togglePassage(item, button, cite.id));
    list.append(item);
  }
  return list;
}

async function togglePassage(item, button, id) {
  const open = item.querySelector("blockquote");
  button.setAttribute("aria-expanded", open ? "false" : "true");
  if (open) { open.remove(); return; }
  const response = await api("/v1/passages/" + encodeURIComponent(id));
  const quote = el("blockquote", { class: "passage" }, response.ok ? (await response.json()).text : id);
  item.append(quote);
}

function vote(node, verdict) {
  const button = el("button", { type: "button", class: "act vote", "data-verdict": verdict, "aria-pressed": "false",
    "aria-label": t(verdict), title: t(verdict) }, verdict === "up" ? "👍" : "👎");
  button.addEventListener("click", async () => {
    const chosen = button.getAttribute("aria-pressed") === "true" ? "none" : verdict;  // the active one again: take it back
    const body = JSON.stringify({ trace_id: node.trace, verdict: chosen });
    const response = await api("/v1/feedback", { method: "POST", body }).catch(() => null);
    if (!response?.ok) return;
    for (const b of node.querySelectorAll(".meta .vote")) b.setAttribute("aria-pressed", String(b.dataset.verdict === chosen));
  });
  return button;
}

function showFinal(node, text, citations, when) {
  cancelAnimationFrame(frame);
  frame = 0;
  const stay = atBottom();
  node.classList.remove("streaming");
  node.raw = text;
  node.querySelector(".body").replaceChildren(markdown(text, citations, node.dataset.scope));
  if (citations.length) node.querySelector(".meta").before(footnotes(node, citations));
  node.querySelector(".meta").replaceChildren(stamp(when), action("copy", (b) => copyText(node.raw, b)),
    ...(node.question ? [action("regenerate", () => ask(node.question))] : []),
    ...(node.trace ? [vote(node, "up"), vote(node, "down")] : []));
  follow(stay);
}

function renderHistory(messages) {
  let question = null;
  for (const m of messages) {
    if (m.role === "user") {
      question = m.text;
      addQuestion(m.text, m.created_at);
      if (m.status !== "ok") addNotice(t("unanswered")(m.status));
    } else if (m.text) {
      const text = m.status === "cancelled" ? m.text + t("stopped") : m.text;
      showFinal(addReply(question, m.created_at), text, m.citations, m.created_at);
    }
  }
}

function emptyHint() {
  const examples = t("examples").map((q) => {
    const button = el("button", { type: "button" }, q);
    button.addEventListener("click", () => { $("input").value = q; $("input").focus(); });
    return button;
  });
  $("messages").replaceChildren(el("div", { class: "empty" }, el("p", {}, t("empty")), el("div", { class: "examples" }, ...examples)));
}

// ---------------------------------------------------------------- asking: one reply at a time, later questions queue
async function* sseEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const raw = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const name = (raw.match(/^event: (.*)$/m) || [])[1];
      const data = (raw.match(/^data: (.*)$/m) || [])[1];
      if (name && data) yield [name, JSON.parse(data)];
    }
  }
}

function ask(message, photo = null) {
  const command = !photo && message.startsWith("/");
  const shown = photo ? "📷 " + (message || photo.name) : message;
  if (state.controller) {
    const queued = command ? null : addQuestion(shown);
    queued?.classList.add("queued");
    queued?.querySelector(".meta").prepend(el("span", { class: "queued-label" }, t("queued")));
    state.queue.push({ message, queued, chat: state.chat, photo });
    return;
  }
  stream(message, command ? null : addQuestion(shown), photo);
}

function sendPhoto(file) {
  if (!file) return;
  if (file.size > MAX_PHOTO) { addNotice(t("photo_too_big")); return; }
  const caption = $("input").value.trim();
  $("input").value = "";
  ask(caption, file);
}

function post(message, photo, signal) {
  if (!photo) {
    return fetch("/v1/chat", { method: "POST", headers: headers(), signal, body: JSON.stringify({ message, chat: state.chat }) });
  }
  const query = new URLSearchParams({ chat: state.chat });
  if (message) query.set("caption", message);
  const type = photo.type || "application/octet-stream";  // the server answers 415 to what is not image/*
  return fetch("/v1/chat/image?" + query, { method: "POST", headers: headers(type), signal, body: photo });
}

async function stream(message, questionNode, photo = null) {
  const command = !photo && message.startsWith("/");
  const retry = command || photo ? null : message;  // a photo is not sent again by a retry button
  const node = addReply(retry, null, questionNode?.nextElementSibling);  // right under its question
  showStatus(node);
  const controller = (state.controller = new AbortController());
  $("stop").hidden = false;
  let final = false;
  try {
    const response = await post(message, photo, controller.signal);
    if (response.status === 401) { $("login").hidden = false; }
    if (photo && response.status === 413) { addNotice(t("photo_too_big"), { before: node }); return; }
    if (!response.ok) { addNotice(await errorText(response), { retry: photo ? null : message, before: node }); return; }
    const trace = response.headers.get("X-Trace-Id") || "";  // 👍/👎 only on a final answer, not a stopped one
    for await (const [name, data] of sseEvents(response)) {
      if (name === "delta") { node.raw += data.text; showDelta(node); }
      else if (name === "reset") { node.raw = ""; showStatus(node); }
      else if (name === "final") { final = true; node.trace = data.trace_id || trace; showFinal(node, data.text, data.citations); }
      else if (name === "notice") {
        if (data.extra && data.extra.current) selectSkill(data.extra.current);
        addNotice(data.text, { retry: data.reason === "error" ? retry : null, before: node });
      }
    }
    if (!final && node.raw) { showFinal(node, node.raw + t("stopped"), []); final = true; }
  } catch (error) {
    if (error.name === "AbortError") {
      if (node.raw) { showFinal(node, node.raw + t("stopped"), []); final = true; }
    } else addNotice(t("failed"), { retry, before: node });
  } finally {
    if (!final) node.remove();
    questionNode?.classList.remove("queued");
    questionNode?.querySelector(".queued-label")?.remove();
    state.controller = null;
    $("stop").hidden = true;
    if (!command) chatList.load().catch(() => {});
    next();
  }
}

function next() {
  const item = state.queue.shift();
  if (!item) return;
  if (item.chat !== state.chat) { next(); return; }  // the person left that chat; its bubble went with it
  stream(item.message, item.queued, item.photo);
}

async function stop() {
  if (!state.controller) return;
  await api("/v1/chat/cancel", { method: "POST", body: JSON.stringify({ chat: state.chat }) }).catch(() => {});
  state.controller?.abort();
}

// ---------------------------------------------------------------- chats
const chatList = new ChatList($("chat-list"), {
  api, current: () => state.chat, open: (id) => openChat(id), deleted: (id) => { if (id === state.chat) newChat(); },
});

async function openChat(id) {
  state.queue = [];  // questions waiting for the chat being left go with its view (an explicit switch)
  if (state.controller) await stop();
  state.chat = id;
  localStorage.setItem("fuzi.chat", id);
  drawer(false);
  chatList.render();
  $("messages").replaceChildren();
  await loadPage(null);
  if (!$("messages").children.length) emptyHint();
  loadSkills().catch(() => {});
}

async function loadPage(before) {
  const query = `?limit=${PAGE}` + (before ? `&before=${before}` : "");
  const response = await api(`/v1/chats/${state.chat}/messages${query}`);
  if (!response.ok) return;
  const messages = (await response.json()).messages;
  const box = $("messages");
  const rest = [...box.children];
  const height = box.scrollHeight;
  box.replaceChildren();
  if (messages.length === PAGE) {
    const older = el("button", { type: "button", class: "older" }, t("older"));
    older.addEventListener("click", () => { older.remove(); loadPage(messages[0].id); });
    box.append(older);
  }
  renderHistory(messages);
  box.append(...rest);
  box.scrollTop = before ? box.scrollHeight - height : box.scrollHeight;
}

function newChat() {
  state.chat = newId();
  localStorage.setItem("fuzi.chat", state.chat);
  drawer(false);
  chatList.render();
  emptyHint();
  loadSkills().catch(() => {});
  $("input").focus();
}

function drawer(open) {
  document.body.classList.toggle("drawer-open", open);
  $("backdrop").hidden = !open;
  $("menu").setAttribute("aria-expanded", String(open));
}

// ---------------------------------------------------------------- skills, login, start
function selectSkill(name) { if ([...$("skill").options].some((o) => o.value === name)) $("skill").value = name; }

async function loadSkills() {
  const response = await api("/v1/skills?chat=" + state.chat);
  if (!response.ok) return;
  const data = await response.json();
  $("skill").replaceChildren(...data.skills.map((s) => el("option", { value: s.name }, s.display)));
  if (data.current) selectSkill(data.current);
}

async function begin() {
  const me = await api("/v1/me");
  if (!me.ok) return;
  $("login").hidden = true;
  $("logout").hidden = (await me.json()).auth !== "jwt";
  await chatList.load();
  const remembered = localStorage.getItem("fuzi.chat");
  const last = chatList.chats.find((c) => c.chat === remembered) || chatList.chats[0];
  if (last) await openChat(last.chat); else newChat();
}

function wire() {
  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("input").value.trim();
    if (!message) return;
    $("input").value = "";
    ask(message);
  });
  $("input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) { event.preventDefault(); $("ask").requestSubmit(); }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (document.body.classList.contains("drawer-open")) drawer(false); else stop();
  });
  $("stop").addEventListener("click", stop);
  $("photo").addEventListener("click", () => $("photo-file").click());
  $("photo-file").addEventListener("change", () => { const file = $("photo-file").files[0]; $("photo-file").value = ""; sendPhoto(file); });
  $("skill").addEventListener("change", () => ask("/skill " + $("skill").value));
  $("memories").addEventListener("click", () => ask("/memories"));
  $("lang").addEventListener("click", () => { toggleLanguage(); applyLanguage(); chatList.render(); });
  $("new-chat").addEventListener("click", newChat);
  $("menu").addEventListener("click", () => drawer(!document.body.classList.contains("drawer-open")));
  $("backdrop").addEventListener("click", () => drawer(false));
  $("save-token").addEventListener("click", () => {
    state.token = $("token").value.trim();
    localStorage.setItem("fuzi.token", state.token);
    begin().catch(() => {});
  });
  $("logout").addEventListener("click", () => {
    state.token = "";
    localStorage.removeItem("fuzi.token");
    chatList.clear();
    $("messages").replaceChildren();
    $("logout").hidden = true;
    $("login").hidden = false;
  });
}

// "问夫子" in the reading room opens /#ask=<passage id>: the passage goes into the input, quoted, to ask about
async function quotePassage() {
  const id = decodeURIComponent(location.hash.startsWith("#ask=") ? location.hash.slice(5) : "");
  if (!id) return;
  history.replaceState(null, "", location.pathname);
  const response = await api(`/v1/passages/${encodeURIComponent(id)}`, { method: "GET" });
  if (!response.ok) return;
  const passage = await response.json();
  $("input").value = `「${passage.text}」——${passage.ref}\n`;
  $("input").focus();
}

function start() {
  applyLanguage();
  wire();
  begin().catch(() => {});
  quotePassage().catch(() => {});
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
