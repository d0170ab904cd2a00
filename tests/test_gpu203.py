"""GPU203 np-vectorize: every way of reaching `numpy.vectorize`, and what is not it."""

from __future__ import annotations

import pytest

from gpulint import lint_source


def _codes(source: str) -> list[tuple[str, int]]:
    return [(d.code, d.start.line) for d in lint_source(source) if d.code == "GPU203"]


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\nf = np.vectorize(len)\n",
        "import numpy\nf = numpy.vectorize(len, otypes=[int])\n",
        "from numpy import vectorize\nf = vectorize(len)\n",
        "from numpy import vectorize as vec\nf = vec(len)\n",
        "import numpy as np\n\n@np.vectorize\ndef f(x):\n    return x\n",
        "import numpy as np\n\n@np.vectorize(otypes=[float])\ndef f(x):\n    return x\n",
        "import numpy as np\n\nclass C:\n    @np.vectorize\n    async def f(x):\n        return x\n",
    ],
)
def test_flagged_once(source):
    assert len(_codes(source)) == 1


@pytest.mark.parametrize(
    "source",
    [
        "import cupy as cp\nf = cp.vectorize(lambda x: x)\n",
        "import numpy as np\nfrom mylib import vectorize\nf = vectorize(len)\n",
        "import numpy as np\nvectorize = np.frompyfunc\n",
        "import numpy as np\n# np.vectorize(f) would be slow\ns = 'np.vectorize(f)'\n",
    ],
)
def test_not_flagged(source):
    assert _codes(source) == []


def test_no_fix_is_offered():
    [diagnostic] = [d for d in lint_source("import numpy as np\nf = np.vectorize(len)\n") if d.code == "GPU203"]
    assert diagnostic.fix is None
