// Fuzi web page: streams /v1/chat (SSE over fetch), renders Markdown as DOM nodes (never innerHTML),
// footnotes that expand to the passage, skill switch, stop, zh/en interface.
"use strict";

const TEXT = {
  zh: { skill: "问学方式", memories: "记得什么", send: "请教", stop: "停止", save: "保存",
        need_token: "此服务需要令牌（fuzi token create --user 名字）。", placeholder: "向夫子请教……",
        tool: "翻检典籍", stopped: "（已停止）", failed: "连接中断，请再试。", lang: "EN" },
  en: { skill: "Mode", memories: "Memories", send: "Ask", stop: "Stop", save: "Save",
        need_token: "This server needs a token (fuzi token create --user NAME).", placeholder: "Ask the Master…",
        tool: "consulting the classics", stopped: " (stopped)", failed: "Connection lost; please try again.", lang: "中文" },
};
let lang = localStorage.getItem("fuzi.lang") || (navigator.language.startsWith("zh") ? "zh" : "en");
let token = localStorage.getItem("fuzi.token") || "";
let controller = null;
const chat = "main";
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

function headers() {
  const h = { "Content-Type": "application/json" };
  if (token) h.Authorization = "Bearer " + token;
  return h;
}

async function api(path, options) {
  const response = await fetch(path, { ...options, headers: headers() });
  if (response.status === 401) { $("login").hidden = false; throw new Error("unauthorized"); }
  return response;
}

// ---------------------------------------------------------------- interface language
function applyLanguage() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = TEXT[lang][node.dataset.i18n];
  $("input").placeholder = TEXT[lang].placeholder;
  $("lang").textContent = TEXT[lang].lang;
}

