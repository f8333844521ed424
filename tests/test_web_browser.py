"""The web page in a real browser: Debian's chromium + chromium-driver, headless, driven by selenium,
against the app on 127.0.0.1 (real engine, fake LLM). Browser sessions, one per test (the machine is
small): one chat as a person has it (stream, footnote, two questions while streaming, reload,
phone drawer, skill switch, an HTML injection) and one for Markdown fixtures in dark mode; a third
sends a photo and gives 👍 (and takes it back).
Takes screenshots; with FUZI_WEB_SCREENSHOT=docs/web-chat.png they are the ones docs/web.md shows.

Skipped with one line where chromium is absent; in CI (CI=true) its absence is a failure.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

import httpx
import pytest

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, web_app

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
ANSWER = "子曰：“管仲之器小哉！”[1] 夫子言其**器小**：格局不足以成王道。\n\n- 俭乎？管氏有三归\n- 知礼乎？邦君树塞门"

if not (CHROMIUM and DRIVER):
    if os.environ.get("CI") == "true":
        pytest.fail(
            "chromium and chromium-driver are required in CI (apt-get install chromium chromium-driver)", pytrace=False
        )
    pytest.skip(
        "chromium / chromium-driver not installed (apt-get install chromium chromium-driver)", allow_module_level=True
    )


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


def browser(dark: bool = False):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--lang=zh-CN",
        "--window-size=900,1000",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": "zh-CN,zh"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    scheme = "dark" if dark else "light"
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    return driver


MARKDOWN = """1. 学而时习之
2. 有朋自远方来
   - 不亦乐乎
   - 人不知而不愠

> 温故而知新，可以为师矣。

| 篇 | 章 |
| --- | ---: |
| 学而 | 16 |

```python
print("子曰")

print("学而")
```

[论语](https://example.org/lunyu) 与 [点我](javascript:alert(1)) 与 <script>alert(2)</script>"""


WATCH_STATUS = """
window.firstStatus = null;
new MutationObserver((_, observer) => {
  const status = document.querySelector(".msg.fuzi.streaming .status");
  if (status) { window.firstStatus = status.textContent; observer.disconnect(); }
}).observe(document.getElementById("messages"), { childList: true, subtree: true });
"""


def wait_for(driver, seconds: float = 30):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # A condition that meets a node the page has just re-rendered is asked again, not failed.
    return WebDriverWait(driver, seconds, poll_frequency=0.02, ignored_exceptions=(StaleElementReferenceException,))


def ask(driver, text: str) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "input").send_keys(text)
    driver.find_element(By.ID, "send").click()


