"""GPU202 array-grown-in-loop: which growth loops are rewritten, and why the one
concatenation equals the chain (dtype, shape and values, zero iterations included)."""

from __future__ import annotations

import itertools
from functools import partial

import numpy as np
import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import only_finding

NUMERIC = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
    np.longdouble,
]


_only = partial(only_finding, code="GPU202")


# -- the claim behind "safe": one call on the list equals the chain of calls -------------------


def _outcome(make):
    try:
        result = make()
    except Exception as error:  # both sides must fail alike
        return type(error).__name__
    return result.dtype, result.shape


@pytest.mark.parametrize("grower", ["append", "concatenate", "vstack", "hstack", "r_", "c_"])
def test_numpy_chain_equals_one_call_for_every_numeric_dtype_mix(grower):
    starts = {
        "append": lambda: np.array([]),
        "concatenate": lambda: np.empty(0),
        "vstack": lambda: np.empty((0, 2)),
        "hstack": lambda: np.zeros(0),
        "r_": lambda: np.array([]),
        "c_": lambda: np.empty((2, 0)),
    }
    shapes = {"append": (2,), "concatenate": (2,), "vstack": (1, 2), "hstack": (2,), "r_": (2,), "c_": (2,)}

    def step(acc, piece):
        if grower == "append":
            return np.append(acc, piece)
        if grower in ("r_", "c_"):
            return getattr(np, grower)[acc, piece]
        return getattr(np, grower)([acc, piece])

    def once(parts):
        if grower == "append":
            return np.concatenate(parts, axis=None)
        if grower in ("r_", "c_"):
            return getattr(np, grower)[tuple(parts)]  # the rewrite's spelling
        return getattr(np, grower)(parts)

    # Python scalars are converted differently by `np.append` (as arrays) and by the
    # stacking functions and `np.r_` (as weak scalars): both must agree with the one call.
    kinds = NUMERIC + ([True, 1, 1.0, 1j] if grower in ("append", "hstack", "r_", "c_") else [])
    for count in range(0, 3):
        for dtypes in itertools.product(kinds, repeat=count):
            pieces = [d if not isinstance(d, type) else np.ones(shapes[grower], dtype=d) for d in dtypes]

            def chain(pieces=pieces):
                acc = starts[grower]()
                for piece in pieces:
                    acc = step(acc, piece)
                return acc

            assert _outcome(chain) == _outcome(lambda pieces=pieces: once([starts[grower](), *pieces])), dtypes


@pytest.mark.slow
def test_torch_chain_equals_one_call_for_every_numeric_dtype_mix():
    torch = pytest.importorskip("torch")
    dtypes = [
        torch.bool,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.complex64,
        torch.complex128,
    ]
    for count in range(0, 3):
        for chosen in itertools.product(dtypes, repeat=count):
            pieces = [torch.ones(1, 3, dtype=d) for d in chosen]

            def chain(pieces=pieces):
                acc = torch.empty(0, 3)
                for piece in pieces:
                    acc = torch.cat([acc, piece], dim=0)
                return acc

            joined = lambda pieces=pieces: torch.cat([torch.empty(0, 3), *pieces], dim=0)  # noqa: E731
            assert _outcome(chain) == _outcome(joined), chosen


# -- what is rewritten, and how ------------------------------------------------------------------

LOOP = "import numpy as np\n\ndef f(xs):\n    acc = {start}\n    for x in xs:\n        acc = {grow}\n    return acc\n"


