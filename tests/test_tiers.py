"""Rule tiers: what each tier runs with (no selection, `--preview` / `preview = true`, a
prefix, an exact code or name, `ALL`), the warning for a selection of preview rules outside
preview mode, the same default selection in every front-end (command line, flake8, pylint,
the language server), and the tier shown by `gpulint rule` and the docs.

The tests hold whatever the current assignment of rules to tiers: the opt-in tier is
exercised by moving a real rule into it for one test (`monkeypatch`; selection reads a
rule's `tier` each time it resolves a selector), and so is the preview tier when no rule is
in it."""

from __future__ import annotations

import ast
import inspect
import json
import re
import textwrap
from pathlib import Path

import pytest

from gpulint import lint_source
from gpulint.config import Config, ConfigError, Overrides, PreviewSelectionWarning, expand, preview_only
from gpulint.docs import render_markdown, rule_json, rule_page, rule_table, rules_index, tier_text
from gpulint.registry import Rule, Tier, all_rules, rule_by_key

from .conftest import write
from .host_tools import gpulint_json, run, tool

pytestmark = pytest.mark.real_tiers


def codes(tier: Tier, *more: Tier) -> set[str]:
    """The codes of the rules in these tiers now."""
    return {rule.code for rule in all_rules() if rule.tier in (tier, *more)}


def default_tier() -> set[str]:
    return codes(Tier.DEFAULT)


def preview_tier() -> set[str]:
    return codes(Tier.PREVIEW)


EVERY = {rule.code for rule in all_rules()}


@pytest.fixture(autouse=True)
def a_preview_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees a rule in preview: when the registry has none, GPU403 is moved there."""
    if not codes(Tier.PREVIEW):
        monkeypatch.setattr(rule_by_key("GPU403"), "tier", Tier.PREVIEW)


def rule_examples(root: Path) -> None:
    """Each rule's first flagged example in a file of its own under `root`."""
    for rule in all_rules():
        write(root / f"{rule.code.lower()}_example.py", rule.flagged[0].source)


def found_codes(run_) -> set[str]:
    return {finding["code"] for finding in json.loads(run_.stdout)}


@pytest.fixture
def opt_in_rule(monkeypatch: pytest.MonkeyPatch) -> type[Rule]:
    """GPU502 moved into the opt-in tier for one test (GPU501 shares its prefix GPU50)."""
    rule = rule_by_key("GPU502")
    assert rule is not None and rule_by_key("GPU501").tier is not Tier.OPT_IN
    monkeypatch.setattr(rule, "tier", Tier.OPT_IN)
    return rule


# -- the attribute -----------------------------------------------------------------------------


def test_the_tiers_are_the_three_ruff_like_ones():
    assert [tier.value for tier in Tier] == ["default", "preview", "opt-in"]
    assert default_tier() and preview_tier(), "the registry has default and preview rules"
    assert default_tier() | preview_tier() | codes(Tier.OPT_IN) == EVERY


def _class_assignments(rule: type[Rule]) -> list[str]:
    """The names the rule's class body assigns, in order (a name assigned twice, twice)."""
    [node] = ast.parse(textwrap.dedent(inspect.getsource(rule))).body
    assert isinstance(node, ast.ClassDef)
    return [
        target.id
        for statement in node.body
        if isinstance(statement, (ast.Assign, ast.AnnAssign))
        for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
        if isinstance(target, ast.Name)
    ]


def test_every_rule_states_its_tier_once_with_the_reason():
    for rule in all_rules():
        assigned = _class_assignments(rule)
        assert assigned.count("tier") == 1, f"{rule.code}: one `tier = Tier.X` expected"
        assert assigned.count("tier_reason") == 1, f"{rule.code}: one `tier_reason = ...` expected"
        assert isinstance(rule.tier, Tier)
        reason = rule.tier_reason
        assert isinstance(reason, str) and reason.strip() == reason and len(reason.split()) >= 3, (
            f"{rule.code}: `tier_reason` says why it is {rule.tier.value} in a sentence"
        )
    comment = re.compile(r"^\s*tier = Tier\.\w+\s*#", re.MULTILINE)
    for rule in all_rules():
        assert not comment.search(inspect.getsource(rule)), f"{rule.code}: the tier's reason is `tier_reason`"


