"""Safe fixes compute what the code computed, errors included: the cases where GPU202's
list of pieces, GPU302's hoisted copy and GPU303's copy on the device changed a result.

Each program is run as written and as `--fix` (safe fixes only) leaves it, on equal
inputs: the same value, or the same exception. The rule still reports each program and
offers its rewrite under `--unsafe-fixes`, whose "Fix safety" names the difference.
"""

from __future__ import annotations

import textwrap

import pytest

from gpulint import fix_text, lint_source
from tests.differential.compare import differences
from tests.differential.execution import build_inputs, run

GPU202 = {
    "row buffer refilled": (
        "n = 3",
        """
        def f(n):
            row = np.empty(2)
            out = np.empty((0, 2))
            for i in range(n):
                row[0] = i
                row[1] = i * 10
                out = np.vstack([out, row])
            return out
        """,
    ),
    "list piece that grows later": (
        "n = 3",
        """
        def f(n):
            out = np.array([])
            piece = [0.0]
            for i in range(n):
                out = np.append(out, piece)
                piece.append(float(i))
            return out
        """,
    ),
    "view of an array changed later": (
        "n = 3",
        """
        def f(n):
            out = np.array([])
            base = np.zeros(4)
            view = base[:2]
            for i in range(n):
                out = np.append(out, view)
                base += 1
            return out
        """,
    ),
    "dict value changed in place": (
        "n = 3",
        """
        def f(n):
            out = np.array([])
            box = {"k": np.zeros(2)}
            for i in range(n):
                out = np.append(out, box["k"])
                box["k"][0] += 1
            return out
        """,
    ),
    "p.fill()": (
        "n = 3",
        """
        def f(n):
            out = np.zeros(0)
            p = np.zeros(2)
            for i in range(n):
                p.fill(i)
                out = np.concatenate([out, p])
            return out
        """,
    ),
    "np.add(p, 1, out=p)": (
        "n = 3",
        """
        def f(n):
            out = np.array([])
            p = np.zeros(2)
            for i in range(n):
                out = np.append(out, p)
                np.add(p, 1, out=p)
            return out
        """,
    ),
    "p += 1 after the append": (
        "n = 3",
        """
        def f(n):
            out = np.array([])
            p = np.zeros(2)
            for i in range(n):
                out = np.append(out, p)
                p += 1
            return out
        """,
    ),
    "text next to numbers": (
        "pieces = [1.5, 'a']",
        """
        def f(pieces):
            out = np.array([])
            for piece in pieces:
                out = np.append(out, piece)
            return out
        """,
    ),
    "an int beyond 64 bits": (
        "pieces = [2**70, 1]",
        """
        def f(pieces):
            out = np.array([])
            for piece in pieces:
                out = np.append(out, piece)
            return out
        """,
    ),
    "a piece that stops the loop": (
        "pieces = [[1.0, 2.0], 'text', [3.0, 4.0]]",
        """
        def f(pieces):
            out = np.empty((0, 2))
            for piece in pieces:
                print("joining", piece)
                out = np.vstack([out, piece])
            return out
        """,
    ),
}

GPU302 = {
    "a view changed in the loop": (
        "weights = [1.0, 2.0, 3.0]\nbatches = [torch.ones(3)] * 3",
        """
        def f(batches, weights):
            w = np.array(weights)
            view = w[:]
            sums = []
            for batch in batches:
                w_device = torch.tensor(w, device=device)
                sums.append((batch * w_device).sum().item())
                view += 1
            return sums
        """,
        "f(batches, weights)",
    ),
    "a function that changes a global": (
        "batches = [torch.ones(3)] * 3",
        """
        W = np.zeros(3)


        def bump():
            W[0] += 1


        def f(batches):
            sums = []
            for batch in batches:
                w_device = torch.tensor(W, device=device)
                sums.append((batch * w_device).sum().item())
                bump()
            return sums
        """,
        "f(batches)",
    ),
    "the consumer of a generator": (
        "weights = [1.0, 2.0, 3.0]\nbatches = [torch.ones(3)] * 3",
        """
        def sums_of(batches, w):
            for batch in batches:
                w_device = torch.tensor(w, device=device)
                yield (batch * w_device).sum().item()


        def f(batches, weights):
            w = np.array(weights)
            out = []
            for value in sums_of(batches, w):
                out.append(value)
                w += 1
            return out
        """,
        "f(batches, weights)",
    ),
    "a loop that runs zero times": (
        "batches = []",
        """
        def f(batches):
            w = np.array(["a", "b"])
            sums = []
            for batch in batches:
                w_device = torch.tensor(w, device=device)
                sums.append(batch.sum().item() + len(w_device))
            return sums
        """,
        "f(batches)",
    ),
}

GPU303 = {
    "bfloat16": "torch.ones(3, dtype=torch.bfloat16)",
    "requires_grad": "torch.ones(3, requires_grad=True)",
    "conjugate bit": "torch.ones(3, dtype=torch.complex64)",  # the bit set in the call: copies resolve it
    "sparse": "torch.eye(3).to_sparse()",
}

TORCH_HEAD = 'import numpy as np\nimport torch\n\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n\n\n'


def _same_behaviour(setup: str, before: str, after: str, call: str) -> set[str]:
    inputs = build_inputs(setup)
    first, second = run(before, call, inputs), run(after, call, inputs)
    if first.error is not None or second.error is not None:
        same = type(first.error) is type(second.error) and first.printed == second.printed
        return set() if same else {f"raised {first.raised} before, {second.raised} after"}
    found = differences(first.value, second.value) | differences(first.inputs, second.inputs)
    return found | ({"output"} if first.printed != second.printed else set())


def _check(code: str, source: str, setup: str, call: str) -> None:
    assert code in [d.code for d in lint_source(source)]
    assert fix_text(source, unsafe_fixes=True) != source  # the rewrite is still offered, as unsafe
    assert _same_behaviour(setup, source, fix_text(source), call) == set()


@pytest.mark.parametrize("case", sorted(GPU202))
def test_gpu202_safe_fix_keeps_each_piece_as_it_was_joined(case):
    setup, body = GPU202[case]
    _check("GPU202", "import numpy as np\n\n\n" + textwrap.dedent(body), setup, "f(" + setup.split(" =")[0] + ")")


@pytest.mark.parametrize("case", sorted(GPU302))
def test_gpu302_safe_fix_keeps_the_copy_in_the_loop(case):
    pytest.importorskip("torch")
    setup, body, call = GPU302[case]
    _check("GPU302", TORCH_HEAD + textwrap.dedent(body), "import torch\n" + setup, call)


@pytest.mark.parametrize("case", sorted(GPU303))
def test_gpu303_safe_fix_keeps_the_errors_of_the_host_hop(case):
    pytest.importorskip("torch")
    source = TORCH_HEAD + "def f(t):\n    t = t.to(device)\n    return torch.tensor(t.cpu().numpy()).to(device)\n"
    _check("GPU303", source, f"import torch\nt = {GPU303[case]}", "f(t.conj())" if case == "conjugate bit" else "f(t)")
