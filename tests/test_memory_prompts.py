"""Task prompts from YAML: the shipped ones load and render; broken files fail with a clear error."""

from __future__ import annotations

import pytest

from core.prompts import PromptError, default_prompt_dir, load_prompt


def test_shipped_prompts_load_and_render_user_text_verbatim():
    summary = load_prompt(default_prompt_dir(), "summary")
    assert summary.version >= 1 and summary.temperature <= 0.3
    assert summary.fields() == {"existing", "new_messages", "max_chars"}
    system, user = summary.render(existing="旧", new_messages="用户：{name} 说 {0}", max_chars=300)
    assert "300" in system["content"] and "用户：{name} 说 {0}" in user["content"]
    profile = load_prompt(default_prompt_dir(), "profile")
    assert profile.fields() == {"existing", "exchange"} and profile.max_tokens <= 300
    with pytest.raises(PromptError, match="missing values"):
        profile.render(existing="{}")


def test_broken_prompt_files_are_reported(tmp_path):
    with pytest.raises(PromptError, match="cannot read"):
        load_prompt(tmp_path, "summary")
    (tmp_path / "bad.yaml").write_text("name: bad\nversion: 1\nsystem: s\nuser: u\n", encoding="utf-8")
    with pytest.raises(PromptError, match="temperature"):
        load_prompt(tmp_path, "bad")
    (tmp_path / "list.yaml").write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(PromptError, match="mapping"):
        load_prompt(tmp_path, "list")
