// Interface texts in Chinese and English; visible labels, aria-labels and titles follow the page language.
"use strict";

export const TEXT = {
  zh: {
    skill: "问学方式", memories: "记得什么", send: "请教", stop: "停止", stop_hint: "停止（Esc）", save: "保存",
    need_token: "此服务需要令牌（fuzi token create --user 名字）。", placeholder: "向夫子请教……（Enter 发送，Shift+Enter 换行）",
    thinking: "翻检典籍中…", stopped: "（已停止）", failed: "连接中断，请再试。", lang: "EN", lang_aria: "Switch to English",
    chats: "对话", new_chat: "新对话", untitled: "新对话", rename: "重命名", delete: "删除", menu: "对话列表",
    confirm_delete: "删除这段对话的记录与摘要？（长期记忆仍保留）", title_label: "对话标题",
    copy: "复制", copied: "已复制", copy_code: "复制代码", regenerate: "重新回答", edit: "编辑问题", retry: "重试",
    queued: "排队中，稍后发送…", logout: "退出", token: "令牌", input: "向夫子请教", messages: "对话内容",
    older: "更早的消息", footnote: (n, ref) => `注释 ${n}：${ref}`, footnotes: "出处",
    slow_down: (s) => `请求太频繁，请 ${s} 秒后再试。`, too_long: "消息太长，请缩短后再试。",
    http_error: (code) => `出错了（HTTP ${code}），请再试。`, forbidden: "请求被拒绝（来源不符）。",
    empty: "向夫子请教《论语》《诗经》中的道理。试试：", examples: ["夫子如何评价管仲？", "何为仁？", "诗三百，一言以蔽之？"],
    you: "你", fuzi: "夫子", notice: "提示", unanswered: (status) => `（未作答：${status}）`,
    photo: "发送照片", photo_too_big: "照片超过 10 MB，请缩小后再发。", up: "有帮助", down: "没帮助",
  },
  en: {
    skill: "Mode", memories: "Memories", send: "Ask", stop: "Stop", stop_hint: "Stop (Esc)", save: "Save",
    need_token: "This server needs a token (fuzi token create --user NAME).", placeholder: "Ask the Master… (Enter sends, Shift+Enter breaks the line)",
    thinking: "Consulting the classics…", stopped: " (stopped)", failed: "Connection lost; please try again.", lang: "中文", lang_aria: "切换到中文",
    chats: "Chats", new_chat: "New chat", untitled: "New chat", rename: "Rename", delete: "Delete", menu: "Chat list",
    confirm_delete: "Delete this chat's history and summary? (Long-term memory stays.)", title_label: "Chat title",
    copy: "Copy", copied: "Copied", copy_code: "Copy code", regenerate: "Regenerate", edit: "Edit question", retry: "Retry",
    queued: "Queued; sent when the answer ends…", logout: "Log out", token: "Token", input: "Ask Fuzi", messages: "Conversation",
    older: "Older messages", footnote: (n, ref) => `Footnote ${n}: ${ref}`, footnotes: "Sources",
    slow_down: (s) => `Too many requests; try again in ${s} s.`, too_long: "The message is too long; please shorten it.",
    http_error: (code) => `Something went wrong (HTTP ${code}); please try again.`, forbidden: "Request refused (wrong origin).",
    empty: "Ask about the Analects and the Book of Songs. Try:", examples: ["What did the Master think of Guan Zhong?", "What is ren?", "The Songs in one phrase?"],
    you: "You", fuzi: "Fuzi", notice: "Notice", unanswered: (status) => `(not answered: ${status})`,
    photo: "Send a photo", photo_too_big: "The photo is over 10 MB; please send a smaller one.",
    up: "Helpful", down: "Not helpful",
  },
};

export let lang = localStorage.getItem("fuzi.lang") || (navigator.language.startsWith("zh") ? "zh" : "en");

export const t = (key) => TEXT[lang][key];

export function toggleLanguage() {
  lang = lang === "zh" ? "en" : "zh";
  localStorage.setItem("fuzi.lang", lang);
}

export function applyLanguage(root = document) {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-aria]")) node.setAttribute("aria-label", t(node.dataset.i18nAria));
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
  const input = document.getElementById("input");
  if (input) input.placeholder = t("placeholder");
  const toggle = document.getElementById("lang");
  if (toggle) toggle.textContent = t("lang");
}
