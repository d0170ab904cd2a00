"""Rule docs stay short and generated where they can be: "What it does" in at most about 80
words (the allow-list below only shrinks), "Evidence" for the details, the "Not flagged" list
made from the near-misses' reasons, and the tier's reason a field the docs show."""

from __future__ import annotations

import pytest

from gpulint.docs import render_markdown, rule_json, rule_page
from gpulint.registry import DOC_SECTIONS, all_rules
from gpulint.rule_base import NOT_FLAGGED, OPTIONAL_SECTIONS, split_sections

RULES = all_rules()

#: The most words "What it does" may have.
MAX_WORDS = 80
#: Rules whose "What it does" is still longer, with its length in words: a rule here must not
#: grow, and leaves the list once it is short enough; a rule not here stays within MAX_WORDS.
LONG_WHAT_IT_DOES: dict[str, int] = {}
#: The most words a near-miss's reason may have (one short sentence).
MAX_REASON_WORDS = 30


def words(rule) -> int:
    return len(rule.doc_sections().get("What it does", "").split())


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_what_it_does_is_short_or_on_the_shrinking_allow_list(rule):
    count = words(rule)
    allowed = LONG_WHAT_IT_DOES.get(rule.code)
    if allowed is None:
        assert count <= MAX_WORDS, f"{rule.code}: 'What it does' has {count} words (at most {MAX_WORDS})"
    else:
        assert count <= allowed, f"{rule.code}: 'What it does' grew to {count} words (allowed {allowed})"


def test_the_allow_list_holds_only_long_rules():
    """A rule trimmed to MAX_WORDS leaves the list, with its count updated when it shrinks."""
    codes = {rule.code for rule in RULES}
    for code, allowed in LONG_WHAT_IT_DOES.items():
        assert code in codes, f"{code} is no rule"
        rule = next(rule for rule in RULES if rule.code == code)
        assert words(rule) > MAX_WORDS, f"{code} is short now: take it off LONG_WHAT_IT_DOES"
        assert words(rule) == allowed, f"{code} has {words(rule)} words now: write that in LONG_WHAT_IT_DOES"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_a_docstring_has_only_the_known_sections(rule):
    titles = [title for title in rule.doc_sections() if title]
    assert NOT_FLAGGED not in titles, f"{rule.code}: '{NOT_FLAGGED}' is made from the near-misses' reasons"
    unknown = set(titles) - set(DOC_SECTIONS) - set(OPTIONAL_SECTIONS)
    assert not unknown, f"{rule.code}: unknown sections {sorted(unknown)}"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_rule_has_a_near_miss_with_its_reason(rule):
    assert rule.not_flagged(), f"{rule.code}: give at least one `ok` example a `reason`"
    for example in rule.ok:
        reason = example.reason
        if not reason:
            continue
        assert reason == reason.strip() and "\n" not in reason, f"{rule.code}: {reason!r} is one line"
        assert (reason[0].isupper() or reason[0] == "`") and reason.endswith("."), f"{rule.code}: {reason!r}"
        assert len(reason.split()) <= MAX_REASON_WORDS, f"{rule.code}: {reason!r} is too long"
    for example in rule.flagged:
        assert not example.reason, f"{rule.code}: a flagged example has no near-miss reason"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_not_flagged_is_shown_in_gpulint_rule_and_on_the_page(rule):
    bullets = "\n".join(f"- {reason}" for reason in rule.not_flagged())
    for shown in (render_markdown(rule), rule_page(rule)):
        assert f"## {NOT_FLAGGED}\n{bullets}\n" in shown
        assert shown.index("## What it does") < shown.index(f"## {NOT_FLAGGED}") < shown.index("## Fix safety")
    assert rule_json(rule)["not_flagged"] == rule.not_flagged()


@pytest.mark.parametrize("rule", [rule for rule in RULES if "Evidence" in rule.doc_sections()], ids=lambda r: r.code)
def test_evidence_follows_what_it_does(rule):
    for shown in (render_markdown(rule), rule_page(rule)):
        assert shown.index("## What it does") < shown.index("## Evidence") < shown.index("## Why is this bad?")
        assert shown.count("## Evidence") == 1
    assert rule_json(rule)["evidence"]


def test_sections_split_on_their_titles():
    doc = """
    Preamble.

    ## What it does
    Flags a thing.

    ## Evidence
    A constructor.
    """
    assert split_sections(doc) == {"": "Preamble.", "What it does": "Flags a thing.", "Evidence": "A constructor."}
