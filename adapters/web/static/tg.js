// Telegram Mini App bridge, without telegram-web-app.js (it is not packaged anywhere we can pin, and
// the page loads nothing from a CDN). Telegram opens the page with its launch parameters in the URL
// fragment (#tgWebAppData=…&tgWebAppThemeParams=…); the page talks back through the client's event
// channel (core.telegram.org/api/web-events): TelegramWebviewProxy (mobile), external.notify
// (desktop) or postMessage to the parent frame (Telegram Web). When a client injects
// window.Telegram.WebApp itself, that object is used instead.
"use strict";

const KEY = "fuzi.tma";  // the launch parameters survive a reload of the page (Telegram keeps the tab)
const handlers = {};

function launchParams() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  if (hash.has("tgWebAppData")) {
    const params = {
      initData: hash.get("tgWebAppData"),
      theme: hash.get("tgWebAppThemeParams") || "{}",
      startParam: query.get("tgWebAppStartParam") || new URLSearchParams(hash.get("tgWebAppData")).get("start_param") || "",
    };
    sessionStorage.setItem(KEY, JSON.stringify(params));
    history.replaceState(null, "", location.pathname + location.search);  // keep the data out of the address
    return params;
  }
  try { return JSON.parse(sessionStorage.getItem(KEY) || "null"); } catch { return null; }
}

const launched = launchParams();
const native = window.Telegram?.WebApp?.initData ? window.Telegram.WebApp : null;

export const inTelegram = Boolean(native || launched?.initData);
export const initData = native ? native.initData : (launched?.initData || "");
export const startParam = native ? (native.initDataUnsafe?.start_param || "") : (launched?.startParam || "");

function post(type, data = {}) {
  if (!inTelegram || native) return;
  const body = JSON.stringify(data);
  try {
    if (window.TelegramWebviewProxy?.postEvent) window.TelegramWebviewProxy.postEvent(type, body);
    else if (window.external && "notify" in window.external) window.external.notify(JSON.stringify({ eventType: type, eventData: data }));
    else if (window.parent !== window) window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "https://web.telegram.org");
  } catch { /* not inside a Telegram client after all */ }
}

function receive(type, data) { for (const fn of handlers[type] || []) fn(data || {}); }
window.Telegram = window.Telegram || {};
window.Telegram.WebView = window.Telegram.WebView || { receiveEvent: receive };
window.addEventListener("message", (event) => {
  if (event.origin !== "https://web.telegram.org") return;
  try { const m = typeof event.data === "string" ? JSON.parse(event.data) : event.data; if (m?.eventType) receive(m.eventType, m.eventData); }
  catch { /* not ours */ }
});

export function on(type, fn) { (handlers[type] ||= []).push(fn); }

// themeParams → the page's colours (CSS custom properties; no inline style attribute, so the CSP holds)
const THEME = { bg_color: "--paper", text_color: "--ink", hint_color: "--muted", link_color: "--seal",
  button_color: "--button", secondary_bg_color: "--card", section_separator_color: "--line" };
export function applyTheme(params) {
  for (const [key, prop] of Object.entries(THEME)) {
    if (/^#[0-9a-fA-F]{3,8}$/.test(params?.[key] || "")) document.documentElement.style.setProperty(prop, params[key]);
  }
}

export function ready() {
  if (!inTelegram) return;
  document.documentElement.classList.add("tg");
  if (native) {
    applyTheme(native.themeParams); native.ready(); native.expand();
    native.onEvent("themeChanged", () => applyTheme(native.themeParams));
    return;
  }
  try { applyTheme(JSON.parse(launched.theme)); } catch { /* no theme given */ }
  on("theme_changed", (d) => applyTheme(d.theme_params));
  on("viewport_changed", (d) => { if (d.height) document.documentElement.style.setProperty("--tg-height", `${d.height}px`); });
  post("web_app_ready");
  post("web_app_expand");
  post("web_app_request_theme");
}

export function backButton(visible, onPress) {
  if (native) { if (visible) { native.BackButton.show(); native.BackButton.onClick(onPress); } else native.BackButton.hide(); return; }
  post("web_app_setup_back_button", { is_visible: Boolean(visible) });
  handlers.back_button_pressed = visible ? [onPress] : [];
}

// "问夫子" inside Telegram: back to the chat with @bot and the passage's words in the input field; the
// bot's inline mode (docs/telegram.md) offers the passage, which the person sends and asks about.
export function askInChat(query) {
  if (native) { native.switchInlineQuery(query, []); return; }
  post("web_app_switch_inline_query", { query, chat_types: [] });
}