def finals(driver) -> int:
    from selenium.webdriver.common.by import By

    return len(driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi:not(.streaming) .meta .act"))


def drive(base: str, shot: Path) -> dict:
    """Everything the browser does, synchronously (runs in a worker thread); returns what it saw."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select

    seen: dict = {}
    driver = browser()
    try:
        wait = wait_for(driver)
        driver.get(base + "/")
        wait.until(lambda d: len(Select(d.find_element(By.ID, "skill")).options) >= 2)
        seen["title"] = driver.title
        seen["empty"] = driver.find_element(By.CSS_SELECTOR, "#messages .empty").text
        send = driver.find_element(By.ID, "send")
        first = send.text
        driver.find_element(By.ID, "lang").click()
        seen["languages"] = {first, send.text}
        seen["aria_en"] = driver.find_element(By.ID, "input").get_attribute("aria-label")
        if send.text != "请教":
            driver.find_element(By.ID, "lang").click()
        seen["aria_zh"] = driver.find_element(By.ID, "input").get_attribute("aria-label")
        # The status line lives until the first delta replaces it; under load that can fall between finding
        # the element and reading it, so the page itself records the first status text it shows.
        driver.execute_script(WATCH_STATUS)
        ask(driver, "夫子如何评价管仲？")
        seen["status"] = wait.until(lambda d: d.execute_script("return window.firstStatus"))
        body = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".msg.fuzi.streaming .body")))
        lengths = []
        while "streaming" in body.find_element(By.XPATH, "..").get_attribute("class") and len(lengths) < 2000:
            lengths.append(len(body.text))
            if len(lengths) == 20:  # a second question while the first answer streams: queued, not lost
                ask(driver, "管仲俭乎？")
                seen["queued"] = len(driver.find_elements(By.CSS_SELECTOR, ".msg.me.queued"))
        seen["lengths"] = lengths
        note = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "ol.footnotes li button")))
        seen["footnote"] = note.text
        seen["cite_label"] = driver.find_element(By.CSS_SELECTOR, "sup.cite button").get_attribute("aria-label")
        seen["bold"] = [b.text for b in driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .body strong")]
        seen["items"] = len(driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .body li"))
        note.click()
        quote = wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, "blockquote.passage")))
        seen["passage"] = quote.text
        wait.until(lambda d: finals(d) >= 2 and not d.find_elements(By.CSS_SELECTOR, ".msg.me.queued"))
        seen["answers"] = [n.text for n in driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .body")]
        driver.execute_script("document.getElementById('messages').scrollTop = 0")
        driver.save_screenshot(str(shot))
        driver.refresh()  # the history comes back
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".msg.fuzi .body")) >= 2)
        seen["reloaded"] = [n.text for n in driver.find_elements(By.CSS_SELECTOR, ".msg.me .body")]
        seen["reloaded_notes"] = len(driver.find_elements(By.CSS_SELECTOR, "ol.footnotes li"))
        seen["chats"] = [n.text for n in driver.find_elements(By.CSS_SELECTOR, "#chat-list .open")]
        driver.set_window_size(390, 844)  # a phone: nothing may stick out sideways; the list is a drawer
        seen["overflow"] = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        seen["drawer_hidden"] = not driver.find_element(By.ID, "drawer").is_displayed()
        driver.save_screenshot(str(shot.with_name(shot.stem + "-phone.png")))
        driver.find_element(By.ID, "menu").click()
        wait.until(lambda d: d.find_element(By.ID, "new-chat").is_displayed())
        time.sleep(0.4)  # the drawer slides in (0.2 s)
        driver.save_screenshot(str(shot.with_name(shot.stem + "-drawer.png")))
        driver.find_element(By.ID, "new-chat").click()
        seen["new_chat_empty"] = bool(driver.find_elements(By.CSS_SELECTOR, "#messages .empty"))
        driver.set_window_size(900, 1000)
        Select(driver.find_element(By.ID, "skill")).select_by_value("poetry")
        wait.until(
            lambda d: any(
                "论诗" in n.text or "poetry" in n.text.lower() for n in d.find_elements(By.CSS_SELECTOR, ".msg.notice")
            )
        )
        seen["skill"] = Select(driver.find_element(By.ID, "skill")).first_selected_option.get_attribute("value")
        ask(driver, "<img src=x onerror=alert(1)>")
        wait.until(lambda d: finals(d) >= 1)
        seen["injected_img"] = len(driver.find_elements(By.CSS_SELECTOR, "#messages img"))
        seen["echo"] = driver.find_elements(By.CSS_SELECTOR, ".msg.me .body")[-1].text
    finally:
        driver.quit()
    return seen


async def test_page_streams_queues_reloads_and_switches(tmp_path, fake_llm, retriever):
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉", "k": 3})])
    fake_llm.stream_text(ANSWER, chunk=2, chunk_delay=0.08)
    fake_llm.stream_text("管氏有三归，官事不摄，焉得俭？", chunk=4)
    shot = Path(os.environ.get("FUZI_WEB_SCREENSHOT") or tmp_path / "web-chat.png")  # docs: docs/web-chat.png
    async with web_app(tmp_path, fake_llm, retriever) as (base, runtime, _):
        seen = await asyncio.to_thread(drive, base, shot)
        async with httpx.AsyncClient() as client:
            chats = (await client.get(f"{base}/v1/chats")).json()["chats"]
            current = (await client.get(f"{base}/v1/skills", params={"chat": chats[0]["chat"]})).json()["current"]
    growth = sorted(set(seen["lengths"]))
    assert len(growth) >= 5 and growth[0] < growth[-1]  # the text grew while streaming
    assert seen["status"] == "翻检典籍中…" and seen["empty"].startswith("向夫子请教")
    assert seen["languages"] == {"请教", "Ask"} and (seen["aria_zh"], seen["aria_en"]) == ("向夫子请教", "Ask Fuzi")
    assert seen["queued"] == 1 and "焉得俭" in seen["answers"][1]  # the second question was sent after the first
    assert seen["reloaded"] == ["夫子如何评价管仲？", "管仲俭乎？"] and seen["reloaded_notes"] == 1
    assert seen["chats"][0].startswith("夫子如何评价管仲？")
    assert seen["overflow"] <= 0 and seen["drawer_hidden"] and seen["new_chat_empty"]
    assert seen["footnote"] == "《论语·八佾》第22章" and seen["cite_label"] == "注释 1：《论语·八佾》第22章"
    assert "管仲之器小哉" in seen["passage"]
    assert seen["bold"][:1] == ["器小"] and seen["items"] >= 2
    assert seen["skill"] == "poetry" and current in {"poetry", "teaching"}
    assert seen["injected_img"] == 0 and seen["echo"] == "<img src=x onerror=alert(1)>"
    assert shot.stat().st_size > 10_000


def render_fixtures(base: str, shot: Path) -> dict:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver = browser(dark=True)
    try:
        wait = wait_for(driver)
        driver.get(base + "/")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .empty"))
        ask(driver, "请用各种格式写")
        wait.until(lambda d: finals(d) >= 1)
        answer = driver.find_element(By.CSS_SELECTOR, ".msg.fuzi .body")
        q = answer.find_elements
        seen = {
            "ol": [li.text.split("\n")[0] for li in q(By.CSS_SELECTOR, ":scope > ol > li")],
            "nested": [li.text for li in q(By.CSS_SELECTOR, "ol > li > ul > li")],
            "quote": [b.text for b in q(By.CSS_SELECTOR, "blockquote")],
            "cells": [c.text for c in q(By.CSS_SELECTOR, "table td")],
            "code": [c.text for c in q(By.CSS_SELECTOR, "pre code")],
            "copy_code": len(q(By.CSS_SELECTOR, ".code-head button")),
            "links": [(a.text, a.get_attribute("href")) for a in q(By.CSS_SELECTOR, "a")],
            "scripts": len(driver.find_elements(By.CSS_SELECTOR, "#messages script")),
            "text": answer.text,
            "background": driver.execute_script("return getComputedStyle(document.body).backgroundColor"),
            "alerts": driver.execute_script("return typeof window.__fuzi_alerted"),
            "favicon": driver.execute_script("return document.querySelector('link[rel=icon]').href"),
        }
        driver.save_screenshot(str(shot))
        ask(driver, "/help")  # a notice keeps its line breaks
        notice = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".msg.notice .body"))[-1]
        seen["notice_lines"] = len(notice.text.splitlines())
        ask(driver, "请慢慢讲")
        wait.until(lambda d: len(d.find_element(By.CSS_SELECTOR, ".msg.fuzi.streaming .body").text) > 40)
        box = "document.getElementById('messages')"
        driver.execute_script(f"{box}.scrollTop = 0")  # the reader goes up to read: the page must not pull them down
        time.sleep(0.6)
        seen["scroll_kept"] = driver.execute_script(f"return {box}.scrollTop")
        seen["scrollable"] = driver.execute_script(f"return {box}.scrollHeight - {box}.clientHeight")
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".msg.fuzi.streaming"))
        seen["stopped"] = driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .body")[-1].text
        edit = driver.find_elements(By.CSS_SELECTOR, ".msg.me .meta .act")[-1]  # edit the last question
        edit.click()
        seen["edited"] = driver.find_element(By.ID, "input").get_attribute("value")
        driver.find_element(By.ID, "input").clear()
        answers = finals(driver)
        regenerate = driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .meta .act")[1]  # the Markdown answer's
        seen["regenerate_label"] = regenerate.get_attribute("textContent")
        regenerate.click()
        wait.until(lambda d: finals(d) > answers)
        seen["regenerated"] = driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .body")[-1].text
        seen["asked_again"] = driver.find_elements(By.CSS_SELECTOR, ".msg.me .body")[-1].text
        return seen
    finally:
        driver.quit()


async def test_markdown_fixtures_render_safely_in_dark_mode(tmp_path, fake_llm, retriever):
    fake_llm.stream_text(MARKDOWN, chunk=7)
    fake_llm.stream_text(
        "".join(f"第{i}句：学而时习之，不亦说乎。\n\n" for i in range(1, 80)), chunk=4, chunk_delay=0.05
    )
    fake_llm.stream_text("再答：学而时习之。", chunk=4)
    shot = tmp_path / "web-chat-dark.png"
    if os.environ.get("FUZI_WEB_SCREENSHOT"):
        shot = Path(os.environ["FUZI_WEB_SCREENSHOT"]).with_name("web-chat-dark.png")
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _):
        seen = await asyncio.to_thread(render_fixtures, base, shot)
        async with httpx.AsyncClient() as client:
            icon = await client.get(seen["favicon"])
    assert seen["ol"] == ["学而时习之", "有朋自远方来"] and seen["nested"] == ["不亦乐乎", "人不知而不愠"]
    assert seen["quote"] == ["温故而知新，可以为师矣。"] and seen["cells"] == ["学而", "16"]
    assert (
        seen["code"] == ['print("子曰")\n\nprint("学而")'] and seen["copy_code"] == 1
    )  # one block despite the blank line
    assert "```" not in seen["text"]
    assert seen["links"] == [("论语", "https://example.org/lunyu")]  # javascript: stays text, never a link
    assert "[点我](javascript:alert(1))" in seen["text"] and "<script>alert(2)</script>" in seen["text"]
    assert seen["scripts"] == 0 and seen["alerts"] == "undefined"
    rgb = [int(x) for x in seen["background"].strip("rgba()").split(",")[:3]]
    assert sum(rgb) < 150, seen["background"]  # dark
    assert seen["notice_lines"] >= 3
    assert seen["scrollable"] > 0 and seen["scroll_kept"] < 5
    assert seen["stopped"].endswith("（已停止）") and seen["edited"] == "请慢慢讲"
    assert seen["regenerate_label"] == "重新回答" and seen["regenerated"] == "再答：学而时习之。"
    assert seen["asked_again"] == "请用各种格式写"
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")


def another_device(base: str, token: str) -> dict:
    """Token mode in a fresh browser: paste the token, find the chat made elsewhere, be limited, log out."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser()
    try:
        wait = wait_for(driver)
        driver.get(base + "/")
        wait.until(lambda d: d.find_element(By.ID, "login").is_displayed())
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.ID, "save-token").click()
        wait.until(lambda d: len(Select(d.find_element(By.ID, "skill")).options) >= 2)
        seen = {
            "chats": [n.text.splitlines()[0] for n in driver.find_elements(By.CSS_SELECTOR, "#chat-list .open")],
            "history": [n.text for n in driver.find_elements(By.CSS_SELECTOR, ".msg .body")],
            "logout": driver.find_element(By.ID, "logout").is_displayed(),
        }
        ask(driver, "何为信？")  # over the per-IP limit: a translated notice with a retry button
        notice = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".msg.notice"))[-1]
        seen["limited"] = notice.find_element(By.CSS_SELECTOR, ".body").text
        seen["retry"] = notice.find_element(By.CSS_SELECTOR, ".act").get_attribute("textContent")
        driver.find_element(By.ID, "logout").click()
        seen["after_logout"] = (
            driver.find_element(By.ID, "login").is_displayed(),
            len(driver.find_elements(By.CSS_SELECTOR, "#chat-list li")),
            driver.execute_script("return localStorage.getItem('fuzi.token')"),
        )
        return seen
    finally:
        driver.quit()