#: The bar of docs/configuration.md: with at least MIN_CHECKED findings checked on code gpulint
#: was never tuned on (the tier sample), a rule is default exactly when at least USEFUL_SHARE
#: of them are useful.
MIN_CHECKED, USEFUL_SHARE = 10, 0.8
USEFULNESS_REPORT = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "tiers" / "usefulness.md"


#: The graph rules' never-used checks, pooled (their own repositories: the tier sample had no
#: NetworkX code).
GRAPH_REPORT = USEFULNESS_REPORT.parents[1] / "graphs" / "blind.md"


#: The second sample, from other never-used repositories (default-set findings only), the
#: third, a per-rule draw over every rule from others again, and the fourth, two per-rule
#: draws: PyTorch training code (4a) and pandas, NumPy and scikit-learn notebooks (4b).
SECOND_REPORT = USEFULNESS_REPORT.parents[1] / "tiers2" / "usefulness.md"
THIRD_REPORT = USEFULNESS_REPORT.parents[1] / "tiers3" / "usefulness.md"
FOURTH_REPORTS = tuple(USEFULNESS_REPORT.parents[1] / name / "usefulness.md" for name in ("tiers4a", "tiers4b"))
#: The fifth: the default set's findings only, on Kaggle kernels, course notebooks and a
#: Dask cookbook never used before (seed 47).
FIFTH_REPORT = USEFULNESS_REPORT.parents[1] / "tiers5" / "usefulness.md"
#: and GPU401's newly reported chains on the same corpus after its widening (seed 48).
FIFTH_REPORT_WIDENED = USEFULNESS_REPORT.parents[1] / "tiers5b" / "usefulness.md"
#: The sixth: the default set's findings on never-used PyTorch repositories and Kaggle
#: kernels (6a, seed 61) and on Kaggle kernels (6b, seed 62).
SIXTH_REPORTS = tuple(USEFULNESS_REPORT.parents[1] / name / "usefulness.md" for name in ("tiers6a", "tiers6b"))
#: The seventh and eighth: the default set with GPU305 run as a default rule (its findings
#: without its preview behaviour, `benchmarks/realcode/tier_trial.py`), on never-used
#: PyTorch books, courses and Kaggle kernels (seeds 71, 81 and 82).
LATER_REPORTS = tuple(
    USEFULNESS_REPORT.parents[1] / name / "usefulness.md" for name in ("tiers7", "tiers8a", "tiers8b")
)
#: The blind sets' verdicts on the findings of the gpulint each was measured with, before
#: it joined the tuned set (`python -m benchmarks.realcode.blind_usefulness`): reported
#: beside the tiers, not pooled into them. They are no seeded draw of findings, and their
#: readers judged more findings useful than the seeded samples' did (GPU305: 109 of 113
#: there, 52 of 80 in the sixth sample).
BLIND_SETS_REPORT = USEFULNESS_REPORT.parent / "blind_sets.md"


def _report_rates(report: Path) -> dict[str, tuple[str, int, int]]:
    row = re.compile(r"^\| (GPU\d{3}) \| ([a-z-]+) \| \d+ \| (\d+) \| (\d+) \|", re.MULTILINE)
    return {
        code: (tier, int(sampled), int(useful))
        for code, tier, sampled, useful in row.findall(report.read_text("utf-8"))
    }


def _checked_rates() -> dict[str, tuple[str, int, int]]:
    """Per rule, from the committed tier-sample reports, pooled: (tier when they were
    written, sampled, useful). The graph rules' own never-used checks count too."""
    pooled: dict[str, tuple[str, int, int]] = {}
    reports = (USEFULNESS_REPORT, SECOND_REPORT, THIRD_REPORT, *FOURTH_REPORTS, FIFTH_REPORT, FIFTH_REPORT_WIDENED)
    for report in (*reports, *SIXTH_REPORTS, *LATER_REPORTS):
        for code, (tier, sampled, useful) in _report_rates(report).items():
            earlier = pooled.get(code, (tier, 0, 0))
            assert earlier[0] == tier, f"{code}: the reports disagree on its tier: rewrite them"
            pooled[code] = (tier, earlier[1] + sampled, earlier[2] + useful)
    for code, (checked, useful) in _graph_rates().items():
        tier, sampled, found = pooled.get(code, (rule_by_key(code).tier.value, 0, 0))
        pooled[code] = (tier, sampled + checked, found + useful)
    return pooled


