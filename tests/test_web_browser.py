"""The web page in a real browser: Debian's chromium + chromium-driver, headless, driven by selenium,
against the app on 127.0.0.1 (real engine, fake LLM). Takes a screenshot; with
FUZI_WEB_SCREENSHOT=docs/web-chat.png it is the one docs/web.md shows.

Skipped with one line where chromium is absent; in CI (CI=true) its absence is a failure.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import httpx
import pytest

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, web_app

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


def browser():
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
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def drive(base: str, shot: Path) -> dict:
    """Everything the browser does, synchronously (runs in a worker thread); returns what it saw."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    seen: dict = {}
    driver = browser()
    try:
        wait = WebDriverWait(driver, 30, poll_frequency=0.02)
        driver.get(base + "/")
        wait.until(lambda d: len(Select(d.find_element(By.ID, "skill")).options) >= 2)
        seen["title"] = driver.title
        send = driver.find_element(By.ID, "send")
        first = send.text
        driver.find_element(By.ID, "lang").click()
        seen["languages"] = {first, send.text}
        if send.text != "请教":
            driver.find_element(By.ID, "lang").click()
        driver.find_element(By.ID, "input").send_keys("夫子如何评价管仲？")
        driver.find_element(By.ID, "send").click()
        body = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".msg.fuzi.streaming .body")))
        lengths = []
        while "streaming" in body.find_element(By.XPATH, "..").get_attribute("class") and len(lengths) < 2000:
            lengths.append(len(body.text))
        seen["lengths"] = lengths
        note = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "ol.footnotes li button")))
        seen["footnote"] = note.text
        seen["bold"] = [b.text for b in driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .body strong")]
        seen["items"] = len(driver.find_elements(By.CSS_SELECTOR, ".msg.fuzi .body li"))
        note.click()
        quote = wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, "blockquote.passage")))
        seen["passage"] = quote.text
        driver.save_screenshot(str(shot))
        driver.set_window_size(390, 844)  # a phone: nothing may stick out sideways
        seen["overflow"] = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        driver.save_screenshot(str(shot.with_name(shot.stem + "-phone.png")))
        driver.set_window_size(900, 1000)
        Select(driver.find_element(By.ID, "skill")).select_by_value("poetry")
        wait.until(
            lambda d: any(
                "论诗" in n.text or "poetry" in n.text.lower() for n in d.find_elements(By.CSS_SELECTOR, ".msg.notice")
            )
        )
        seen["skill"] = Select(driver.find_element(By.ID, "skill")).first_selected_option.get_attribute("value")
        driver.find_element(By.ID, "input").send_keys("<img src=x onerror=alert(1)>")
        driver.find_element(By.ID, "send").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".msg.fuzi .trace")) >= 2)
        seen["injected_img"] = len(driver.find_elements(By.CSS_SELECTOR, "#messages img"))
        seen["echo"] = driver.find_elements(By.CSS_SELECTOR, ".msg.me")[-1].text
    finally:
        driver.quit()
    return seen


async def test_page_streams_footnotes_and_skill_switch(tmp_path, fake_llm, retriever):
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉", "k": 3})])
    fake_llm.stream_text(ANSWER, chunk=2, chunk_delay=0.06)
    shot = Path(os.environ.get("FUZI_WEB_SCREENSHOT") or tmp_path / "web-chat.png")  # docs: docs/web-chat.png
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _):
        seen = await asyncio.to_thread(drive, base, shot)
        async with httpx.AsyncClient() as client:
            current = (await client.get(f"{base}/v1/skills")).json()["current"]
    growth = sorted(set(seen["lengths"]))
    assert len(growth) >= 5 and growth[0] < growth[-1]  # the text grew while streaming
    assert seen["languages"] == {"请教", "Ask"}
    assert seen["overflow"] <= 0
    assert seen["footnote"] == "《论语·八佾》第22章"
    assert "管仲之器小哉" in seen["passage"]
    assert seen["bold"] == ["器小"] and seen["items"] == 2
    assert seen["skill"] == "poetry" and current == "poetry"
    assert seen["injected_img"] == 0 and seen["echo"] == "<img src=x onerror=alert(1)>"
    assert shot.stat().st_size > 10_000
