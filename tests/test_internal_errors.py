"""A rule that raises costs only its own file: the run goes on, the user gets one line."""

from __future__ import annotations

import ast

import pytest

from gpulint import registry
from gpulint.config import Config
from gpulint.engine import analyze
from gpulint.registry import Rule
from gpulint.runner import lint_paths
from gpulint.source import Source


@pytest.fixture
def exploding_rule(monkeypatch):
    class Exploding(Rule):
        """Raises on every `for` loop over `iterrows`."""

        code = "GPU998"
        name = "exploding"
        message = "never shown"
        nodes = (ast.For,)

        def check(self, node, ctx):
            raise KeyError("boom")

    registry._REGISTRY.pop("GPU998", None)  # registered by the class statement; keep it out of all_rules()
    return Exploding


def test_the_engine_turns_a_rule_crash_into_an_error(exploding_rule):
    source = Source.from_text("import pandas as pd\nfor x in pd.read_csv('a').iterrows():\n    pass\n")
    analysis = analyze(source, [exploding_rule])
    assert analysis.diagnostics == []
    assert analysis.error is not None and "GPU998" in analysis.error and "line 2" in analysis.error


def test_other_files_are_still_linted(exploding_rule, tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("import pandas as pd\nfor x in range(3):\n    pass\n")
    (tmp_path / "b.py").write_text("import pandas as pd\nfor _, r in pd.read_csv('b').iterrows():\n    pass\n")
    real_rules_for = Config.rules_for

    def rules_for(self, path, text=None):
        rules = real_rules_for(self, path, text)
        return (*rules, exploding_rule) if path is not None and path.name == "a.py" else rules

    monkeypatch.setattr(Config, "rules_for", rules_for)
    results = {r.path.name: r for r in lint_paths([tmp_path / "a.py", tmp_path / "b.py"])}
    assert results["a.py"].error is not None and "GPU998" in results["a.py"].error
    assert [d.code for d in results["b.py"].diagnostics] == ["GPU102"]
    fixed = {r.path.name: r for r in lint_paths([tmp_path / "a.py"], fix=True)}
    assert fixed["a.py"].error is not None and fixed["a.py"].fixed is None


FINDING = "import pandas as pd\nfor _, r in pd.read_csv('a').iterrows():\n    pass\n"


def test_a_broken_config_stops_only_the_files_it_governs(tmp_path):
    (tmp_path / "good").mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "good" / "a.py").write_text(FINDING)
    (tmp_path / "bad" / "b.py").write_text(FINDING)
    (tmp_path / "bad" / "pyproject.toml").write_text("[tool.gpulint\nselect =")
    (tmp_path / "bad" / "c.py").write_text(FINDING)
    results = {r.display.rsplit("/", 1)[-1]: r for r in lint_paths([tmp_path / "good", tmp_path / "bad"])}
    assert sorted(results) == ["a.py", "pyproject.toml"], "one line for the broken config, not one per file"
    assert [d.code for d in results["a.py"].diagnostics] == ["GPU102"]
    assert "invalid TOML" in results["pyproject.toml"].error


def test_a_broken_pyproject_of_another_tool_is_not_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project\nname = 'vendored'")
    (tmp_path / "a.py").write_text(FINDING)
    [result] = list(lint_paths([tmp_path / "a.py"]))
    assert result.error is None and [d.code for d in result.diagnostics] == ["GPU102"]


def test_unreadable_gitignore_lines_are_skipped_like_git_does(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("!\n[z-a]\nskipped/\n")
    (tmp_path / "skipped").mkdir()
    (tmp_path / "skipped" / "a.py").write_text(FINDING)
    (tmp_path / "b.py").write_text(FINDING)
    results = list(lint_paths([tmp_path]))
    assert [r.path.name for r in results] == ["b.py"] and results[0].error is None


def test_an_invalid_exclude_pattern_is_a_config_error(tmp_path):
    from gpulint.config import ConfigError, load_config

    (tmp_path / "pyproject.toml").write_text('[tool.gpulint]\nexclude = ["[z-a]"]\n')
    with pytest.raises(ConfigError, match="invalid path pattern"):
        load_config(tmp_path / "pyproject.toml")