def _graph_rates() -> dict[str, tuple[int, int]]:
    """Per graph rule, from the pooled column of the graph report: (checked, useful)."""
    row = re.compile(r"^\| (GPU6\d\d) \| [^|]* \| [^|]* \| (\d+) of (\d+) \(", re.MULTILINE)
    return {code: (int(checked), int(useful)) for code, useful, checked in row.findall(GRAPH_REPORT.read_text("utf-8"))}


def test_the_blind_sets_report_is_up_to_date():
    """The pooled blind-set verdicts are regenerated from the committed recall reports."""
    from benchmarks.realcode.blind_usefulness import before_reports, render

    assert BLIND_SETS_REPORT.read_text("utf-8") == render(before_reports())


def test_graph_rules_are_default_exactly_when_their_pooled_never_used_findings_clear_the_bar():
    assert "GPU601" in _graph_rates(), f"no pooled GPU601 row in {GRAPH_REPORT}"
    rates = _checked_rates()
    for rule in all_rules():
        if rule.family() != "graphs":
            continue
        _, checked, useful = rates.get(rule.code, ("", 0, 0))
        clears = checked >= MIN_CHECKED and useful >= USEFUL_SHARE * checked
        assert (rule.tier is Tier.DEFAULT) == clears, f"{rule.code}: {useful} of {checked}, but {rule.tier.value}"


def test_the_real_code_report_was_written_with_the_current_tiers():
    rates = _checked_rates()
    assert rates, f"no rule table in {USEFULNESS_REPORT}"
    for code, (tier, _, _) in rates.items():
        assert rule_by_key(code).tier.value == tier, f"{code} changed tier since the report: rewrite it"


def test_every_rule_checked_often_enough_is_default_exactly_when_its_findings_clear_the_bar():
    """A default rule below the bar must say so in its `tier_reason`, with the reason it is kept."""
    for code, (_, sampled, useful) in _checked_rates().items():
        rule = rule_by_key(code)
        if sampled < MIN_CHECKED or rule.tier is Tier.OPT_IN:
            continue
        clears = useful >= USEFUL_SHARE * sampled
        if rule.tier is Tier.PREVIEW and clears:
            assert "above the bar: kept in preview while" in rule.tier_reason, (
                f"{code}: {useful} of {sampled} checked findings useful, above the bar, and its tier_reason says not why"
            )
            continue
        if rule.tier is Tier.DEFAULT and not clears:
            assert "below the bar: kept while" in rule.tier_reason, (
                f"{code}: {useful} of {sampled} checked findings useful, below the bar, and its tier_reason says not why"
            )
            continue
        assert (rule.tier is Tier.DEFAULT) == clears, (
            f"{code}: {useful} of {sampled} checked findings useful, but it is {rule.tier.value}"
        )


#: The bar of the whole default set: its pooled never-used findings stay this useful. A rule
#: above its own bar that would sink the set below it stays in preview.
SET_SHARE = 0.92


def test_the_default_set_stays_useful_and_holds_back_only_a_rule_that_would_sink_it():
    rates = _checked_rates()
    default = [rates[code] for code in rates if rule_by_key(code).tier is Tier.DEFAULT]
    useful, sampled = sum(u for _, _, u in default), sum(s for _, s, _ in default)
    assert useful >= SET_SHARE * sampled, f"the default set: {useful} of {sampled} useful"
    for code, (_, checked, found) in rates.items():
        if rule_by_key(code).tier is Tier.PREVIEW and checked >= MIN_CHECKED and found >= USEFUL_SHARE * checked:
            assert useful + found < SET_SHARE * (sampled + checked), f"{code} would keep the default set above its bar"


def test_a_tier_that_is_not_a_tier_is_refused_at_registration():
    with pytest.raises(TypeError, match="`tier` must be a Tier"):

        class Stringly(Rule):
            code = "GPU997"
            name = "stringly"
            message = "never shown"
            nodes = (ast.For,)
            tier = "default"  # type: ignore[assignment]

    assert rule_by_key("GPU997") is None


