// The reading room (/read): the books, a chapter's passages in order, Simplified/Traditional, glosses,
// bookmarks, "where was I", "问夫子". On the web it signs in like the chat page (the token it keeps,
// or nothing in local mode); inside Telegram with the Mini App's init data (tg.js).
"use strict";

import * as tg from "./tg.js";

const $ = (id) => document.getElementById(id);
const state = {
  token: localStorage.getItem("fuzi.token") || "",
  script: localStorage.getItem("fuzi.read.script") || "simplified",
  gloss: localStorage.getItem("fuzi.read.gloss") === "1",
  books: [], marks: new Map(), marksLoaded: false, chapter: null, saveTimer: 0, observer: null,
};
// "背诵" adds the passage to the person's recitation deck with the chat API's `/recite add <id>` (docs/learning.md).
// Inside Telegram the Mini App may not chat (its sign-in opens the reading room only): there `/recite add` is
// typed in the chat, and the button is left out.
const RECITE = tg.inTelegram ? null : recite;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}
const say = (text) => { $("status").textContent = text; };
const hant = () => state.script === "traditional";
const tr = (simplified, traditional) => (hant() ? traditional : simplified);

// ---------------------------------------------------------------- HTTP
function authorization() {
  if (tg.inTelegram) return { Authorization: "tma " + tg.initData };
  return state.token ? { Authorization: "Bearer " + state.token } : {};
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: { "Content-Type": "application/json", ...authorization() } });
  if (response.status === 401) {
    if (tg.inTelegram) say(tr("登录已过期，请从 Telegram 重新打开阅读室。", "登錄已過期，請從 Telegram 重新打開閱讀室。"));
    else { $("login").hidden = false; $("token").focus(); }
    throw new Error("unauthorized");
  }
  if (!response.ok) {
    let detail = "";
    try { detail = (await response.json()).detail; } catch { /* not JSON */ }
    say(`出错了（HTTP ${response.status}）${typeof detail === "string" ? "：" + detail : ""}`);
    throw new Error(String(response.status));
  }
  return response.json();
}

// ---------------------------------------------------------------- views
function show(title, nodes, { back = false } = {}) {
  $("heading").textContent = title;
  document.title = `${title} · 夫子`;
  $("back").hidden = !back;
  tg.backButton(back, () => go("#/"));
  $("view").replaceChildren(...nodes);
  delete $("view").dataset.chapter;
}

async function bookList() {
  state.chapter = null;
  stopWatching();
  if (!state.books.length) state.books = (await api(`/v1/books?script=${state.script}`)).books;
  const nodes = [];
  const where = await api("/v1/me/position");
  if (where.passage_id) {
    const book = state.books.find((b) => b.id === where.book);
    const chapter = book?.chapters[where.chapter - 1];
    nodes.push(el("button", { type: "button", class: "resume", id: "resume", onclick: () => go(`#/${where.book}/${where.chapter}/${where.passage_id}`) },
      `${tr("继续阅读", "繼續閱讀")}：${book ? book.title : where.book}·${chapter ? chapter.title : where.chapter}（${where.passage_id}）`));
  }
  for (const book of state.books) {
    const items = book.chapters.map((c) => el("li", {}, el("button", { type: "button", onclick: () => go(`#/${book.id}/${c.n}`),
      "aria-label": `${book.title} ${c.title}，${c.passages} ${tr("章", "章")}` }, el("span", { class: "n" }, String(c.n)), c.title)));
    nodes.push(el("section", { "aria-labelledby": `b-${book.id}` },
      el("h2", { id: `b-${book.id}` }, book.title, el("small", { lang: "en" }, book.english)), el("ol", { class: "chapters" }, ...items)));
  }
  show(tr("读书", "讀書"), nodes);
}

function passageItem(p) {
  const marked = state.marks.has(p.id);
  const mark = el("button", { type: "button", class: "mark", "aria-pressed": String(marked), "aria-label": `${tr("书签", "書籤")} ${p.ref}` }, marked ? "★" : "☆");
  mark.addEventListener("click", () => toggleMark(p, mark));
  const ask = el("button", { type: "button", class: "ask", "aria-label": `问夫子：${p.ref}`, onclick: () => askFuzi(p) }, "问夫子");
  const lang = hant() ? "zh-Hant" : "zh-Hans";
  return el("li", { id: `p-${p.id}`, tabindex: "-1", "data-id": p.id },
    el("p", { class: "ref" }, p.ref),
    el("p", { class: "text", lang }, p.text),
    state.gloss && p.gloss_zh ? el("p", { class: "gloss", lang }, p.gloss_zh) : null,
    state.gloss && p.gloss_en ? el("p", { class: "gloss", lang: "en" }, p.gloss_en) : null,
    el("div", { class: "actions" }, mark, ask,
      RECITE ? el("button", { type: "button", class: "recite", "aria-label": `背诵：${p.ref}`, onclick: () => RECITE(p) }, "背诵") : null));
}