@pytest.mark.parametrize(
    ("start", "grow", "level"),
    [
        ("np.array([])", "np.append(acc, x)", Applicability.UNSAFE),
        ("np.zeros(0)", "np.concatenate([acc, [x, x]])", Applicability.UNSAFE),
        ("np.empty((0, 2))", "np.concatenate([acc, [[x, x]]], axis=0)", Applicability.UNSAFE),
        ("np.empty((2, 0))", "np.concatenate((acc, [[x], [x]]), axis=1)", Applicability.UNSAFE),
        ("np.zeros(0)", "np.hstack([acc, x, x + 1])", Applicability.UNSAFE),
        ("np.array([], dtype=np.int32)", "np.append(acc, x)", Applicability.UNSAFE),
        ("np.array([])", "np.r_[acc, x]", Applicability.UNSAFE),
        ("np.zeros(0)", "np.r_[acc, x, [x, x + 1]]", Applicability.UNSAFE),
        ("np.empty((2, 0))", "np.c_[acc, [x, x]]", Applicability.UNSAFE),
        ("np.array([], dtype=np.int32)", "np.r_[acc, x * 0.5]", Applicability.UNSAFE),
    ],
)
def test_rewritten_loops_compute_the_same_array(start, grow, level):
    source = LOOP.format(start=start, grow=grow)
    assert _only(source).fix.applicability is level
    fixed = fix_text(source, unsafe_fixes=True)
    assert "parts = [acc]" in fixed and "for x in xs:\n        parts." in fixed
    for n in (0, 1, 5):
        before = run_example("xs = list(range(N))", source, "f(xs)", n=n)
        after = run_example("xs = list(range(N))", fixed, "f(xs)", n=n)
        # fresh numbers nothing changes later: the same array from a default-dtype start, the
        # same values otherwise (one concatenation treats a Python scalar as weakly typed)
        assert_same_result(before, after, strict="dtype=" not in start)


def test_from_import_gets_numpy_for_the_one_call():
    source = "from numpy import append, zeros\n\nacc = zeros(0)\nfor x in range(N):\n    acc = append(acc, x)\n"
    fixed = fix_text(source, unsafe_fixes=True)
    assert "import numpy as np" in fixed and "acc = np.concatenate(parts, axis=None)" in fixed
    assert run_example("", source, "acc").tolist() == run_example("", fixed, "acc").tolist()


@pytest.mark.parametrize(
    ("start", "grow"),
    [
        ("np.asarray(seed)", "np.append(acc, x)"),  # shape unknown: zero iterations would flatten
        ("np.zeros(0)", "np.vstack([acc, [x]])"),  # 1-D start: vstack([start]) is 2-D
        ("np.zeros(0)", "np.append(x, acc)"),  # prepending
        ("np.zeros(0)", "np.stack([acc, x])"),  # stacking adds a dimension each time
        ("np.zeros(0)", "np.concatenate([acc, x], axis=1)"),  # axis beyond the start's dimensions
        ("np.zeros(0)", "np.concatenate([acc, x], dtype=int)"),  # options the check does not cover
        ("np.zeros(shape)", "np.append(acc, x)"),  # the shape may be a tuple
        ("[]", "np.append(acc, x)"),  # starts as a list
        ("np.zeros(0)", "np.r_[acc, 0:x]"),  # a range: a list cannot hold `0:x`
        ("np.zeros(0)", "np.r_[acc, 'x']"),  # text: `np.r_` reads it as a directive
        ("np.zeros(0)", "np.r_['0,2', acc, x]"),  # a directive first
        ("np.zeros(0)", "np.c_[acc, x]"),  # 1-D start: `np.c_[start]` is a column
    ],
)
def test_shapes_that_only_get_a_suggestion(start, grow):
    source = LOOP.format(start=start, grow=grow)
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "body",
    [
        "    acc = np.zeros(0)\n    for x in xs:\n        acc = np.append(acc, x)\n        print(acc)\n    return acc\n",
        "    acc = np.zeros(0)\n    for x in xs:\n        if x:\n            return acc\n        acc = np.append(acc, x)\n",
        "    acc = np.zeros(0)\n    try:\n        for x in xs:\n            acc = np.append(acc, x)\n"
        "    except ValueError:\n        pass\n    return acc\n",
        "    acc = np.zeros(0)\n    show = lambda: acc\n    for x in xs:\n        acc = np.append(acc, x)\n    return acc\n",
        "    acc = np.zeros(0)\n    for x in xs:\n        acc = np.append(acc, x)\n    else:\n        print(acc)\n",
        "    acc = np.zeros(0)\n    while acc.size < 3:\n        acc = np.append(acc, 1.0)\n    return acc\n",
    ],
)
def test_loops_that_expose_the_partial_array_are_not_rewritten(body):
    source = "import numpy as np\n\ndef f(xs):\n" + body
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