def test_a_rule_that_states_no_tier_starts_in_preview():
    assert Rule.tier is Tier.PREVIEW


def test_a_tier_reason_that_is_not_a_string_is_refused_at_registration():
    with pytest.raises(TypeError, match="`tier_reason` is a sentence"):

        class Unexplained(Rule):
            code = "GPU996"
            name = "unexplained"
            message = "never shown"
            nodes = (ast.For,)
            tier = Tier.DEFAULT
            tier_reason = None  # type: ignore[assignment]

    assert rule_by_key("GPU996") is None


def test_a_rule_of_the_rules_package_must_say_why_it_is_in_its_tier():
    with pytest.raises(TypeError, match="say why it is default in `tier_reason`"):

        class Unsaid(Rule):
            __module__ = "gpulint.rules.arrays.unsaid"
            code = "GPU995"
            name = "unsaid"
            message = "never shown"
            nodes = (ast.For,)
            tier = Tier.DEFAULT

    assert rule_by_key("GPU995") is None


# -- selection ---------------------------------------------------------------------------------


def test_no_selection_selects_exactly_the_default_tier():
    assert Config().codes_for(None) == default_tier()
    assert {rule.code for rule in Config().rules_for(None)} == default_tier()


def test_preview_adds_the_preview_rules_to_the_default_selection_and_to_prefixes():
    assert Config(preview=True).codes_for(None) == default_tier() | preview_tier()
    family = sorted(preview_tier())[0][:4]  # a prefix holding a preview rule: GPU4 for GPU403
    matched = {code for code in EVERY if code.startswith(family)}
    prefix = Config().with_overrides(Overrides(select=(family,)))
    assert prefix.codes_for(None) == matched - preview_tier()
    assert prefix.with_overrides(Overrides(preview=True)).codes_for(None) == matched


def test_a_preview_rule_needs_preview_mode_even_selected_by_its_code():
    preview = sorted(preview_tier())[0]
    name = rule_by_key(preview).name
    for selector in (preview, name):
        selected = Config().with_overrides(Overrides(select=(selector,)))
        assert selected.codes_for(None) == frozenset()
        assert selected.with_overrides(Overrides(preview=True)).codes_for(None) == {preview}
    everything = Config().with_overrides(Overrides(select=("ALL",)))
    assert everything.codes_for(None) == EVERY - preview_tier()
    assert everything.with_overrides(Overrides(preview=True)).codes_for(None) == EVERY


def test_an_opt_in_rule_runs_only_by_exact_code_name_or_all(opt_in_rule):
    code, name = opt_in_rule.code, opt_in_rule.name
    assert Config().codes_for(None) == default_tier() - {code}
    assert Config(preview=True).codes_for(None) == (default_tier() | preview_tier()) - {code}
    for prefix in ("GPU", "GPU5", "GPU50"):
        picked = Config(preview=True).with_overrides(Overrides(select=(prefix,))).codes_for(None)
        assert "GPU501" in picked and code not in picked, prefix
    for selector in (code, name, "ALL"):
        assert code in Config().with_overrides(Overrides(select=(selector,))).codes_for(None), selector
    extended = Config().with_overrides(Overrides(extend_select=(code,)))
    assert extended.codes_for(None) == default_tier() | {code}
    # Ignoring by prefix reaches every tier.
    ignored = Config().with_overrides(Overrides(select=(code,), ignore=("GPU5",)))
    assert ignored.codes_for(None) == frozenset()
    assert expand(["GPU5"], "test", selecting=False) == {"GPU501", "GPU502"}


def test_a_prefix_of_opt_in_rules_only_selects_nothing_and_is_no_error(opt_in_rule, monkeypatch):
    monkeypatch.setattr(rule_by_key("GPU501"), "tier", Tier.OPT_IN)
    assert expand(["GPU50"], "test") == frozenset()
    assert Config().with_overrides(Overrides(select=("GPU50",))).codes_for(None) == frozenset()
    assert expand(["GPU50"], "test", selecting=False) == {"GPU501", "GPU502"}


