"""Commands as people type them: any whitespace after the name, and `/ask` as a question everywhere.

One test per separator: a space, a tab, a newline, a no-break space (U+00A0), the ideographic space
U+3000 a Chinese keyboard types, an em space (U+2003), and a mix.
"""

from __future__ import annotations

import io

import pytest
from telegram import Message

from adapters.console import ConsoleAdapter, ConsoleIdentity
from adapters.telegram.routing import route
from core.engine.commands import CommandRouter
from core.memory import MemoryConfig, build_memory, register_memory
from core.types import parse_command
from tests.fakes.telegram_api import BOT_ID, BOT_USERNAME
from tests.helpers_engine import collect, make_service, sqlite_storage
from tests.test_memory_fixtures import HashEmbedder

SEPARATORS = {
    "space": " ",
    "tab": "\t",
    "newline": "\n",
    "nbsp": "\u00a0",
    "ideographic": "\u3000",
    "em_space": "\u2003",
    "mixed": " \u3000\n",
}
GROUP = -1001


@pytest.mark.parametrize("sep", SEPARATORS.values(), ids=SEPARATORS.keys())
def test_parse_command_accepts_any_whitespace(sep):
    assert parse_command(f"/remember{sep}我叫阿明") == ("remember", "我叫阿明")
    assert parse_command(f"/remember@{BOT_USERNAME}{sep}我叫阿明", BOT_USERNAME) == ("remember", "我叫阿明")
    assert parse_command(f"/remember@OtherBot{sep}我叫阿明", BOT_USERNAME) == (None, f"/remember@OtherBot{sep}我叫阿明")
    assert parse_command(f"/help{sep}") == ("help", "")


def test_not_commands():
    assert parse_command("/") == (None, "/") and parse_command("/\u3000x") == (None, "/\u3000x")
    assert parse_command("我叫阿明 /remember") == (None, "我叫阿明 /remember")


def telegram_message(text: str, chat_type: str = "private") -> Message:
    chat_id = 5 if chat_type == "private" else GROUP
    raw = {
        "message_id": 3,
        "date": 0,
        "chat": {"id": chat_id, "type": chat_type, "title": "论语读书会"},
        "from": {"id": 5, "is_bot": False, "first_name": "阿明"},
        "text": text,
    }
    return Message.de_json(raw, None)


@pytest.mark.parametrize("sep", SEPARATORS.values(), ids=SEPARATORS.keys())
def test_telegram_routes_commands_and_ask_with_any_separator(sep):
    r = route(telegram_message(f"/remember{sep}我叫阿明"), BOT_ID, BOT_USERNAME)
    assert (r.kind, r.command, r.text) == ("command", "remember", "我叫阿明")
    asked = route(telegram_message(f"/ask{sep}何为仁？", "supergroup"), BOT_ID, BOT_USERNAME)
    assert (asked.kind, asked.command, asked.text) == ("text", None, "何为仁？")  # a question, addressed
    asked = route(telegram_message(f"/ask@{BOT_USERNAME}{sep}何为仁？", "group"), BOT_ID, BOT_USERNAME)
    assert (asked.kind, asked.text) == ("text", "何为仁？")


@pytest.mark.parametrize("sep", SEPARATORS.values(), ids=SEPARATORS.keys())
def test_console_ask_is_a_question_and_commands_take_any_separator(sep):
    adapter = ConsoleAdapter(None, ConsoleIdentity(user="a", chat="c", group=False), io.StringIO(), interactive=False)
    asked = adapter.incoming(f"/ask{sep}何为仁？")
    assert asked.command is None and asked.text == "何为仁？"
    remembered = adapter.incoming(f"/remember{sep}我叫阿明")
    assert remembered.command == "remember" and remembered.text == "我叫阿明"


@pytest.mark.parametrize("sep", ["\u3000", "\n", "\u00a0"], ids=["ideographic", "newline", "nbsp"])
async def test_remember_with_a_chinese_space_is_saved_with_no_llm(tmp_path, sep):
    storage = sqlite_storage(tmp_path)
    memory = build_memory(storage.engine, None, HashEmbedder(), MemoryConfig())
    router = CommandRouter()
    register_memory(memory, router=router)
    service = make_service(storage, router=router)  # no LLM at all: a chat message would get L2
    adapter = ConsoleAdapter(
        service, ConsoleIdentity(user="a", chat="c", group=False), io.StringIO(), interactive=False
    )
    [saved] = await collect(service, adapter.incoming(f"/remember{sep}我叫阿明"))
    assert saved.reason == "command"
    [listed] = await collect(service, adapter.incoming("/memories"))
    assert "我叫阿明" in listed.text