def test_global_name_is_not_rewritten():
    source = (
        "import numpy as np\nacc = np.zeros(0)\n\ndef grow(xs):\n    global acc\n    for x in xs:\n"
        "        acc = np.append(acc, x)\n"
    )
    assert _only(source).fix.applicability is Applicability.DISPLAY


def test_nested_loops_collect_into_one_list():
    source = (
        "import numpy as np\n\ndef f(grid):\n    acc = np.array([])\n    for row in grid:\n"
        "        for x in row:\n            acc = np.append(acc, x * 2)\n    return acc\n"
    )
    fixed = fix_text(source, unsafe_fixes=True)
    assert fixed.count("parts") == 3 and fixed.index("parts = [acc]") < fixed.index("for row in grid")
    setup = "grid = [list(range(k)) for k in range(N)]"
    for n in (0, 4):
        assert_same_result(
            run_example(setup, source, "f(grid)", n=n), run_example(setup, fixed, "f(grid)", n=n), strict=True
        )


def test_index_growth_shows_the_single_call():
    fixed = fix_text(LOOP.format(start="np.empty((2, 0))", grow="np.c_[acc, [x, -x]]"), unsafe_fixes=True)
    assert "acc = np.c_[tuple(parts)]" in fixed and "parts.append([x, -x])" in fixed


@pytest.mark.parametrize(
    "body",
    [
        # autoregressive decoding: the next token comes from the model applied to the sequence
        "    for _ in range(xs):\n        nxt = model(acc)[-1:]\n        acc = torch.cat([acc, nxt])\n",
        "    for x in xs:\n        acc = np.append(acc, acc[-1] + x)\n",
        "    for x in xs:\n        acc = np.r_[acc, np.cos(acc[-1])]\n",
        "    for x in xs:\n        last = acc[-1]\n        acc = np.concatenate([acc, [last * x]])\n",
        "    for x in xs:\n        acc = np.append(acc, x)\n        acc = acc[-5:]\n",
        # what it holds decides whether it grows: keep points far from those kept so far
        "    for x in xs:\n        if np.abs(acc - x).min() < 0.5:\n            continue\n        acc = np.append(acc, x)\n",
        "    for x in xs:\n        near = acc[np.abs(acc - x) < 0.5]\n        if len(near) == 0:\n"
        "            acc = np.append(acc, x)\n",
    ],
)
def test_recurrence_is_not_reported(body):
    source = (
        "import numpy as np\nimport torch\n\ndef f(xs, model):\n    acc = np.zeros(1)\n" + body + "    return acc\n"
    )
    assert [d for d in lint_source(source) if d.code == "GPU202"] == []


@pytest.mark.parametrize(
    "body",
    [
        "    for x in xs:\n        acc = np.append(acc, x)\n        print(acc.size)\n",
        "    for x in xs:\n        other = np.append(other, acc[-1])\n        acc = np.append(acc, x)\n",
        "    for x in xs:\n        acc = np.r_[acc, model(x)]\n",
        # tests of its size or kind only
        "    for x in xs:\n        if acc is None:\n            acc = x\n        else:\n            acc = np.append(acc, x)\n",
        "    for x in xs:\n        if acc.shape[0] > 100:\n            break\n        acc = np.append(acc, x)\n",
        "    for x in xs:\n        if isinstance(acc, np.ndarray) and len(acc) < 9:\n            acc = np.append(acc, x)\n",
    ],
)
def test_accumulation_next_to_reads_is_still_reported(body):
    source = (
        "import numpy as np\n\ndef f(xs, model):\n    acc = np.zeros(1)\n    other = np.zeros(1)\n"
        + body
        + "    return acc\n"
    )
    assert any(d.code == "GPU202" and d.start.line >= 7 for d in lint_source(source))


