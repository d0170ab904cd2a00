"""Random expression trees over an element: the bodies of lambdas, row expressions and
comprehensions that the vectorising fixes rewrite.

`numeric(leaves)` combines the element terms (`x`, `row["a"]`...) with constants,
element-free calls (`float(k)`, `int(k)`, `len("ab")`), `%` formatting, `**` (constant
exponents only, so no program computes a huge power), arithmetic, comparisons, `and` /
`or` / `not` and conditionals. `text(leaf)` does the same for string elements (methods,
concatenation, `len`, `%`).
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

CONSTANTS = st.sampled_from(["0", "1", "2", "-1", "3", "0.5", "2.5", "-3", "10**9", "True", "k"])
#: Calls that do not involve the element: a vectorising fix must leave them as they are.
ELEMENT_FREE = st.sampled_from(["float(k)", "int(k)", "bool(k)", 'len("ab")', "abs(k)", "round(2.5)", 'int("3")'])
EXPONENTS = st.sampled_from(["0.5", "2", "3", "40", "-1", "0"])
ARITHMETIC = st.sampled_from(["+", "-", "*", "/", "//", "%"])
COMPARISONS = st.sampled_from(["<", ">", "==", "!=", "<=", ">="])
FORMATS = st.sampled_from(['"%.2f"', '"%d"', '"%s"', '"%5.1f%%"'])


def numeric(leaves: st.SearchStrategy[str], depth: int = 3, extras: bool = True) -> st.SearchStrategy[str]:
    """A numeric (or boolean) expression over `leaves`. Without `extras`, only what the loop
    rewrites understand: arithmetic, comparisons, `and`/`or`/`not`, conditionals."""
    base = st.one_of(leaves, leaves, leaves, CONSTANTS, *([ELEMENT_FREE] if extras else []))
    if depth <= 0:
        return base
    sub = numeric(leaves, depth - 1, extras)
    binary = st.tuples(sub, ARITHMETIC, sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    comparison = st.tuples(sub, COMPARISONS, sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    branches = [
        base,
        binary,
        binary,
        binary,
        comparison,
        st.tuples(
            leaves | st.tuples(leaves, ARITHMETIC, CONSTANTS).map(lambda t: f"({t[0]} {t[1]} {t[2]})"), EXPONENTS
        ).map(lambda t: f"{t[0]} ** {t[1]}"),
        st.tuples(comparison, st.sampled_from(["and", "or"]), comparison).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        comparison.map(lambda e: f"(not {e})"),
        sub.map(lambda e: f"(-{e})"),
        st.tuples(comparison, sub, sub).map(lambda t: f"({t[1]} if {t[0]} else {t[2]})"),
        st.tuples(st.sampled_from(["abs", "round"]), sub).map(lambda t: f"{t[0]}({t[1]})"),
    ]
    if extras:
        branches += [
            st.tuples(sub, st.sampled_from(["and", "or"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["float", "int", "bool"]), sub).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(FORMATS, sub).map(lambda t: f"({t[0]} % {t[1]})"),
        ]
    return st.one_of(*branches)


def idioms(leaves: st.SearchStrategy[str], extras: bool = True) -> st.SearchStrategy[str]:
    """Bodies shaped like the ones vectorising fixes get wrong, drawn as often as random
    trees: the element combined with an element-free call (`x / float(k)`), `%` formatting
    of the element, a power of it, the element with itself (`x + x` on bools), and
    `numeric` trees."""
    pair = st.tuples(leaves, ARITHMETIC, leaves).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    power = st.tuples(leaves, EXPONENTS).map(lambda t: f"{t[0]} ** {t[1]}")
    tree = numeric(leaves, 3, extras)
    if not extras:
        return st.one_of(pair, power, tree, tree)
    return st.one_of(
        st.tuples(leaves, ARITHMETIC, ELEMENT_FREE).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(FORMATS, leaves).map(lambda t: f"{t[0]} % {t[1]}"),
        pair,
        power,
        tree,
        tree,
        tree,
    )


def mentions(leaves: tuple[str, ...]):
    """A filter: the expression reads at least one of `leaves` (an element-free body is
    not what the loop rewrites are about)."""
    patterns = [re.compile(r"(?<![\w.])" + re.escape(leaf) + r"(?!\w)") for leaf in leaves]
    return lambda expression: any(pattern.search(expression) for pattern in patterns)


def text(leaf: str, depth: int = 2) -> st.SearchStrategy[str]:
    """A string (or derived) expression over the string element `leaf`."""
    base = st.sampled_from([leaf, leaf, '"s"'])
    if depth <= 0:
        return base
    sub = text(leaf, depth - 1)
    methods = st.sampled_from(
        [
            "strip()",
            "lower()",
            "upper()",
            "title()",
            "capitalize()",
            "swapcase()",
            'replace("a", "b")',
            'startswith("a")',
            "isdigit()",
            'split(" ")',
            "zfill(3)",
        ]
    )
    return st.one_of(
        base,
        st.tuples(sub, methods).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(sub, sub).map(lambda t: f"({t[0]} + {t[1]})"),
        sub.map(lambda e: f"len({e})"),
        sub.map(lambda e: f'("<%s>" % {e})'),
        sub.map(lambda e: f"{e} * 2"),
        sub.map(lambda e: f"{e}[0]"),
        st.tuples(sub, COMPARISONS, sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    )