async function chapterView(bookId, n, focusId) {
  const query = `?script=${state.script}&gloss=${state.gloss}`;
  const [chapter] = await Promise.all([api(`/v1/books/${encodeURIComponent(bookId)}/chapters/${n}${query}`), state.marksLoaded || loadMarks()]);
  if (!state.books.length) state.books = (await api(`/v1/books?script=${state.script}`)).books;
  const book = state.books.find((b) => b.id === bookId);
  state.chapter = chapter;
  const pager = el("nav", { class: "pager", "aria-label": tr("翻章", "翻章") },
    n > 1 ? el("button", { type: "button", id: "prev", onclick: () => go(`#/${bookId}/${n - 1}`) }, `‹ ${tr("上一章", "上一章")}`) : el("span"),
    n < chapter.chapters ? el("button", { type: "button", id: "next", onclick: () => go(`#/${bookId}/${n + 1}`) }, `${tr("下一章", "下一章")} ›`) : el("span"));
  const list = el("ol", { class: "passages", "aria-label": chapter.title }, ...chapter.passages.map(passageItem));
  show(`${book ? book.title : bookId}·${chapter.title}`, [el("h2", { class: "offscreen" }, chapter.title), list, pager], { back: true });
  $("view").dataset.chapter = `${bookId}/${n}`;
  say(`${chapter.title}：${chapter.passages.length} ${tr("章", "章")}`);
  const target = focusId && document.getElementById(`p-${focusId}`);
  if (target) { target.classList.add("here"); target.scrollIntoView({ block: "start" }); target.focus({ preventScroll: true }); }
  else { window.scrollTo(0, 0); $("view").focus({ preventScroll: true }); }
  watch(list, focusId || chapter.passages[0]?.id);
}

async function loadMarks() {
  const { bookmarks } = await api("/v1/me/bookmarks");
  state.marks = new Map(bookmarks.map((m) => [m.id, m]));
  state.marksLoaded = true;  // this page keeps them in step from now on
  return bookmarks;
}

async function marksView() {
  stopWatching();
  const marks = await loadMarks();
  const items = marks.map((m) => el("li", {}, el("button", { type: "button", onclick: () => go(`#/${m.book}/${m.chapter}/${m.id}`) }, m.ref)));
  show(tr("书签", "書籤"), [items.length ? el("ul", { class: "marks" }, ...items) : el("p", {}, tr("还没有书签。", "還沒有書籤。"))], { back: true });
}

async function toggleMark(p, button) {
  const on = !state.marks.has(p.id);
  await api(`/v1/me/bookmarks/${encodeURIComponent(p.id)}`, { method: on ? "PUT" : "DELETE" });
  if (on) state.marks.set(p.id, p); else state.marks.delete(p.id);
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? "★" : "☆";
  say(on ? tr("已加书签：", "已加書籤：") + p.ref : tr("已删书签：", "已刪書籤：") + p.ref);
}

async function recite(p) {
  const response = await fetch("/v1/chat", {
    method: "POST", headers: { "Content-Type": "application/json", ...authorization() },
    body: JSON.stringify({ message: `/recite add ${p.id}`, chat: "recite" }),
  });
  if (!response.ok) { say(`出错了（HTTP ${response.status}）`); return; }
  let notice = null;  // the stream's events: the command answers with one notice
  for (const block of (await response.text()).split("\n\n")) {
    const data = block.split("\n").find((line) => line.startsWith("data: "));
    if (block.startsWith("event: notice") && data) notice = JSON.parse(data.slice(6));
  }
  say(notice ? notice.text : tr("背诵暂不可用。", "背誦暫不可用。"));
}

function askFuzi(p) {
  if (tg.inTelegram) { tg.askInChat(p.text.replace(/\s+/g, " ").slice(0, 60)); return; }
  location.href = `/#ask=${encodeURIComponent(p.id)}`;  // the chat page puts the passage in its input, quoted
}

// ---------------------------------------------------------------- where the reader is
function stopWatching() { state.observer?.disconnect(); state.observer = null; }