def test_preview_only_names_the_selectors_that_pick_nothing_else(monkeypatch):
    preview = sorted(preview_tier())[0]
    assert preview_only([preview, rule_by_key(preview).name, "ALL", "GPU", "GPU1"]) == (
        preview,
        rule_by_key(preview).name,
    )
    for code in ("GPU501", "GPU502"):
        monkeypatch.setattr(rule_by_key(code), "tier", Tier.PREVIEW)
    assert preview_only(["GPU5", "GPU50", "GPU"]) == ("GPU5", "GPU50")


def test_preview_key_in_the_configuration(project, cli):
    write(project / "pyproject.toml", "[tool.gpulint]\npreview = true\n")
    rule_examples(project)
    run_ = cli("check", "--output-format", "json", "--no-cache", ".")
    assert found_codes(run_) == default_tier() | preview_tier()
    assert found_codes(cli("check", "--output-format", "json", "--no-cache", "--no-preview", ".")) == default_tier()
    write(project / "pyproject.toml", '[tool.gpulint]\npreview = "yes"\n')
    bad = cli("check", "--no-cache", ".")
    assert bad.code == 2 and "`preview` must be true or false" in bad.stderr


def test_show_settings_gives_preview_and_the_rules_it_adds(project, cli):
    write(project / "a.py", "x = 1\n")
    plain = cli("check", "--show-settings", "a.py")
    assert "preview = false" in plain.lines
    rules_line = next(line for line in plain.lines if line.startswith("rules = "))
    assert all(code in rules_line for code in default_tier())
    assert not any(code in rules_line for code in preview_tier())
    previewed = cli("check", "--show-settings", "--preview", "a.py")
    assert "preview = true" in previewed.lines
    rules_line = next(line for line in previewed.lines if line.startswith("rules = "))
    assert all(code in rules_line for code in default_tier() | preview_tier())


# -- gpulint check -----------------------------------------------------------------------------


def test_check_with_no_configuration_runs_exactly_the_default_tier(project, cli):
    """Every rule's own example is linted: exactly the default tier's rules report, and
    every one of them does (so each default rule really ran)."""
    rule_examples(project)
    assert found_codes(cli("check", "--output-format", "json", "--no-cache", ".")) == default_tier()
    previewed = cli("check", "--output-format", "json", "--no-cache", "--preview", ".")
    assert found_codes(previewed) == default_tier() | preview_tier()
    everything = cli("check", "--output-format", "json", "--no-cache", "--preview", "--select", "ALL", ".")
    assert found_codes(everything) == EVERY


def test_opt_in_rule_stays_out_of_the_default_run_and_prefixes(project, cli, opt_in_rule):
    rule_examples(project)
    code = opt_in_rule.code
    assert code not in found_codes(cli("check", "--output-format", "json", "--no-cache", "--preview", "."))
    assert code not in found_codes(cli("check", "--output-format", "json", "--no-cache", "--select", "GPU5", "."))
    assert found_codes(cli("check", "--output-format", "json", "--no-cache", "--select", code, ".")) == {code}
    assert code in found_codes(cli("check", "--output-format", "json", "--no-cache", "--select", "ALL", "."))


def test_statistics_and_summary_count_only_the_rules_that_ran(project, cli):
    rule_examples(project)
    counted = {line.split()[1] for line in cli("check", "--statistics", "--no-cache", ".").lines[1:-1]}
    assert counted == default_tier()
    counted = {line.split()[1] for line in cli("check", "--statistics", "--no-cache", "--preview", ".").lines[1:-1]}
    assert counted == default_tier() | preview_tier()
    preview_only_run = cli(
        "check", "--no-cache", "--output-format", "concise", "--select", ",".join(sorted(preview_tier())), "."
    )
    assert preview_only_run.code == 0 and "All checks passed." in preview_only_run.lines


