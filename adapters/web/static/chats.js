// The chat list (a sidebar; a drawer on phones): /v1/chats, rename in place, delete after a confirmation.
"use strict";

import { t } from "./i18n.js";
import { el, stamp } from "./render.js";

export const newId = () => "c" + Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

/** The list of the person's chats; `hooks`: api(path, options), current() → chat id, open(id), deleted(id). */
export class ChatList {
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.chats = [];
  }

  async load() {
    const response = await this.hooks.api("/v1/chats");
    if (!response.ok) return;
    this.chats = (await response.json()).chats;
    this.render();
  }

  clear() {
    this.chats = [];
    this.render();
  }

  render() {
    this.root.replaceChildren(...this.chats.map((c) => this.item(c)));
  }

  item(c) {
    const name = c.title || t("untitled");
    const open = el("button", { type: "button", class: "open", title: name }, name, el("small", {}, stamp(c.updated_at)));
    if (c.chat === this.hooks.current()) open.setAttribute("aria-current", "true");
    open.addEventListener("click", () => this.hooks.open(c.chat));
    const rename = el("button", { type: "button", class: "icon", "aria-label": `${t("rename")}: ${name}` }, "✎");
    const remove = el("button", { type: "button", class: "icon", "aria-label": `${t("delete")}: ${name}` }, "×");
    const item = el("li", { "data-chat": c.chat }, open, rename, remove);
    rename.addEventListener("click", () => this.rename(c, item));
    remove.addEventListener("click", () => this.remove(c));
    return item;
  }

  rename(chat, item) {
    const input = el("input", { type: "text", maxlength: "200", "aria-label": t("title_label") });
    input.value = chat.title;
    item.replaceChildren(input);
    input.focus();
    input.addEventListener("keydown", async (event) => {
      if (event.key === "Escape") { event.stopPropagation(); this.render(); }
      if (event.key !== "Enter" || !input.value.trim()) return;
      event.preventDefault();
      await this.hooks.api(`/v1/chats/${chat.chat}`, { method: "PATCH", body: JSON.stringify({ title: input.value.trim() }) });
      await this.load();
    });
    input.addEventListener("blur", () => setTimeout(() => this.render(), 150));
  }

  async remove(chat) {
    if (!window.confirm(t("confirm_delete"))) return;
    await this.hooks.api(`/v1/chats/${chat.chat}`, { method: "DELETE" });
    this.hooks.deleted(chat.chat);
    await this.load();
  }
}