function watch(list, first) {
  stopWatching();
  savePosition(first);
  state.observer = new IntersectionObserver((entries) => {
    const top = entries.filter((e) => e.isIntersecting).sort((a, b) => a.boundingClientRect.top - b.boundingClientRect.top)[0];
    if (top) savePosition(top.target.dataset.id);
  }, { rootMargin: "-15% 0px -60% 0px" });
  for (const item of list.children) state.observer.observe(item);
  list.addEventListener("focusin", (e) => { const li = e.target.closest("li[data-id]"); if (li) savePosition(li.dataset.id); });
}

function savePosition(id) {
  if (!id) return;
  clearTimeout(state.saveTimer);
  state.saveTimer = setTimeout(() => {
    api("/v1/me/position", { method: "PUT", body: JSON.stringify({ passage_id: id }) }).catch(() => {});
  }, 600);
}

// ---------------------------------------------------------------- routing: #/, #/marks, #/book/n[/passage]
function go(hash) { if (location.hash === hash) route(); else location.hash = hash; }

async function route() {
  const [, book, n, passage] = location.hash.split("/");
  try {
    if (book === "marks") await marksView();
    else if (book && /^\d+$/.test(n || "")) await chapterView(decodeURIComponent(book), Number(n), passage && decodeURIComponent(passage));
    else await bookList();
  } catch (error) { if (error.message !== "unauthorized") console.warn(error); }
}

function setScript(script) {
  state.script = script;
  localStorage.setItem("fuzi.read.script", script);
  document.documentElement.lang = hant() ? "zh-Hant" : "zh-Hans";
  $("script").setAttribute("aria-pressed", String(hant()));
  $("script").textContent = hant() ? "简" : "繁";
  $("script").setAttribute("aria-label", hant() ? "简体字" : "繁体字");
}

function reopen() {  // the same chapter again (script or glosses changed), at the passage being read
  if (!state.chapter) return route();
  const top = [...document.querySelectorAll("ol.passages li")].find((li) => li.getBoundingClientRect().bottom > 80);
  return chapterView(state.chapter.book, state.chapter.chapter, top?.dataset.id);
}

// a shared link: /read?p=lunyu:1.3, or the Mini App's start parameter lunyu-1_3
async function deepLink() {
  const wanted = new URLSearchParams(location.search).get("p") || tg.startParam.replace("-", ":").replaceAll("_", ".");
  if (!/^[a-z]+:[0-9.]+$/.test(wanted) || location.hash.length > 2) return false;
  const [book, rest] = wanted.split(":");
  if (!state.books.length) state.books = (await api(`/v1/books?script=${state.script}`)).books;
  const chapters = state.books.find((b) => b.id === book)?.chapters || [];
  let n = rest.includes(".") ? Number(rest.split(".")[0]) : 0;
  for (let i = 0, seen = 0; !n && i < chapters.length; seen += chapters[i].passages, i += 1) {
    if (Number(rest) <= seen + chapters[i].passages) n = i + 1;  // poems are numbered through the book
  }
  if (!n || n > chapters.length) return false;
  history.replaceState(null, "", `/read#/${book}/${n}/${wanted}`);
  return true;
}

async function start() {
  tg.ready();
  setScript(state.script);
  $("gloss").setAttribute("aria-pressed", String(state.gloss));
  $("script").addEventListener("click", () => { setScript(hant() ? "simplified" : "traditional"); state.books = []; reopen(); });
  $("gloss").addEventListener("click", () => {
    state.gloss = !state.gloss;
    localStorage.setItem("fuzi.read.gloss", state.gloss ? "1" : "0");
    $("gloss").setAttribute("aria-pressed", String(state.gloss));
    reopen();
  });
  $("marks").addEventListener("click", () => go("#/marks"));
  $("back").addEventListener("click", () => go("#/"));
  $("chat").hidden = tg.inTelegram;
  $("login").addEventListener("submit", (e) => {
    e.preventDefault();
    state.token = $("token").value.trim();
    localStorage.setItem("fuzi.token", state.token);
    $("login").hidden = true;
    route();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && location.hash.length > 2) go("#/");
    if (!state.chapter || e.target.closest?.("input")) return;
    if (e.key === "ArrowRight" && e.altKey) $("next")?.click();
    if (e.key === "ArrowLeft" && e.altKey) $("prev")?.click();
  });
  window.addEventListener("hashchange", route);
  try { await deepLink(); } catch { /* signed out: route() asks */ }
  await route();
}

start();