// ---------------------------------------------------------------- safe Markdown
// Inline: **bold**, *italic*, `code`, [n] citation markers. Blocks: paragraphs, "- " lists, "#" headings, ``` code.
function inline(text, citations) {
  const out = [];
  const pattern = /(\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`|\[\d{1,2}\])/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) out.push(document.createTextNode(text.slice(last, match.index)));
    const token = match[0];
    if (token.startsWith("**")) out.push(el("strong", {}, token.slice(2, -2)));
    else if (token.startsWith("`")) out.push(el("code", {}, token.slice(1, -1)));
    else if (token.startsWith("*")) out.push(el("em", {}, token.slice(1, -1)));
    else {
      const n = Number(token.slice(1, -1));
      const cite = citations.find((c) => c.n === n);
      if (cite) {
        const button = el("button", { type: "button", title: cite.ref }, String(n));
        button.addEventListener("click", () => document.getElementById(noteId(cite))?.querySelector("button").click());
        out.push(el("sup", { class: "cite" }, button));
      } else out.push(document.createTextNode(token));
    }
    last = match.index + token.length;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}

function markdown(text, citations) {
  const root = document.createDocumentFragment();
  const blocks = text.replace(/\r/g, "").split(/\n{2,}/);
  for (const block of blocks) {
    if (block.startsWith("```")) {
      root.append(el("pre", {}, block.replace(/^```\w*\n?/, "").replace(/\n?```$/, "")));
    } else if (/^#{1,6} /.test(block)) {
      root.append(el("h3", {}, ...inline(block.replace(/^#+ /, ""), citations)));
    } else if (block.split("\n").every((line) => /^\s*([-*]|\d+\.) /.test(line))) {
      const list = el("ul");
      for (const line of block.split("\n")) list.append(el("li", {}, ...inline(line.replace(/^\s*([-*]|\d+\.) /, ""), citations)));
      root.append(list);
    } else {
      const p = el("p");
      block.split("\n").forEach((line, i) => { if (i) p.append(el("br")); p.append(...inline(line, citations)); });
      root.append(p);
    }
  }
  return root;
}

const noteId = (cite) => "note-" + cite.n + "-" + cite.id.replace(/[^A-Za-z0-9]/g, "_");

function footnotes(citations) {
  const list = el("ol", { class: "footnotes" });
  for (const cite of citations) {
    const button = el("button", { type: "button", "data-passage": cite.id }, cite.ref || cite.id);
    const item = el("li", { value: String(cite.n), id: noteId(cite) }, button);
    button.addEventListener("click", () => togglePassage(item, cite.id));
    list.append(item);
  }
  return list;
}

async function togglePassage(item, id) {
  const open = item.querySelector("blockquote");
  if (open) { open.remove(); return; }
  const response = await api("/v1/passages/" + encodeURIComponent(id));
  const quote = el("blockquote", { class: "passage" });
  quote.textContent = response.ok ? (await response.json()).text : id;
  item.append(quote);
}

// ---------------------------------------------------------------- messages
function bubble(kind, text) {
  const body = el("div", { class: "body" }, text || "");
  const node = el("div", { class: "msg " + kind }, body);
  $("messages").append(node);
  node.scrollIntoView({ block: "end" });
  return node;
}

function showFinal(node, data) {
  node.classList.remove("streaming");
  const body = node.querySelector(".body");
  body.replaceChildren(markdown(data.text, data.citations));
  if (data.citations.length) node.append(footnotes(data.citations));
  node.append(el("div", { class: "trace" }, "trace " + data.trace_id));
}

function showNotice(node, data) {
  const status = node.querySelector(".status");
  if (status) status.remove();
  const body = node.querySelector(".body");
  if (body.textContent) { node.classList.remove("streaming"); bubble("notice", data.text); return; }
  node.className = "msg notice";
  body.textContent = data.text;
}

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

async function send(message, skill) {
  if (controller) return;
  if (message) bubble("me", message);
  const node = bubble("fuzi streaming", "");
  const body = node.querySelector(".body");
  controller = new AbortController();
  $("stop").hidden = false;
  let ended = false;
  try {
    const response = await fetch("/v1/chat", { method: "POST", headers: headers(), signal: controller.signal,
      body: JSON.stringify(skill ? { message, chat, skill } : { message, chat }) });
    if (response.status === 401) { $("login").hidden = false; node.remove(); return; }
    if (!response.ok) { showNotice(node, { text: (await response.json()).detail || response.statusText }); return; }
    for await (const [name, data] of sseEvents(response)) {
      if (name === "delta") { node.querySelector(".status")?.remove(); body.append(data.text); }
      else if (name === "reset") body.textContent = "";
      else if (name === "tool" && data.phase === "start" && !node.querySelector(".status"))
        node.append(el("div", { class: "status" }, "…" + TEXT[lang].tool));
      else if (name === "final") { ended = true; showFinal(node, data); }
      else if (name === "notice") {
        if (data.extra && data.extra.current) selectSkill(data.extra.current);
        if (skill && data.reason === "command" && message) continue;  // the switch before a message
        ended = true; showNotice(node, data);
      }
      node.scrollIntoView({ block: "end" });
    }
    if (!ended) { node.classList.remove("streaming"); body.append(TEXT[lang].stopped); }
  } catch (error) {
    if (error.name === "AbortError") { node.classList.remove("streaming"); body.append(TEXT[lang].stopped); }
    else showNotice(node, { text: TEXT[lang].failed });
  } finally {
    controller = null;
    $("stop").hidden = true;
  }
}

// ---------------------------------------------------------------- skills
function selectSkill(name) { if ([...$("skill").options].some((o) => o.value === name)) $("skill").value = name; }

async function loadSkills() {
  const response = await api("/v1/skills?chat=" + chat);
  if (!response.ok) return;
  const data = await response.json();
  $("skill").replaceChildren(...data.skills.map((s) => el("option", { value: s.name }, s.display)));
  if (data.current) selectSkill(data.current);
}

// ---------------------------------------------------------------- start
function start() {
  applyLanguage();
  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("input").value.trim();
    if (!message) return;
    $("input").value = "";
    send(message);
  });
  $("input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) { event.preventDefault(); $("ask").requestSubmit(); }
  });
  $("stop").addEventListener("click", async () => {
    await api("/v1/chat/cancel", { method: "POST", body: JSON.stringify({ chat }) }).catch(() => {});
    if (controller) controller.abort();
  });
  $("skill").addEventListener("change", () => send("/skill " + $("skill").value));
  $("memories").addEventListener("click", () => send("/memories"));
  $("lang").addEventListener("click", () => { lang = lang === "zh" ? "en" : "zh"; localStorage.setItem("fuzi.lang", lang); applyLanguage(); });
  $("save-token").addEventListener("click", () => {
    token = $("token").value.trim();
    localStorage.setItem("fuzi.token", token);
    $("login").hidden = true;
    loadSkills().catch(() => {});
  });
  loadSkills().catch(() => {});
}

document.addEventListener("DOMContentLoaded", start);
