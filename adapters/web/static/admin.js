// The operator console: figures and charts from /v1/admin/stats, the feedback and unanswered lists.
// Charts are inline SVG drawn here (no chart library); every text goes in through textContent.
const $ = (id) => document.getElementById(id);
const NS = "http://www.w3.org/2000/svg";
const state = { token: localStorage.getItem("fuzi.token") || "", cursors: { feedback: null, unanswered: null } };

function headers() {
  return state.token ? { Authorization: "Bearer " + state.token } : {};
}

async function api(path) {
  const response = await fetch(path, { headers: headers() });
  if (response.status === 401 || response.status === 403) {
    $("login").hidden = false;
    $("console").hidden = true;
    $("login-why").textContent = response.status === 403
      ? "此令牌不是管理员的（fuzi token create --admin）。This token has no operator role."
      : "需要管理员令牌（fuzi token create --user 名字 --admin）。An operator token is needed.";
    throw new Error("auth " + response.status);
  }
  if (!response.ok) throw new Error("HTTP " + response.status);
  return response;
}

function el(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function html(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function legend(names, classes = []) {
  const box = html("div", "legend");
  names.forEach((name, i) => {
    const item = html("span");
    item.append(html("i", "s" + (classes[i] ?? i)), document.createTextNode(name));
    box.append(item);
  });
  return box;
}

function nice(n) {
  return n >= 1e6 ? (n / 1e6).toFixed(1) + "M" : n >= 1e4 ? (n / 1e3).toFixed(0) + "k" : String(n);
}

// Stacked bars, one per label: series = [{name, values}], values aligned with labels.
function bars(target, labels, series) {
  const box = $(target);
  box.replaceChildren();
  const total = labels.map((_, i) => series.reduce((sum, s) => sum + s.values[i], 0));
  const top = Math.max(1, ...total);
  if (total.every((t) => t === 0)) {
    box.append(html("p", "empty", "暂无 Nothing yet"));
    return;
  }
  const W = 600, H = 200, left = 36, bottom = 22, inner = H - bottom - 8;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": target });
  svg.append(el("line", { x1: left, y1: H - bottom, x2: W, y2: H - bottom, class: "axis" }));
  svg.append(el("text", { x: 2, y: 14 }, nice(top)), el("text", { x: 2, y: H - bottom }, "0"));
  const step = (W - left) / labels.length, width = Math.max(1, step * 0.8);
  labels.forEach((label, i) => {
    let y = H - bottom;
    series.forEach((s, k) => {
      const h = (s.values[i] / top) * inner;
      if (h > 0) {
        const rect = el("rect", { x: left + i * step + (step - width) / 2, y: y - h, width, height: h, class: "s" + (s.cls ?? k) });
        rect.append(el("title", {}, `${label} ${s.name}: ${s.values[i]}`));
        svg.append(rect);
      }
      y -= h;
    });
    const every = Math.ceil(labels.length / 8);
    if (i % every === 0) svg.append(el("text", { x: left + i * step, y: H - 6 }, label.slice(5)));
  });
  box.append(svg);
  if (series.length > 1) box.append(legend(series.map((s) => s.name), series.map((s, k) => s.cls ?? k)));
}

// Horizontal bars: rows = [{label, parts: [numbers]}], names = the parts' names.
function hbars(target, rows, names, unit = "") {
  const box = $(target);
  box.replaceChildren();
  const top = Math.max(1, ...rows.map((r) => r.parts.reduce((a, b) => a + (b || 0), 0)));
  if (!rows.length || rows.every((r) => r.parts.every((p) => !p))) {
    box.append(html("p", "empty", "暂无 Nothing yet"));
    return;
  }
  const W = 600, row = 26, left = 150, H = rows.length * row + 6;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": target });
  rows.forEach((r, i) => {
    const y = 4 + i * row;
    svg.append(el("text", { x: 2, y: y + 15 }, r.label.length > 22 ? r.label.slice(0, 21) + "…" : r.label));
    let x = left;
    r.parts.forEach((value, k) => {
      const w = ((value || 0) / top) * (W - left - 70);
      if (w > 0) {
        const rect = el("rect", { x, y, width: w, height: row - 8, class: "s" + k });
        rect.append(el("title", {}, `${r.label} ${names[k]}: ${value}${unit}`));
        svg.append(rect);
      }
      x += w;
    });
    const sum = r.parts.reduce((a, b) => a + (b || 0), 0);
    svg.append(el("text", { x: x + 4, y: y + 15 }, nice(sum) + unit));
  });
  box.append(svg);
  if (names.length > 1) box.append(legend(names));
}

function draw(stats) {
  const days = stats.per_day.map((d) => d.day);
  $("f-messages").textContent = stats.messages;
  $("f-people").textContent = stats.people;
  $("f-chats").textContent = Object.values(stats.chats).reduce((a, b) => a + b, 0);
  $("f-refusals").textContent = stats.refusals.guard + stats.refusals.limits;
  $("f-up").textContent = stats.feedback.up;
  $("f-down").textContent = stats.feedback.down;
  bars("chart-messages", days, [{ name: "messages", values: stats.per_day.map((d) => d.messages) }]);
  bars("chart-levels", days, [
    { name: `agent ${stats.levels.agent}`, values: stats.per_day.map((d) => d.agent) },
    { name: `degraded ${stats.levels.degraded}`, values: stats.per_day.map((d) => d.degraded) },
    { name: `texts only ${stats.levels.texts_only}`, values: stats.per_day.map((d) => d.texts_only) },
  ]);
  const lat = stats.latency_ms;
  hbars("chart-latency", [
    { label: "first visible p50", parts: [lat.first_visible.p50] },
    { label: "first visible p95", parts: [lat.first_visible.p95] },
    { label: "final p50", parts: [0, lat.final.p50] },
    { label: "final p95", parts: [0, lat.final.p95] },
  ], ["first visible", "final"], " ms");
  hbars("chart-tokens", Object.entries(stats.tokens).map(([model, t]) => ({ label: model, parts: [t.prompt, t.completion] })),
    ["prompt", "completion"]);
  bars("chart-feedback", days, [
    { name: `👍 up ${stats.feedback.up}`, values: stats.per_day.map((d) => d.up), cls: 0 },
    { name: `👎 down ${stats.feedback.down}`, values: stats.per_day.map((d) => d.down), cls: 2 },
  ]);
}

function feedbackItem(item) {
  const li = html("li");
  li.dataset.verdict = item.verdict;
  li.append(html("div", "meta", `${item.verdict === "up" ? "👍 up" : "👎 down"} · ${item.platform} · ${item.time.slice(0, 16).replace("T", " ")} · ${item.chat}`));
  li.append(html("div", "q", item.question || "（定时推送 scheduled post）"));
  li.append(html("div", "a", item.answer));
  if (item.passages.length) li.append(html("div", "refs", item.passages.map((p) => p.ref || p.id).join(" · ")));
  return li;
}

function unansweredItem(item) {
  const li = html("li");
  li.append(html("div", "meta", `${item.level} · ${item.platform} · ${item.time.slice(0, 16).replace("T", " ")}`));
  li.append(html("div", "q", item.question));
  return li;
}

async function more(name, render, reset) {
  const days = $("days").value;
  const cursor = reset ? null : state.cursors[name];
  const page = await (await api(`/v1/admin/${name}?days=${days}&limit=20${cursor ? "&before=" + cursor : ""}`)).json();
  if (reset) $(name).replaceChildren();
  if (reset && !page.items.length) $(name).append(html("li", "empty", "暂无 Nothing yet"));
  page.items.forEach((item) => $(name).append(render(item)));
  state.cursors[name] = page.next;
  $("more-" + name).hidden = page.next === null;
}

async function download(name) {
  const response = await api(`/v1/admin/${name}.csv?days=${$("days").value}`);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = `fuzi-${name}.csv`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function load() {
  try {
    const stats = await (await api(`/v1/admin/stats?days=${$("days").value}`)).json();
    $("login").hidden = true;
    $("console").hidden = false;
    $("logout").hidden = !state.token;
    draw(stats);
    await more("feedback", feedbackItem, true);
    await more("unanswered", unansweredItem, true);
    document.body.dataset.loaded = "true";
  } catch (error) {
    if (!String(error.message).startsWith("auth")) console.error(error);
  }
}

$("days").addEventListener("change", load);
$("more-feedback").addEventListener("click", () => more("feedback", feedbackItem, false));
$("more-unanswered").addEventListener("click", () => more("unanswered", unansweredItem, false));
$("csv-feedback").addEventListener("click", (e) => { e.preventDefault(); download("feedback"); });
$("csv-unanswered").addEventListener("click", (e) => { e.preventDefault(); download("unanswered"); });
$("save-token").addEventListener("click", () => {
  state.token = $("token").value.trim();
  localStorage.setItem("fuzi.token", state.token);
  load();
});
$("logout").addEventListener("click", () => {
  state.token = "";
  localStorage.removeItem("fuzi.token");
  location.reload();
});
load();
