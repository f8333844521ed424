"""The operator console in a real browser: Debian's chromium + chromium-driver, headless, selenium,
against the app on 127.0.0.1 in local mode (its person is the operator; real engine, fake LLM).

Real messages first (a cited answer, one from no passage, a hostile question, 👍 and 👎), then
/admin: the figures, the five inline-SVG charts, the feedback list with its cited passages, the
unanswered questions (shown as text, never markup), on a phone without sideways scrolling, in
dark mode. With FUZI_ADMIN_SCREENSHOT=docs/admin.png the screenshots are the ones docs/operators.md shows.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import httpx
import pytest

from core.llm.choice import ModelChoice
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, chat_events, web_app
from tests.test_web_browser import CHROMIUM, DRIVER, browser, wait_for

pytestmark = pytest.mark.browser
assert CHROMIUM and DRIVER  # tests.test_web_browser skips (or fails in CI) the module without them

CITED = "子曰：“管仲之器小哉！”[1] 器小，言其格局不足以成王道。"
HOSTILE = "<img src=x onerror=alert(1)>夫子会开车吗？"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


def drive(base: str, shot: Path) -> dict:
    from selenium.webdriver.common.by import By

    seen: dict = {}
    driver = browser(dark=True)
    try:
        wait = wait_for(driver)
        driver.get(base + "/admin")
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "true")
        seen["title"] = driver.title
        seen["messages"] = driver.find_element(By.ID, "f-messages").text
        seen["up_down"] = (driver.find_element(By.ID, "f-up").text, driver.find_element(By.ID, "f-down").text)
        seen["bars"] = {
            name: len(driver.find_elements(By.CSS_SELECTOR, f"#chart-{name} svg rect"))
            for name in ("messages", "levels", "latency", "tokens", "feedback")
        }
        seen["token_labels"] = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#chart-tokens svg text")]
        seen["feedback"] = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#feedback li")]
        seen["refs"] = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#feedback .refs")]
        seen["unanswered"] = [q.text for q in driver.find_elements(By.CSS_SELECTOR, "#unanswered .q")]
        seen["images"] = len(driver.find_elements(By.CSS_SELECTOR, "main img"))
        seen["background"] = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        driver.save_screenshot(str(shot))
        driver.set_window_size(390, 844)
        seen["overflow"] = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        driver.save_screenshot(str(shot.with_name(shot.stem + "-phone.png")))
    finally:
        driver.quit()
    return seen


async def test_the_console_shows_usage_in_charts_and_lists(tmp_path, fake_llm, retriever):
    shot = Path(os.environ.get("FUZI_ADMIN_SCREENSHOT") or tmp_path / "admin.png")
    async with (
        web_app(tmp_path, fake_llm, retriever, models=ModelChoice("fake-model")) as (base, _, _),
        httpx.AsyncClient(timeout=30) as client,
    ):
        fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉", "k": 3})])
        fake_llm.stream_text(CITED, chunk=4, usage=(120, 30))
        cited = (await chat_events(client, base, {"message": "夫子如何评价管仲？"}))[-1][1]
        fake_llm.stream_text("经中未载此事。", usage=(60, 8))
        uncited = (await chat_events(client, base, {"message": HOSTILE}))[-1][1]
        for trace, verdict in ((cited["trace_id"], "up"), (uncited["trace_id"], "down")):
            await client.post(f"{base}/v1/feedback", json={"trace_id": trace, "verdict": verdict})
        seen = await asyncio.to_thread(drive, base, shot)
    assert "Fuzi" in seen["title"] and seen["messages"] == "2" and seen["up_down"] == ("1", "1")
    assert all(count > 0 for count in seen["bars"].values()), seen["bars"]
    assert "fake-model" in seen["token_labels"]
    assert len(seen["feedback"]) == 2 and "夫子如何评价管仲？" in seen["feedback"][1]
    assert seen["refs"] == ["《论语·八佾》第22章"]
    assert seen["unanswered"] == [HOSTILE] and seen["images"] == 0  # the question's markup stays text
    red, green, blue = (int(x) for x in seen["background"].strip("rgba()").split(",")[:3])
    assert red + green + blue < 150  # dark mode
    assert seen["overflow"] <= 0