def test_a_preview_code_without_preview_is_warned_about_once(project, cli):
    preview = sorted(preview_tier())[0]
    rule_examples(project)
    write(project / "sub" / "pyproject.toml", f'[tool.gpulint]\nselect = ["{preview}"]\n')
    write(project / "sub" / "b.py", rule_by_key(preview).flagged[0].source)
    warning = f"warning: Selection `{preview}` has no effect because preview is not enabled."
    run_ = cli("check", "--no-cache", "--select", preview, ".")  # two configurations, one warning
    assert run_.code == 0 and run_.errors.count(warning) == 1 and preview not in run_.stdout
    configured = cli("check", "--no-cache", "sub")
    assert configured.code == 0 and configured.errors.count(warning) == 1
    assert warning not in cli("check", "--no-cache", "--quiet", "--select", preview, ".").stderr
    assert warning not in cli("check", "--no-cache", "--preview", "--select", preview, ".").stderr
    for harmless in (("--select", "ALL"), ("--ignore", preview), ("--extend-select", "GPU1")):
        assert warning not in cli("check", "--no-cache", *harmless, "gpu102_example.py").stderr, harmless


def test_the_warning_is_a_python_warning_for_other_front_ends(project):
    from gpulint.config import ConfigResolver

    preview = sorted(preview_tier())[0]
    with pytest.warns(PreviewSelectionWarning, match=f"Selection `{preview}` has no effect"):
        ConfigResolver(Overrides(select=(preview,))).for_path(project)


def test_the_library_with_neither_rules_nor_configuration_checks_every_rule():
    for rule in all_rules():
        example = rule.flagged[0].source
        assert rule.code in {d.code for d in lint_source(example, fixes=False)}, rule.code
        if rule.tier is not Tier.DEFAULT:
            assert rule.code not in {d.code for d in lint_source(example, config=Config(), fixes=False)}


# -- the other front-ends ----------------------------------------------------------------------


def mixed() -> str:
    """The examples of the preview rules, then one of a default rule (GPU107), in one file."""
    examples = [rule_by_key(code).flagged[0].source for code in sorted(preview_tier())]
    return "\n".join([*examples, rule_by_key("GPU107").flagged[0].source])


def test_flake8_plugin_and_language_server_use_the_default_selection(tmp_path):
    from gpulint.flake8_plugin import GpulintChecker
    from gpulint.lsp.server import lint_document
    from gpulint.lsp.settings import Settings

    text = mixed()
    path = write(tmp_path / "mixed.py", text)

    def flake8() -> set[str]:
        checker = GpulintChecker(ast.parse(text), str(path), text.splitlines(keepends=True))
        return {message.split()[0] for _, _, message, _ in checker.run()}

    expected = {d.code for d in lint_source(text, config=Config(), fixes=False)}
    assert "GPU107" in expected and not expected & preview_tier()
    editor = {d.code for d in lint_document(text, 1, path.as_uri(), Settings()).diagnostics}
    assert flake8() == editor == expected
    previewed = {d.code for d in lint_document(text, 1, path.as_uri(), Settings(preview=True)).diagnostics}
    assert previewed == expected | preview_tier()
    write(tmp_path / "pyproject.toml", "[tool.gpulint]\npreview = true\n")
    assert flake8() == expected | preview_tier()


def test_language_server_reads_the_preview_setting():
    from gpulint.lsp.settings import Settings

    settings, problems = Settings().updated({"gpulint": {"preview": True}})
    assert settings.preview is True and settings.overrides().preview is True and not problems
    _, problems = Settings().updated({"preview": "yes"})
    assert problems == ["setting `preview` must be true or false, got 'yes'"]


@pytest.mark.slow
def test_pylint_plugin_uses_the_default_selection(tmp_path):
    """pylint (another process) reports the rules `gpulint check` (another process) runs."""
    write(tmp_path / "mixed.py", mixed())
    process = run(
        [
            tool("pylint"),
            "--load-plugins=gpulint.pylint_plugin",
            "--disable=all",
            "--enable=gpulint",
            "--msg-template={symbol}",
            "--score=n",
            "mixed.py",
        ],
        cwd=tmp_path,
    )
    shown = {line.strip() for line in process.stdout.splitlines() if line.strip() and not line.startswith("*")}
    checked = {item["name"] for item in gpulint_json(["mixed.py"], tmp_path)}
    assert "chained-assignment" in shown and shown == checked


# -- what the docs and `gpulint rule` say ------------------------------------------------------


