// Markdown as the page shows it: markdown-it (HTML off, safe link schemes only) → DOMPurify (a DOM
// fragment, never an innerHTML assignment here) → [n] markers become footnote buttons, code gets a copy button.
"use strict";

import { lang, t } from "./i18n.js";

const md = window.markdownit({ html: false, linkify: true, breaks: true, typographer: false });
const SAFE_LINK = /^(https?:|mailto:)/i;
md.validateLink = (url) => SAFE_LINK.test(url.trim());  // javascript:, data:, vbscript:, relative tricks: plain text

const PURIFY = {
  RETURN_DOM_FRAGMENT: true,
  ALLOWED_TAGS: ["p", "br", "strong", "em", "s", "code", "pre", "blockquote", "ul", "ol", "li", "a", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td"],
  ALLOWED_ATTR: ["href", "title", "start", "class", "align", "style"],
  ALLOWED_URI_REGEXP: SAFE_LINK,
};

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

export function stamp(when) {
  const date = when ? new Date(when) : new Date();
  const today = date.toDateString() === new Date().toDateString();
  const text = today ? date.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleString(lang, { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
  return el("time", { datetime: date.toISOString(), title: date.toLocaleString(lang) }, text);
}

export async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = el("textarea", { class: "offscreen" }, text);
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  if (button) {
    const label = button.textContent;
    button.textContent = t("copied");
    setTimeout(() => { button.textContent = label; }, 1200);
  }
}

export const noteId = (scope, cite) => `note-${scope}-${cite.n}`;

function citeButtons(root, citations, scope) {
  if (!citations.length) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest("code, pre, a") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const texts = [];
  while (walker.nextNode()) if (/\[\d{1,3}\]/.test(walker.currentNode.data)) texts.push(walker.currentNode);
  for (const node of texts) {
    const parts = node.data.split(/(\[\d{1,3}\])/);
    const out = parts.map((part) => {
      const cite = /^\[(\d{1,3})\]$/.test(part) && citations.find((c) => c.n === Number(part.slice(1, -1)));
      if (!cite) return document.createTextNode(part);
      const button = el("button", { type: "button", title: cite.ref, "aria-label": t("footnote")(cite.n, cite.ref) }, String(cite.n));
      button.addEventListener("click", () => document.getElementById(noteId(scope, cite))?.querySelector("button").click());
      return el("sup", { class: "cite" }, button);
    });
    node.replaceWith(...out);
  }
}

function codeCopy(root) {
  for (const pre of root.querySelectorAll("pre")) {
    const button = el("button", { type: "button", class: "copy-code" }, t("copy_code"));
    button.addEventListener("click", () => copyText(pre.querySelector("code")?.textContent ?? pre.textContent, button));
    pre.before(el("div", { class: "code-head" }, button));
  }
}

function linkTargets(root) {
  for (const a of root.querySelectorAll("a[href]")) {
    a.setAttribute("target", "_blank");
    a.setAttribute("rel", "noopener noreferrer nofollow");
  }
}

/** The text rendered as safe DOM nodes; `scope` makes footnote ids unique per message. */
export function markdown(text, citations = [], scope = "x") {
  const fragment = window.DOMPurify.sanitize(md.render(text || ""), PURIFY);
  for (const node of fragment.querySelectorAll("[style]")) {
    const align = node.style.textAlign;
    node.removeAttribute("style");
    if (align) node.setAttribute("align", align);
  }
  citeButtons(fragment, citations, scope);
  codeCopy(fragment);
  linkTargets(fragment);
  return fragment;
}