async def test_token_mode_on_another_device_limits_and_log_out(tmp_path, fake_llm, retriever):
    from adapters.web.auth import JwtAuth
    from adapters.web.settings import WebSettings
    from bot.settings import Settings
    from tests.helpers_web import chat_events

    secret = "browser-secret-0123456789abcdef01234567"
    fake_llm.stream_text("人而无信，不知其可也。", chunk=4)
    token = JwtAuth(secret).issue("ann", 3600)
    settings = Settings(web=WebSettings(jwt_secret=secret, per_ip_per_minute=6))
    async with web_app(tmp_path, fake_llm, retriever, settings=settings) as (base, _, _):
        async with httpx.AsyncClient(timeout=30) as client:  # yesterday, on another device
            await chat_events(client, base, {"message": "何为信？", "chat": "d1"}, {"Authorization": f"Bearer {token}"})
        seen = await asyncio.to_thread(another_device, base, token)
    assert seen["chats"] == ["何为信？"] and seen["history"] == ["何为信？", "人而无信，不知其可也。"]
    assert seen["logout"] and seen["retry"] == "重试"
    assert seen["limited"].startswith("请求太频繁，请") and seen["limited"].endswith("秒后再试。")
    assert seen["after_logout"] == (True, 0, None)


class NoText:
    """An OCR engine that finds nothing: the photo gets the engine's one-line "no text" notice."""

    def read(self, image) -> list[str]:
        return []