@pytest.mark.slow
def test_gpulint_rule_prints_the_tier(cli):
    for rule in all_rules():
        shown = render_markdown(rule)
        assert f"Tier: {tier_text(rule)}.\nWhy this tier: {rule.tier_reason}" in shown
        assert rule_json(rule)["tier"] == rule.tier.value
        assert rule_json(rule)["tier_reason"] == rule.tier_reason
    preview = sorted(preview_tier())[0]
    single = cli("rule", preview)
    assert single.code == 0 and "Tier: preview: " in single.stdout
    every = cli("rule", "--all")
    assert every.stdout.count("\nTier: ") == len(all_rules())
    payload = json.loads(cli("rule", "--all", "--format", "json").stdout)
    assert {item["code"]: item["tier"] for item in payload} == {rule.code: rule.tier.value for rule in all_rules()}


def test_rule_pages_and_tables_show_the_tier():
    for rule in all_rules():
        assert f"**Tier**: {tier_text(rule)}.  \n**Why this tier**: {rule.tier_reason}" in rule_page(rule)
        assert rule.tier_reason not in rule_table(), "the table shows the tier only"
    rows = {
        line.split(" | ")[0].lstrip("| "): line.rstrip(" |").rsplit(" | ", 1)[1]
        for line in rule_table().splitlines()[2:]
    }
    assert rows == {rule.code: rule.tier.value for rule in all_rules()}
    assert "| Tier |" in rules_index()


def test_a_bad_selector_is_still_an_error_whatever_the_tier():
    with pytest.raises(ConfigError, match="unknown rule selector 'GPU9'"):
        expand(["GPU9"], "test")


# -- preview behaviour of a default rule ------------------------------------------------------

EVALUATION_TOTAL = """\
import torch

model = torch.nn.Linear(4, 3).cuda()


def accuracy(loader):
    correct = 0
    for x, y in loader:
        correct += (model(x.cuda()).argmax(1) == y.cuda()).sum().item()
    return correct
"""


def test_a_rule_with_preview_behaviour_reports_more_in_preview_mode_only(project, cli, monkeypatch):
    rule = rule_by_key("GPU308")
    monkeypatch.setattr(rule, "tier", Tier.DEFAULT)  # the behaviour, whichever tier GPU308 is in
    assert rule.preview_behaviour
    assert [d.code for d in lint_source(EVALUATION_TOTAL, config=Config())] == []
    assert [d.code for d in lint_source(EVALUATION_TOTAL, config=Config(preview=True))] == ["GPU308"]
    write(project / "metrics.py", EVALUATION_TOTAL)
    assert cli("check", "--no-cache", "metrics.py").code == 0
    preview = cli("check", "--no-cache", "--preview", "--output-format", "json", "metrics.py")
    assert preview.code == 1 and [f["code"] for f in json.loads(preview.stdout)] == ["GPU308"]
    assert cli("check", "--no-cache", "metrics.py").code == 0, "the cache keeps the modes apart"
    write(project / "pyproject.toml", "[tool.gpulint]\npreview = true\n")
    assert cli("check", "metrics.py").code == 1
    assert cli("check", "--no-preview", "metrics.py").code == 0


def test_the_preview_mode_variant_is_the_same_rule():
    rule = rule_by_key("GPU308")
    variant = rule.in_preview_mode()
    assert variant is not rule and variant is rule.in_preview_mode() and variant.in_preview_mode() is variant
    assert issubclass(variant, rule) and variant.preview_mode and not rule.preview_mode
    assert (variant.code, variant.name, variant.url(), variant.stem(), variant.doc_sections(), variant.fixer()) == (
        rule.code,
        rule.name,
        rule.url(),
        rule.stem(),
        rule.doc_sections(),
        rule.fixer(),
    )
    assert rule_by_key("GPU308") is rule and variant not in all_rules()
    plain = rule_by_key("GPU102")
    assert plain.preview_behaviour is None and plain.in_preview_mode() is plain


def test_every_preview_behaviour_is_documented_on_the_rules_page():
    for rule in all_rules():
        if rule.preview_behaviour:  # a preview rule keeps it: what it reports in preview mode
            assert rule.preview_behaviour in rule_page(rule), rule.code
