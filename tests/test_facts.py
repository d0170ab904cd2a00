"""The rule decides, the fixer renders: a rule declares the most permissive fix it offers
(`Rule.fix`, an `Applicability` or None) and, for each finding, hands its fixer an immutable
`Facts` with the applicability it decided; the fixer renders a fix of exactly that
or declines, and the fixing layer shows the rule's `suggestion` where there is no rewrite.

Registration refuses a rule that cannot keep that promise (a display-only rule with neither
a suggestion nor a fixer, a `fix` that is not an Applicability); `RuleContext.report`
refuses untyped facts and facts above the rule's declared fix; `attach_fixes` drops (with
a warning) a fix more permissive than the facts. Over every rule's flagged examples, each
finding carries typed facts and a fix within them.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

from gpulint import Applicability, Facts, all_rules, registry
from gpulint.diagnostic import Diagnostic, Edit, Fix, Position
from gpulint.fixing import Decline, Plan, attach_fixes, ready
from gpulint.pipeline import check
from gpulint.rule_api import Rule, RuleContext
from gpulint.source import Source

RULES = [rule for rule in all_rules() if rule.code != "GPU001"]


def _unregistered(code: str) -> None:
    registry._REGISTRY.pop(code, None)


# -- registration ------------------------------------------------------------------------------


def test_a_display_only_rule_without_suggestion_or_fixer_is_refused():
    with pytest.raises(TypeError, match="display-only fix: give it a `suggestion`"):

        class Silent(Rule):
            code = "GPU995"
            name = "silent-display"
            message = "never shown"
            nodes = (ast.For,)
            fix = Applicability.DISPLAY

    _unregistered("GPU995")
    assert "GPU995" not in registry._REGISTRY


def test_a_display_only_rule_with_a_suggestion_shows_it_on_every_finding():
    class Advised(Rule):
        code = "GPU995"
        name = "advised-display"
        message = "a for loop"
        nodes = (ast.For,)
        fix = Applicability.DISPLAY
        suggestion = "write it as a comprehension"
        triggers = (b"for",)

        def check(self, node: ast.AST, ctx: RuleContext) -> None:
            ctx.report(node)

    _unregistered("GPU995")
    [finding] = check(Source.from_text("for x in y:\n    pass\n"), [Advised]).diagnostics
    assert finding.fix is not None
    assert finding.fix.applicability is Applicability.DISPLAY and not finding.fix.edits
    assert finding.suggestion == "write it as a comprehension"


def test_a_fix_that_is_not_an_applicability_is_refused():
    with pytest.raises(TypeError, match="`fix` is an Applicability"):

        class Stringly(Rule):
            code = "GPU995"
            name = "stringly-fix"
            message = "never shown"
            nodes = (ast.For,)
            fix = "safe"  # type: ignore[assignment]

    _unregistered("GPU995")


def test_a_rule_without_a_fix_says_none():
    assert Rule.fix is None and Rule.suggestion is None
    assert [rule.code for rule in all_rules() if rule.fix is None and rule.suggestion] == []


# -- facts above the rule's declared fix ---------------------------------------------------


def test_untyped_facts_or_facts_above_the_rules_fix_are_refused_when_reported():
    class Unsafe(Rule):
        code = "GPU995"
        name = "unsafe-only"
        message = "a for loop"
        nodes = (ast.For,)
        fix = Applicability.UNSAFE
        suggestion = "rewrite it"

    _unregistered("GPU995")
    tree = ast.parse("for x in y:\n    pass\n")
    ctx = RuleContext(Source.from_text("for x in y:\n    pass\n"), tree)
    ctx._rule = Unsafe
    ctx.report(tree.body[0], context=Facts(applicability=Applicability.UNSAFE))
    ctx.report(tree.body[0], context=Facts(applicability=Applicability.DISPLAY))
    with pytest.raises(ValueError, match="decided a safe fix, more than its declared unsafe fix"):
        ctx.report(tree.body[0], context=Facts(applicability=Applicability.SAFE))
    with pytest.raises(TypeError, match="hands its fixer a dict: pass a Facts"):
        ctx.report(tree.body[0], context={"loop": tree.body[0]})  # type: ignore[arg-type]
    assert len(ctx.diagnostics) == 2


# -- the fixing layer ---------------------------------------------------------------------------


SOURCE = Source.from_text("x = 1\n")


def _finding(applicability: Applicability) -> Diagnostic:
    return Diagnostic(
        "GPU995", "probe", "probe", Position(1, 0), Position(1, 5), context=Facts(applicability=applicability)
    )


def _rule(fix: Applicability, returned: Plan | Decline, suggestion: str | None = "the rule's advice"):
    class Probe:
        code = "GPU995"

        @staticmethod
        def fixer():
            return lambda diagnostic, ctx: returned

    Probe.fix, Probe.suggestion = fix, suggestion  # type: ignore[attr-defined]
    return Probe


REWRITE = (Edit(Position(1, 4), Position(1, 5), "2"),)


def test_a_fix_more_permissive_than_the_facts_is_dropped_with_a_warning():
    rule = _rule(Applicability.SAFE, ready(Applicability.SAFE, "rewrite", REWRITE))
    [finding], warnings = attach_fixes(
        SOURCE, ast.parse(SOURCE.text), [_finding(Applicability.UNSAFE)], [rule], unsafe_fixes=True
    )
    assert warnings == ["1: fixer for GPU995 offered a safe fix where the rule decided unsafe; not offered"]
    assert finding.fix == Fix(Applicability.DISPLAY, "the rule's advice", ())


@pytest.mark.parametrize("decided", [Applicability.SAFE, Applicability.UNSAFE])
def test_a_fix_within_the_facts_is_kept(decided):
    rule = _rule(Applicability.SAFE, ready(Applicability.UNSAFE, "rewrite", REWRITE))
    [finding], warnings = attach_fixes(SOURCE, ast.parse(SOURCE.text), [_finding(decided)], [rule])
    assert warnings == [] and finding.fix == Fix(Applicability.UNSAFE, "rewrite", REWRITE)


def test_a_fixer_that_declines_leaves_the_rules_suggestion_with_the_reason():
    rule = _rule(Applicability.UNSAFE, Decline("the loop has an else clause"))
    [finding], warnings = attach_fixes(SOURCE, ast.parse(SOURCE.text), [_finding(Applicability.UNSAFE)], [rule])
    assert warnings == [] and finding.fix == Fix(Applicability.DISPLAY, "the rule's advice", ())
    assert finding.fix.declined == "the loop has an else clause"


def test_a_plan_is_rendered_only_when_asked():
    rendered = []

    def render():
        rendered.append(True)
        return REWRITE

    rule = _rule(Applicability.SAFE, Plan(Applicability.SAFE, "rewrite", render))
    tree = ast.parse(SOURCE.text)
    [planned], _ = attach_fixes(SOURCE, tree, [_finding(Applicability.SAFE)], [rule], render=False)
    assert rendered == [] and planned.fix == Fix(Applicability.SAFE, "rewrite", rendered=False)
    assert planned.fixable(unsafe_fixes=False)  # as fixable as its rendered self
    [finding], _ = attach_fixes(SOURCE, tree, [_finding(Applicability.SAFE)], [rule])
    assert rendered == [True] and finding.fix == Fix(Applicability.SAFE, "rewrite", REWRITE)


def test_a_renderer_that_declines_leaves_the_suggestion_with_its_reason():
    rule = _rule(Applicability.SAFE, Plan(Applicability.SAFE, "rewrite", lambda: Decline("libcst cannot read it")))
    [finding], _ = attach_fixes(SOURCE, ast.parse(SOURCE.text), [_finding(Applicability.SAFE)], [rule])
    assert finding.fix == Fix(Applicability.DISPLAY, "the rule's advice", ())
    assert finding.fix.declined == "libcst cannot read it"


def test_a_fixer_that_declines_for_a_rule_without_suggestion_leaves_no_fix():
    rule = _rule(Applicability.SAFE, Decline("no rewrite"), suggestion=None)
    [finding], _ = attach_fixes(SOURCE, ast.parse(SOURCE.text), [_finding(Applicability.SAFE)], [rule])
    assert finding.fix is None


# -- every rule ---------------------------------------------------------------------------------


def _immutable(value: Facts) -> bool:
    """Assigning to a field raises: a frozen dataclass, or a slots class (`ChainedWrite`)."""
    try:
        value.applicability = value.applicability  # type: ignore[misc]
    except AttributeError:  # dataclasses' FrozenInstanceError included
        return True
    return False


@pytest.mark.parametrize("rule", [r for r in RULES if r.fix is not None], ids=lambda r: r.code)
def test_every_finding_carries_frozen_facts_and_a_fix_within_them(rule):
    for example in rule.flagged:
        analysis = check(Source.from_text(example.source), [rule], unsafe_fixes=True)
        assert not [w for w in analysis.warnings if "fixer for" in w], analysis.warnings
        findings = [d for d in analysis.diagnostics if d.code == rule.code]
        assert findings, f"{rule.code} does not flag its example"
        for finding in findings:
            facts = finding.context
            assert facts is None or isinstance(facts, Facts) and _immutable(facts), type(facts)
            decided = facts.applicability if facts is not None else rule.fix
            assert decided.within(rule.fix)
            assert finding.fix is None or finding.fix.applicability.within(decided)


def _fixer_modules():
    from gpulint import fixers

    for info in pkgutil.iter_modules(fixers.__path__):
        if not info.name.startswith("_") and not info.ispkg:  # `render`: the renderers
            yield importlib.import_module(f"{fixers.__name__}.{info.name}")


def _returns_only_a_constant(function: ast.FunctionDef) -> bool:
    """`def plan(...): return suggestion(TEXT)`, a name or a literal."""
    body = [statement for statement in function.body if not isinstance(statement, ast.Expr)]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return False
    call = body[0].value
    return all(isinstance(argument, (ast.Name, ast.Constant)) for argument in call.args)


@pytest.mark.parametrize("module", list(_fixer_modules()), ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_no_fixer_only_returns_a_constant_and_none_reads_an_untyped_context(module):
    """A suggestion that does not depend on the finding is the rule's `suggestion`; facts are
    read as attributes of the rule's dataclass."""
    text = inspect.getsource(module)
    [function] = [node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef) and node.name == "plan"]
    assert not _returns_only_a_constant(function)
    assert "context or {}" not in text and "context.get(" not in text and 'context["' not in text


def test_every_rule_with_a_fixer_module_declares_a_fix():
    stems = {module.__name__.rsplit(".", 1)[1] for module in _fixer_modules()}
    by_stem = {rule.stem(): rule for rule in all_rules()}
    for stem in stems:
        assert stem in by_stem and by_stem[stem].fix is not None, stem