def photo_and_feedback(base: str, png: Path, big: Path) -> dict:
    """Send a photo with a caption, refuse one over 10 MB in the page, then 👍 an answer and take it back."""
    from selenium.webdriver.common.by import By

    driver = browser()
    try:
        wait = wait_for(driver)
        driver.get(base + "/")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .empty"))
        seen = {"photo_label": driver.find_element(By.ID, "photo").get_attribute("aria-label")}
        driver.find_element(By.ID, "input").send_keys("这是哪一篇？")
        driver.find_element(By.ID, "photo-file").send_keys(str(png))
        notice = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".msg.notice .body"))[-1]
        seen["photo_notice"] = notice.text
        seen["photo_bubble"] = driver.find_elements(By.CSS_SELECTOR, ".msg.me .body")[-1].text
        wait.until(lambda d: d.find_element(By.ID, "stop").get_attribute("hidden") is not None)
        driver.find_element(By.ID, "photo-file").send_keys(str(big))
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".msg.notice")) >= 2)
        seen["big_notice"] = driver.find_elements(By.CSS_SELECTOR, ".msg.notice .body")[-1].text
        seen["bubbles"] = len(driver.find_elements(By.CSS_SELECTOR, ".msg.me"))
        ask(driver, "何为仁？")
        wait.until(lambda d: finals(d) >= 1)
        up, down = driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .meta .vote")
        seen["vote_labels"] = (up.get_attribute("aria-label"), down.get_attribute("aria-label"))
        driver.execute_script(  # what the page sends to /v1/feedback, and what the server answers
            "window.__sent = []; const f = window.fetch; window.fetch = async (url, init) => {"
            " const r = await f(url, init); if (String(url).endsWith('/v1/feedback'))"
            " __sent.push([JSON.parse(init.body).verdict, (await r.clone().json()).outcome]); return r; };"
        )
        up.click()
        wait.until(lambda d: up.get_attribute("aria-pressed") == "true")
        seen["pressed"] = (up.get_attribute("aria-pressed"), down.get_attribute("aria-pressed"))
        seen["metrics_up"] = httpx.get(f"{base}/metrics").text
        up.click()  # the active one again: taken back
        wait.until(lambda d: up.get_attribute("aria-pressed") == "false")
        seen["pressed_after"] = (up.get_attribute("aria-pressed"), down.get_attribute("aria-pressed"))
        seen["sent"] = driver.execute_script("return window.__sent")
        return seen
    finally:
        driver.quit()


