"""The rule API's straight-line questions about bindings (`RuleContext.reaching_binding`,
`reaching_assignment`, `last_assignment`, `binds`, `position`, `statements_before`) and the
semantic index's answers behind them (`SemanticIndex.binds`, `last_binding`, `uses`).

A throwaway rule asks a question at every `probe(name)` call, so each case checks what a
rule would be told at that point of the walk; it is passed to `analyze` directly and never
stays in the registry. Each question has a case it answers and near-misses it must refuse:
a branch, a loop that rebinds the name, a nested function, a tuple target, an augmented
assignment, a walrus.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable

import pytest

from gpulint import registry
from gpulint.engine import analyze
from gpulint.rule_api import Rule, RuleContext
from gpulint.semantic import SemanticIndex
from gpulint.source import Source

PROBE_CODE = "GPU998"


def _make_asking_rule() -> type[Rule]:
    assert PROBE_CODE not in registry._REGISTRY, "probe code clashes with a real rule"

    class Ask(Rule):
        """Records the answer of `question(ctx, name)` at every `probe(name)` call."""

        code = PROBE_CODE
        name = "rule-api-probe"
        message = "probe"
        nodes = (ast.Call,)
        triggers = (b"probe",)
        question: Callable[[RuleContext, str], object] = staticmethod(lambda ctx, name: None)
        answers: list = []

        def check(self, node: ast.AST, ctx: RuleContext) -> None:
            assert isinstance(node, ast.Call)
            if isinstance(node.func, ast.Name) and node.func.id == "probe" and isinstance(node.args[0], ast.Name):
                Ask.answers.append(Ask.question(ctx, node.args[0].id))

    registry._REGISTRY.pop(PROBE_CODE, None)
    return Ask


ASK = _make_asking_rule()


def ask(source: str, question: Callable[[RuleContext, str], object]) -> list:
    """The answers at each `probe(...)`, in walk order."""
    ASK.question = staticmethod(question)  # type: ignore[assignment]
    ASK.answers = []
    analyze(Source.from_text(textwrap.dedent(source)), rules=[ASK])
    return list(ASK.answers)


def _line(node: ast.AST | None) -> int | None:
    return node.lineno if node is not None else None  # type: ignore[attr-defined]


def reaching(source: str) -> list[int | None]:
    """Line of the reaching binding at each probe."""
    return ask(source, lambda ctx, name: _line(ctx.reaching_binding(name)))


def assignment(source: str) -> list[int | None]:
    """Line of the reaching plain assignment at each probe."""
    return ask(source, lambda ctx, name: _line(ctx.reaching_assignment(name)))


# -- reaching_binding / reaching_assignment -------------------------------------------------

STRAIGHT = """
x = load()
y = 2
probe(x)
"""


def test_the_last_assignment_before_the_statement_reaches_it():
    assert reaching(STRAIGHT) == [2]
    assert assignment(STRAIGHT) == [2]


def test_a_later_assignment_wins_over_an_earlier_one():
    source = """
    x = load()
    x = other()
    probe(x)
    """
    assert assignment(source) == [3]


def test_an_assignment_earlier_in_the_same_branch_reaches():
    source = """
    x = load()
    if c:
        x = other()
        probe(x)
    """
    assert assignment(source) == [4]


def test_an_assignment_outside_an_if_that_does_not_bind_reaches_inside():
    source = """
    x = load()
    if c:
        y = 1
        probe(x)
    """
    assert assignment(source) == [2]


def test_near_miss_an_assignment_in_a_branch_may_not_have_run():
    source = """
    x = load()
    if c:
        x = other()
    probe(x)
    """
    assert reaching(source) == [None]
    assert assignment(source) == [None]


def test_near_miss_the_other_branch_binds():
    source = """
    x = load()
    if c:
        x = other()
    else:
        probe(x)
    """
    assert reaching(source) == [None]


def test_near_miss_a_loop_that_rebinds_later():
    source = """
    x = load()
    for i in range(3):
        probe(x)
        x = other()
    """
    assert reaching(source) == [None]


def test_an_assignment_earlier_in_the_same_iteration_reaches():
    source = """
    for i in range(3):
        x = other()
        probe(x)
    """
    assert assignment(source) == [3]


def test_the_loop_target_reaches_its_body_but_is_no_assignment():
    source = """
    for x in range(3):
        probe(x)
    """
    assert reaching(source) == [2]
    assert assignment(source) == [None]


def test_a_loop_target_reaches_even_when_the_body_rebinds_it_later():
    source = """
    for x in range(3):
        probe(x)
        x = 5
    """
    assert reaching(source) == [2]


def test_near_miss_a_loop_target_in_the_else_clause():
    source = """
    for x in range(3):
        pass
    else:
        probe(x)
    """
    assert reaching(source) == [None]


def test_an_earlier_loop_is_a_binding_of_another_form():
    source = """
    x = load()
    for x in range(3):
        pass
    probe(x)
    """
    assert reaching(source) == [3]
    assert assignment(source) == [None]


def test_near_miss_a_nested_function_does_not_see_the_enclosing_assignment():
    source = """
    x = load()
    def f():
        probe(x)
    """
    assert reaching(source) == [None]


def test_what_a_nested_function_binds_is_its_own():
    source = """
    def f():
        x = load()
        def g():
            x = other()
        probe(x)
    """
    assert assignment(source) == [3]


def test_a_method_body_is_a_scope_of_its_own():
    source = """
    class Model:
        x = load()
        def fit(self):
            x = other()
            probe(x)
    """
    assert assignment(source) == [5]


def test_a_tuple_target_is_an_assignment():
    source = """
    a, x = split()
    probe(x)
    """
    assert assignment(source) == [2]


def test_near_miss_a_nested_tuple_target_or_a_starred_one_is_not():
    source = """
    (a, x), b = split()
    probe(x)
    c, *y = split()
    probe(y)
    """
    assert reaching(source) == [2, 4]
    assert assignment(source) == [None, None]


def test_near_miss_an_augmented_assignment_is_not_a_plain_one():
    source = """
    x = load()
    x += 1
    probe(x)
    """
    assert reaching(source) == [3]
    assert assignment(source) == [None]


def test_near_miss_a_walrus_in_an_earlier_statement_binds_it():
    source = """
    x = load()
    y = (x := other())
    probe(x)
    """
    assert reaching(source) == [None]


def test_near_miss_a_walrus_in_the_assigned_value():
    source = """
    x = (x := other()) + 1
    probe(x)
    """
    assert reaching(source) == [None]


def test_near_miss_a_walrus_in_an_enclosing_condition():
    source = """
    x = load()
    if (x := other()):
        probe(x)
    """
    assert reaching(source) == [None]


def test_a_comprehension_variable_is_not_a_binding_of_the_scope():
    source = """
    x = load()
    ys = [x for x in range(3)]
    probe(x)
    """
    assert assignment(source) == [2]


def test_near_miss_except_as_and_imports_bind():
    source = """
    x = load()
    try:
        pass
    except ValueError as x:
        pass
    probe(x)
    y = load()
    import os as y
    probe(y)
    """
    assert reaching(source) == [None, 9]
    assert assignment(source) == [None, None]


def test_an_annotated_assignment_is_an_assignment_and_a_bare_annotation_is_not():
    source = """
    x: int = load()
    probe(x)
    y = load()
    y: int
    probe(y)
    """
    assert assignment(source) == [2, None]


def test_near_miss_a_parameter_is_no_statement():
    source = """
    def f(x):
        probe(x)
    """
    assert reaching(source) == [None]


# -- binds, position, last_assignment, statements_before ------------------------------------


def test_binds_asks_about_the_current_scope_only():
    source = """
    def f():
        def g():
            x = 1
        for i in range(3):
            if c:
                x = 2
        [x for x in range(3)]
        y = (x := 3)
        probe(x)
    """

    def question(ctx: RuleContext, name: str) -> list[bool]:
        block, index = ctx.position()  # type: ignore[misc]
        return [ctx.binds(statement, name) for statement in block[:index]]

    assert ask(source, question) == [[False, True, False, True]]


def test_position_is_the_current_statement_in_its_block():
    source = """
    a = 1
    if c:
        b = 2
        probe(b)
    """

    def question(ctx: RuleContext, name: str) -> tuple[int, int]:
        block, index = ctx.position()  # type: ignore[misc]
        return len(block), index

    assert ask(source, question) == [(2, 1)]


def test_last_assignment_stays_in_its_block():
    source = """
    x = load()
    if c:
        y = 1
        probe(x)
        x = other()
        z = x.f()
        probe(x)
    """

    def question(ctx: RuleContext, name: str) -> tuple[int, str] | None:
        block, index = ctx.position()  # type: ignore[misc]
        found = ctx.last_assignment(block, index, name)
        return (found[0], ast.unparse(found[1])) if found is not None else None

    assert ask(source, question) == [None, (2, "other()")]


@pytest.mark.parametrize(
    "rebinding", ["x += 1", "a, x = 1, 2", "y = (x := 1)", "for x in r: pass", "if c: x = 2", "x = y = other()"]
)
def test_near_miss_last_assignment_refuses_any_other_binding_after_it(rebinding):
    source = f"""
    x = load()
    {rebinding}
    probe(x)
    """

    def question(ctx: RuleContext, name: str) -> object:
        block, index = ctx.position()  # type: ignore[misc]
        return ctx.last_assignment(block, index, name)

    assert ask(source, question) == [None]


def test_statements_before_go_back_through_the_enclosing_blocks():
    source = """
    a = 1
    for i in r:
        b = 2
        c = 3
        probe(c)
    """

    def question(ctx: RuleContext, name: str) -> list[tuple[int, int, int | None]]:
        return [(len(block), index, _line(outer)) for block, index, outer in ctx.statements_before()]

    assert ask(source, question) == [[(3, 1, None), (3, 0, None), (3, -1, 3), (2, 0, None)]]


def test_statements_before_stop_at_the_function():
    source = """
    a = 1
    def f():
        b = 2
        probe(b)
    """
    assert ask(source, lambda ctx, name: len(list(ctx.statements_before()))) == [1]


# -- the index behind them -----------------------------------------------------------------


def _index(source: str) -> tuple[ast.Module, SemanticIndex]:
    tree = ast.parse(textwrap.dedent(source))
    return tree, SemanticIndex(tree)


def test_index_last_binding_names_the_statement_and_the_binding_node():
    tree, index = _index("""
    x = 1
    if c:
        x = 2
    y = 3
    """)
    statement, branch = tree.body[0], tree.body[1]
    assert index.last_binding(tree, "x", tree.body, 1) == (0, statement)
    assert index.last_binding(tree, "x", tree.body, 3) == (1, branch.body[0])  # type: ignore[attr-defined]
    assert index.last_binding(tree, "x", tree.body, 0) is None
    assert index.last_binding(tree, "y", tree.body, 2) is None
    assert index.binds(tree, "x", branch) and not index.binds(tree, "y", branch)


def test_index_uses_lists_reads_in_source_order_and_free_names_of_nested_scopes():
    tree, index = _index("""
    from helpers import *
    x = 1
    print(x, [x for _ in r])

    @wrap(x)
    def reads():
        return x

    def own():
        x = 2
        return x

    class Holder:
        x = 3
        def method(self):
            return x
    """)
    uses = index.uses(tree)
    assert [node.lineno for node in uses.loads["x"]] == [4, 4, 6]  # the decorator runs here
    assert sorted(node.name for node in uses.free_in["x"]) == ["Holder", "reads"]  # not `own`
    assert uses.star_import
    holder = tree.body[-1]
    assert index.uses(holder).free_in == {}  # nested scopes see nothing of a class body
    assert not index.uses(tree.body[3]).star_import  # type: ignore[arg-type]
