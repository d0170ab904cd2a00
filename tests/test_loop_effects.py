"""Loop effects: what a loop reads, binds and carries, and whether a value it grows is an
accumulation (collectable in a list) or a recurrence (the loop computes from it)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gpulint.loop_effects import ACCUMULATION, RECURRENCE, growth_of, loop_effects, recurrence_in
from gpulint.semantic import SemanticIndex


def _loop(source: str, index: int = 0) -> ast.stmt:
    tree = ast.parse(textwrap.dedent(source))
    loops = [node for node in ast.walk(tree) if isinstance(node, (ast.For, ast.AsyncFor, ast.While))]
    return loops[index]


def _kinds(source: str, index: int = 0) -> dict[str, str]:
    return {name: growth.kind for name, growth in loop_effects(_loop(source, index)).grown.items()}


# -- reads, writes, carried -------------------------------------------------------------------


def test_reads_writes_and_carried():
    effects = loop_effects(
        _loop("""
        for x in items:
            total = total + x
            label = str(x)
            print(label, total)
    """)
    )
    assert effects.reads >= {"total", "x", "str", "print", "label"}
    assert "items" not in effects.reads  # the iterable runs once, before the loop
    assert effects.writes == {"total", "label"}
    assert effects.carried == {"total"}  # label is bound before it is read


def test_a_name_bound_on_one_branch_only_is_carried():
    effects = loop_effects(
        _loop("""
        for x in items:
            if x:
                last = x
            print(last)
    """)
    )
    assert effects.carried == {"last"}


def test_a_name_bound_on_every_branch_is_not_carried():
    effects = loop_effects(
        _loop("""
        for x in items:
            if x:
                last = x
            else:
                last = 0
            print(last)
    """)
    )
    assert effects.carried == frozenset()


def test_while_test_reads_at_the_start_of_each_iteration():
    effects = loop_effects(
        _loop("""
        while budget > 0:
            budget = budget - cost()
    """)
    )
    assert "budget" in effects.reads and effects.carried == {"budget"}


def test_comprehension_variables_and_nested_locals_are_not_writes():
    effects = loop_effects(
        _loop("""
        for i in range(3):
            squares = [j * j for j in range(i)]
            def helper():
                k = 1
                return k
    """)
    )
    assert effects.writes == {"squares", "helper"}


def test_nested_global_is_a_write():
    effects = loop_effects(
        _loop("""
        for i in range(3):
            def bump():
                global counter
                counter = 1
    """)
    )
    assert "counter" in effects.writes


def test_uses_and_leaving():
    effects = loop_effects(
        _loop("""
        for x in xs:
            acc = grow(acc, x)
            if x is None:
                return acc
    """)
    )
    assert effects.uses["acc"] == 3 and effects.leaves
    assert not loop_effects(_loop("for x in xs:\n    if x:\n        break\n")).leaves


def test_results_are_kept_per_loop_by_the_files_index_and_only_loops_are_accepted():
    tree = ast.parse("for x in xs:\n    acc = grow(acc, x)\n")
    index = SemanticIndex(tree)
    loop = tree.body[0]
    assert index.loop_effects(loop) is index.loop_effects(loop)
    assert not hasattr(loop, "_gpulint_loop_effects")  # nothing hides on the tree itself
    with pytest.raises(TypeError):
        loop_effects(ast.parse("x = 1").body[0])


# -- growth statements ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "name", "pieces"),
    [
        ("x = np.append(x, v)", "x", ["v"]),
        ("x = np.concatenate([x, a, b], axis=0)", "x", ["a", "b", "0"]),
        ("x = np.r_[x, v]", "x", ["v"]),
        ("df = df.append(row)", "df", ["row"]),
        ("self.df = pd.concat([self.df, piece])", "self.df", ["piece"]),
        ("df.loc[len(df)] = [a, b]", "df", ["[a, b]"]),
    ],
)
def test_growth_statements(statement, name, pieces):
    found = growth_of(ast.parse(statement).body[0])
    assert found is not None and found[0] == name
    assert [ast.unparse(p) for p in found[1]] == pieces


@pytest.mark.parametrize(
    "statement",
    [
        "x = np.tanh(x)",  # no other input: a transformation, not a growth
        "x = np.append(y, v)",  # another array
        "x = f(x, x)",  # the name twice
        "x, y = np.append(x, v), y",
    ],
)
def test_not_growth_statements(statement):
    assert growth_of(ast.parse(statement).body[0]) is None


# -- accumulation or recurrence ----------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        # autoregressive decoding: the next token comes from the model applied to the sequence
        """
    for _ in range(steps):
        logits = model(ids)[:, -1, :]
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
    """,
        "for i in range(n):\n    x = np.append(x, f(x[-1]))\n",
        "for i in range(n):\n    df = pd.concat([df, step(df)])\n",
        "for i in range(n):\n    acc = np.r_[acc, np.cos(acc[-1])]\n",
        # through a helper list the loop appends values of the array to
        "for v in vals:\n    hist.append(x[-1])\n    x = np.append(x, hist[-1] * 2)\n",
        # through an attribute of the same object
        "for b in batches:\n    self.state = self.out.mean()\n    self.out = torch.cat([self.out, self.state])\n",
        # rebound from itself besides being grown: a sliding window
        "for v in vals:\n    x = np.append(x, v)\n    if len(x) > 10:\n        x = x[-10:]\n",
        # the `.loc` form with a row read from the frame
        "for d in days:\n    df.loc[len(df)] = [d, df['b'].iloc[-1]]\n",
        # a nested function reads the array
        "for v in vals:\n    def last():\n        return x[-1]\n    x = np.append(x, last())\n",
        # what it holds decides whether it grows, or whether the loop goes on
        """
    for p in points:
        dist = np.sum((p - shown) ** 2, 1)
        if np.min(dist) < 4e-3:
            continue
        shown = np.vstack([shown, p])
    """,
        "while abs(x[-1] - x[-2]) > tol:\n    x = np.append(x, step())\n",
        # a model refit on the rows kept so far decides which rows are kept
        """
    for row, label in zip(rows, labels):
        if label != knn.predict(row):
            kept = np.append(kept, row)
            knn.fit(data[kept], labels[kept])
    """,
    ],
)
def test_recurrences(source):
    assert set(_kinds(source).values()) == {RECURRENCE}


@pytest.mark.parametrize(
    "source",
    [
        "for w in windows:\n    found = np.append(found, w.max())\n    print(len(found))\n",
        "while bare.size < 5:\n    bare = np.append(bare, 1.0)\n",
        # decoding with a cache: the model reads its own state, not the sequence
        """
    for _ in range(steps):
        out = model(next_id, past_key_values=past)
        past = out.past_key_values
        next_id = out.logits.argmax(-1)
        ids = torch.cat([ids, next_id], dim=1)
    """,
        "for b in batches:\n    self.out = torch.cat([self.out, self.model(b)])\n",
        "for v in vals:\n    df.loc[len(df)] = [v, v * 2]\n",
        # two arrays grown side by side: one's pieces read the other, not themselves
        "for v in vals:\n    a = np.append(a, v)\n    b = np.append(b, a[-1])\n",
        # tests of its size or kind only
        "for v in vals:\n    if x is None:\n        x = v\n    else:\n        x = np.append(x, v, axis=0)\n",
        "for v in vals:\n    if sparse.issparse(x):\n        x = sparse.vstack([x, v])\n    else:\n        x = np.vstack([x, v])\n",
        "for v in vals:\n    if len(df.index) > 99 or df.shape[0] > 99:\n        break\n    df = pd.concat([df, v])\n",
    ],
)
def test_accumulations(source):
    assert set(_kinds(source).values()) == {ACCUMULATION}


@pytest.mark.parametrize(
    "source",
    [
        "for p in pairs:\n    neg, emb = encode(p)\n    emb = torch.cat([neg, emb])\n",
        "for emb in embs:\n    emb = torch.cat([neg, emb])\n",
        "for p in pairs:\n    with open_pair(p) as emb:\n        emb = torch.cat([emb, emb])\n",
        "for p in pairs:\n    if (emb := encode(p)) is not None:\n        emb = torch.cat([emb, p])\n",
    ],
)
def test_bound_before_every_read_is_not_carried(source):
    assert _kinds(source) == {} and loop_effects(_loop(source)).carried == frozenset()


def test_a_value_started_afresh_each_iteration_is_not_grown():
    assert (
        _kinds("""
        for row in rows:
            pos = np.array([row[0], row[1]])
            pos = np.concatenate([[np.nan], pos, [np.nan]])
    """)
        == {}
    )


def test_the_outer_loop_of_a_frame_started_afresh_sees_no_recurrence():
    source = """
    for epoch in range(3):
        out = torch.empty(0)
        for b in batches:
            out = torch.cat([out, model(b)])
        model.update(out)
    """
    outer, inner = _loop(source, 0), _loop(source, 1)
    assert loop_effects(inner).kind("out") == ACCUMULATION
    assert loop_effects(outer).kind("out") is None  # not carried by the outer loop
    assert not recurrence_in([outer, inner], "out", loop_effects)


def test_recurrence_through_the_outer_loop():
    source = """
    for step in range(3):
        logits = model(ids)
        for _ in range(1):
            ids = torch.cat([ids, logits.argmax()])
    """
    outer, inner = _loop(source, 0), _loop(source, 1)
    assert loop_effects(inner).kind("ids") == ACCUMULATION
    assert recurrence_in([outer, inner], "ids", loop_effects)
