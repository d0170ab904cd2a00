"""`Rule.calls`: a rule's call check sees the calls of the methods it names, and every call
of a plain name or of another call, and nothing else."""

import ast

import pytest

from gpulint import registry
from gpulint.engine import analyze
from gpulint.registry import Rule, all_rules
from gpulint.source import Source


def _probe(methods):
    class CallProbe(Rule):
        """Reports every call it is shown."""

        code = "GPU997"
        name = "call-probe"
        message = "seen"
        nodes = (ast.Call,)
        calls = methods

        def check(self, node, ctx):
            ctx.report(node, ctx.segment(node.func))

    registry._REGISTRY.pop("GPU997", None)  # registered by the class statement; keep it out of all_rules()
    return CallProbe


SOURCE = """\
import numpy as np
from numpy import vectorize as vec

np.vectorize(f)
vec(f)
frame.apply(f)
np.mean(x)
make(f)(x)
"""


def _seen(rule):
    return [d.message for d in analyze(Source.from_text(SOURCE), [rule]).diagnostics]


def test_a_rule_sees_the_methods_it_names_and_every_other_kind_of_call():
    assert _seen(_probe(frozenset({"vectorize", "apply"}))) == ["np.vectorize", "vec", "frame.apply", "make(f)", "make"]


def test_a_rule_without_calls_sees_every_call():
    assert _seen(_probe(None)) == ["np.vectorize", "vec", "frame.apply", "np.mean", "make(f)", "make"]


def test_calls_is_for_rules_of_call_nodes():
    with pytest.raises(TypeError, match="calls"):

        class Wrong(Rule):
            code = "GPU996"
            name = "wrong-calls"
            message = "never shown"
            nodes = (ast.For,)
            calls = frozenset({"item"})

    registry._REGISTRY.pop("GPU996", None)


@pytest.mark.parametrize("rule", [r for r in all_rules() if r.calls is not None], ids=lambda r: r.code)
def test_every_rule_that_names_its_calls_still_sees_its_flagged_examples(rule):
    """Each flagged example's findings do not depend on the engine passing calls over."""
    for example in rule.flagged:
        source = Source.from_text(example.source)
        narrowed = [d.start for d in analyze(source, [rule]).diagnostics]

        class Everything(rule):  # the same rule, shown every call (a subclass without a code of its own)
            calls = None

        assert narrowed == [d.start for d in analyze(source, [Everything]).diagnostics]
        assert narrowed, f"{rule.code} must flag its example"
