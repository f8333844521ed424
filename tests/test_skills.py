"""Skills share one persona core, filter tools, and are found by name or display name."""

import pytest

from core.skills import BUILTIN_SKILLS, PERSONA_CORE, Skill, SkillRegistry, reply_language


def test_every_skill_builds_on_the_persona_core():
    prompts = {s.name: s.system_prompt for s in BUILTIN_SKILLS}
    assert set(prompts) == {"teaching", "poetry", "debate"}
    for prompt in prompts.values():
        assert prompt.startswith(PERSONA_CORE)
    assert "赋" in prompts["poetry"] and "比" in prompts["poetry"] and "兴" in prompts["poetry"]
    assert "两处" in prompts["debate"]
    assert len(set(prompts.values())) == 3


def test_persona_core_covers_language_and_citation_rules():
    assert "English" in PERSONA_CORE and "中文" in PERSONA_CORE
    assert "[1]" in PERSONA_CORE and "编造" in PERSONA_CORE


def test_tool_filters():
    tools = ["search_classics", "web_search", "remember"]
    registry = SkillRegistry()
    assert registry.get("teaching").allowed(tools) == tools
    assert registry.get("poetry").allowed(tools) == ["search_classics", "remember"]
    narrow = Skill("x", "x", "x", "focus", allowed_tools=("remember",))
    assert narrow.allowed(tools) == ["remember"]


def test_registry_lookup_and_default():
    registry = SkillRegistry()
    assert registry.default.name == "teaching"
    assert registry.get(None).name == "teaching" and registry.get("gone").name == "teaching"
    assert registry.find("诗词赏析").name == "poetry" and registry.find(" Debate ").name == "debate"
    assert registry.find("cooking") is None
    assert [n for n, _ in registry.choices()] == ["teaching", "poetry", "debate"]
    with pytest.raises(ValueError):
        SkillRegistry(default="cooking")


@pytest.mark.parametrize(
    "text,lang",
    [
        ("仁是什么？", "zh"),
        ("What does 仁 mean?", "en"),
        ("How should I treat my parents?", "en"),
        ("", "zh"),
        ("学而时习之 什么意思", "zh"),
        ("What is 学而时习之 about?", "en"),
        ("请解释 the golden rule 的意思", "zh"),
    ],
)
def test_reply_language(text, lang):
    assert reply_language(text) == lang