@pytest.mark.parametrize(
    "body",
    [
        # bound afresh each iteration, through a tuple, a `for` target, `with ... as`
        "    for x in xs:\n        neg, emb = model(x)\n        emb = torch.cat([neg, emb])\n        out.append(emb)\n",
        "    for emb in xs:\n        emb = torch.cat([model(emb), emb])\n        out.append(emb)\n",
        "    for x in xs:\n        with model(x) as emb:\n            emb = torch.cat([emb, emb * 2])\n",
    ],
)
def test_a_name_bound_afresh_each_iteration_is_not_reported(body):
    source = "import torch\n\ndef f(xs, model):\n    out = []\n" + body + "    return out\n"
    assert [d for d in lint_source(source) if d.code == "GPU202"] == []


@pytest.mark.parametrize(
    "loop",
    [
        "for x in range(5):",
        "for x in [0.5, 1.5, 2.5]:",
        "for x in np.array([1.0, 2.0]):",
        # once per class, each iteration selecting that class's elements
        "for x in np.unique(labels):\n    x = np.flatnonzero(labels == x)",
        "for x, count in strategy.items():\n    x = values[labels == x]",
    ],
)
def test_growth_a_few_times_is_not_reported(loop):
    source = f"import numpy as np\n\nacc = np.zeros(0)\n{loop}\n    acc = np.append(acc, x)\n"
    assert [d for d in lint_source(source) if d.code == "GPU202"] == []


@pytest.mark.parametrize(
    "loop",
    [
        "for x in range(500):",
        "for x in np.unique(labels):",  # distinct values, but no selection by them
        "for x in strategy.items():\n    x = labels == x",  # a comparison not used as a mask
        # few inner iterations, but an outer loop of unknown length carries the array
        "for row in rows:\n  for x in range(3):",
    ],
)
def test_growth_in_long_or_unknown_loops_is_still_reported(loop):
    source = f"import numpy as np\n\nacc = np.zeros(0)\n{loop}\n    acc = np.append(acc, x)\n"
    assert [d.code for d in lint_source(source) if d.code == "GPU202"] == ["GPU202"]


def test_a_fresh_array_per_outer_iteration_grown_a_few_times_is_not_reported():
    source = (
        "import numpy as np\n\nfor row in rows:\n    acc = np.zeros(0)\n    for x in range(3):\n"
        "        acc = np.append(acc, row[x])\n    print(acc)\n"
    )
    assert [d for d in lint_source(source) if d.code == "GPU202"] == []


DECODING = """\
import torch


def generate(model, ids, steps, cache):
    logits = model(ids, cache=cache)
    for _ in range(steps):
        next_id = logits[:, -1].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        logits = {forward}
    return ids
"""


def test_decoding_one_step_at_a_time_is_not_reported():
    source = DECODING.format(forward="model(next_id, cache=cache)")
    assert [d for d in lint_source(source) if d.code == "GPU202"] == []


@pytest.mark.parametrize(
    "forward",
    [
        "model(other, cache=cache)",  # the call does not take the new piece
        "torch.roll(next_id, 1)",  # a library function, not a forward pass
    ],
)
def test_decoding_near_misses_are_still_reported(forward):
    source = DECODING.format(forward=forward)
    assert [d.code for d in lint_source(source) if d.code == "GPU202"] == ["GPU202"]


def test_cupy_growth_gets_a_suggestion():
    source = "import cupy as cp\n\nacc = cp.zeros(0)\nfor x in range(n):\n    acc = cp.append(acc, x)\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY
    source = "import cupy as cp\n\nacc = cp.zeros(0)\nfor x in range(n):\n    acc = cp.r_[acc, x]\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY


def test_growing_another_name_or_a_local_function_is_not_flagged():
    source = (
        "import numpy as np\n\ndef append(a, b):\n    return a\n\nacc = np.zeros(0)\n"
        "for x in range(n):\n    acc = append(acc, x)\n    other = np.append(acc, x)\n"
    )
    assert [d for d in lint_source(source) if d.code == "GPU202"] == []