async def test_photo_upload_and_feedback_buttons(tmp_path, fake_llm, retriever):
    from PIL import Image

    from core.media.intake import MediaIntake
    from core.media.ocr import PageReader

    png = tmp_path / "page.png"
    Image.new("RGB", (400, 300), "white").save(png)
    big = tmp_path / "big.png"
    big.write_bytes(bytes(10 * 1024 * 1024 + 1))
    fake_llm.stream_text("仁者爱人。", chunk=4)
    media = MediaIntake(PageReader(NoText()))
    async with web_app(tmp_path, fake_llm, retriever, media=media) as (base, _, _):
        seen = await asyncio.to_thread(photo_and_feedback, base, png, big)
    assert seen["photo_label"] == "发送照片" and seen["photo_bubble"] == "📷 这是哪一篇？"
    assert seen["photo_notice"].startswith("图中未见汉字，夫子无从读起。")
    assert seen["big_notice"] == "照片超过 10 MB，请缩小后再发。" and seen["bubbles"] == 1  # refused before upload
    assert seen["vote_labels"] == ("有帮助", "没帮助") and seen["pressed"] == ("true", "false")
    assert 'fuzi_reply_feedback_total{platform="web",verdict="up"} 1.0' in seen["metrics_up"]
    assert seen["sent"] == [["up", "up"], ["none", "cleared"]] and seen["pressed_after"] == ("false", "false")
