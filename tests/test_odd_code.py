"""Odd but valid code, linted with every registered rule and fixed with `--unsafe-fixes`:
nothing raises (no internal error, no failed fixer), every fixed result parses, and fixing
it again changes nothing.

Two sources: a hand-written corpus of unusual constructs around frames, arrays, tensors
and estimators, and every rule's own flagged examples moved into unusual places (a loop
with `else:`, a `match` case, an `async def`, a class body inside a loop). The second
follows the registry, so rules added later are covered without editing this file.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gpulint import all_rules, lint_source
from gpulint.engine import analyze
from gpulint.pipeline import fix_source
from gpulint.source import Source

CORPUS = {
    "star-unpacking-targets": """
        import numpy as np
        import pandas as pd
        frame = pd.read_csv("a.csv")
        first, *rest = np.zeros(3)
        *head, (a, *b) = frame.columns, [np.ones(2)]
        for *init, last in [np.arange(3)]:
            total = sum(init)
        values = np.asarray(rest)
        for i in range(len(values)):
            values[i], *_ = [values[i] * 2]
        """,
    "walrus-everywhere": """
        import numpy as np
        signal = np.linspace(0, 1, 10)
        doubled = [(y := x * 2) for x in signal]
        if (n := len(signal)) > 3:
            peaks = [x for x in signal if (m := x) > 0.5]
        while (chunk := np.append(signal, 1.0)).size < 20:
            signal = chunk
        print(y, m, n)
        """,
    "nested-functions-and-classes-in-loops": """
        import numpy as np
        import pandas as pd
        acc = np.array([])
        for step in range(3):
            def grow(values=acc):
                return np.append(values, step)
            class Holder:
                data = np.zeros(step)
                total = sum(data)
                def method(self, frame: pd.DataFrame):
                    return [v * 2 for v in frame["a"]]
            acc = np.append(acc, step)
        """,
    "async-for-and-async-comprehensions": """
        import numpy as np
        import torch
        async def consume(stream, weights: np.ndarray):
            out = torch.empty(0, 3)
            async for batch in stream:
                out = torch.cat([out, batch])
                for i in range(len(weights)):
                    weights[i] = weights[i] * 2
            scaled = [w async for w in stream]
            return [w * 2 for w in weights], out
        """,
    "loop-else-clauses": """
        import numpy as np
        found = np.zeros(0)
        values = np.arange(5)
        for value in values:
            found = np.append(found, value)
            if value > 3:
                break
        else:
            found = np.concatenate([found, values])
        while found.size < 3:
            found = np.append(found, 0.0)
        else:
            print(max(found))
        """,
    "match-statements": """
        import numpy as np
        import pandas as pd
        match command:
            case {"values": values, **rest}:
                array = np.asarray(values)
                total = sum(array)
                for i in range(len(array)):
                    array[i] = array[i] + 1
            case [first, *others] if first:
                grown = np.array([])
                for other in others:
                    grown = np.append(grown, other)
            case pd.DataFrame() as frame:
                print([x for x in frame["a"]])
            case _:
                pass
        """,
    "comprehensions-in-loops": """
        import numpy as np
        import pandas as pd
        grid = np.zeros((3, 3))
        frame = pd.read_csv("a.csv")
        for row in range(3):
            squares = [x ** 2 for x in grid[row]]
            labels = {x > 0 for x in frame["a"]}
            nested = [[y * 2 for y in np.arange(x)] for x in range(row)]
            lazy = sum(v for v in np.ones(row))
        """,
    "lambdas-and-decorators": """
        import functools
        import numpy as np
        from sklearn.ensemble import RandomForestClassifier

        @functools.lru_cache(maxsize=None)
        @np.vectorize
        def bucket(x):
            return x > 0

        square = lambda a=np.arange(3): [v * v for v in a]
        pick = lambda model=RandomForestClassifier(): model.fit
        sort_key = sorted(np.arange(5), key=lambda v: -v)
        """,
    "del-augmented-global-nonlocal": """
        import numpy as np
        total = np.zeros(3)
        counts = np.arange(3)

        def bump():
            global total
            for i in range(len(counts)):
                total[i] += counts[i]
            del total

        def outer():
            acc = np.array([])
            def inner():
                nonlocal acc
                for x in range(3):
                    acc = np.append(acc, x)
            inner()
            return acc

        counts += 1
        counts -= sum(counts)
        del counts
        """,
    "estimators-and-tensors-in-odd-places": """
        import numpy as np
        import torch
        from sklearn.preprocessing import StandardScaler
        from sklearn.linear_model import LogisticRegression

        class Pipeline:
            scaler = StandardScaler()
            for k in range(2):
                model = LogisticRegression(C=k + 1)
            weights = torch.zeros(3)
            hits = any(weights > 0)

        features = np.asarray(raw)
        for (i, row), label in zip(enumerate(features), labels):
            Pipeline.model.fit(row.reshape(1, -1), [label])
        with torch.no_grad():
            out = torch.empty(0)
            for batch in loader:
                out = torch.cat((out, batch.cuda().cpu()))
        """,
    "try-star-and-with": """
        import numpy as np
        acc = np.array([])
        try:
            for x in range(3):
                acc = np.append(acc, x)
        except* ValueError:
            pass
        with open("f") as handle, np.errstate(all="ignore"):
            for x in range(3):
                acc = np.append(acc, x)
        """,
}


def _assert_robust(text: str) -> None:
    ast.parse(text)  # the snippet is valid Python
    rules = all_rules()
    source = Source.from_text(text)
    analysis = analyze(source, rules)
    assert analysis.error is None, analysis.error
    outcome = fix_source(source, rules, unsafe_fixes=True)
    assert outcome.error is None, outcome.error
    problems = [w for w in outcome.warnings if "failed" in w or "invalid code" in w or "converge" in w]
    assert problems == []
    fixed = outcome.source.to_text()
    ast.parse(fixed)
    again = fix_source(outcome.source, rules, unsafe_fixes=True)
    assert again.source.to_text() == fixed, "fixing twice must equal fixing once"


@pytest.mark.parametrize("text", list(CORPUS.values()), ids=list(CORPUS))
def test_odd_corpus(text):
    _assert_robust(textwrap.dedent(text))


def test_the_corpus_reaches_the_array_rules():
    """The odd constructs sit where the rules look: the corpus is not trivially silent."""
    codes = {d.code for text in CORPUS.values() for d in lint_source(textwrap.dedent(text))}
    assert {"GPU201", "GPU202", "GPU203", "GPU204", "GPU205"} <= codes, codes


#: Unusual places to move a rule's flagged example into (`{body}` is indented to fit).
PLACES = {
    "loop-with-else": "for _odd in range(2):\n{body}\nelse:\n    pass\n",
    "match-case": "match _odd:\n    case [_first, *_rest]:\n{body2}\n    case _:\n        pass\n",
    "async-def": "async def _odd():\n{body}\n",
    "class-in-while": "while True:\n    class _Odd:\n{body2}\n    break\n",
}


def _placed(example: str) -> list[str]:
    """The example moved into each place that keeps it valid Python."""
    variants = []
    for template in PLACES.values():
        text = template.format(
            body=textwrap.indent(example, "    ").rstrip("\n"), body2=textwrap.indent(example, "        ").rstrip("\n")
        )
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        variants.append(text)
    return variants


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_every_rule_example_in_odd_places(rule):
    checked = 0
    for example in rule.flagged:
        try:
            ast.parse(example.source)
        except SyntaxError:
            continue  # GPU001's own examples
        for text in _placed(example.source):
            _assert_robust(text)
            checked += 1
    assert checked or rule.code == "GPU001"
