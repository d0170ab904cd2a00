"""Start-up: `gpulint check` of a clean Python file loads only what that run needs.

Pre-commit runs gpulint on a few files at a time, so import time is most of what users wait
for. Each test runs gpulint in a fresh interpreter and lists the modules it ended with."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LIST_MODULES = """
import json, sys
sys.argv = ["gpulint", *sys.argv[1:]]
from gpulint.cli import main
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

#: Loaded only by the runs that need them: notebooks, machine-readable formats, the
#: watcher, the editor server, noqa insertion, rule documentation, fix rendering (libcst),
#: diffs of fixes (difflib), writing files (tempfile), worker processes (concurrent.futures,
#: threading) and memory trimming between them (ctypes).
ON_DEMAND = (
    "gpulint.notebook",
    "gpulint.ipython",
    "gpulint.output.json",
    "gpulint.output.sarif",
    "gpulint.output.github",
    "gpulint.watch",
    "gpulint.lsp",
    "gpulint.add_noqa",
    "gpulint.docs",
    "libcst",
    "difflib",
    "tempfile",
    "concurrent.futures",
    "threading",
    "ctypes",
)


BARE_MODULES = "import json, sys; print(json.dumps(sorted(sys.modules)), file=sys.stderr)"


def modules_after(tmp_path: Path, *args: str) -> set[str]:
    """The modules gpulint loaded beyond what this interpreter loads before any code runs:
    site-packages' `.pth` files (a proxy's certificate hook, say) may import `tempfile` or
    `threading` at start-up, and that cost is not gpulint's to avoid."""
    return _loaded(tmp_path, LIST_MODULES, *args) - _loaded(tmp_path, BARE_MODULES)


def _loaded(tmp_path: Path, program: str, *args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", program, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_a_clean_file_loads_nothing_it_does_not_use(tmp_path):
    (tmp_path / "features.py").write_text('import pandas as pd\n\n\ndef total(df):\n    return df["a"] + df["b"]\n')
    loaded = modules_after(tmp_path, "check", "features.py", "--no-cache")
    assert "gpulint.engine" in loaded  # the run did lint the file
    assert sorted(loaded & set(ON_DEMAND)) == []
    # The records on this path are NamedTuples and slots classes: making dataclasses and
    # importing `dataclasses` (with `inspect`) cost more than the rest of the run. argparse's
    # formatter is given the terminal's width, so it does not import `shutil` to measure it.
    assert sorted(loaded & {"dataclasses", "inspect", "shutil"}) == []
    rules = {name for name in loaded if name.startswith("gpulint.rules.") and name.count(".") == 3}
    assert "gpulint.rules.dataframe.chained_assignment" in rules
    # the device, estimator and graph rules need their libraries named; preview rules, preview mode
    assert not {name.split(".")[2] for name in rules} & {"transfers", "pipelines", "graphs", "parallel"}
    assert "gpulint.rules.dataframe.iterrows_loop" not in rules


def test_a_notebook_and_a_machine_format_load_their_modules(tmp_path):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": ["x = 1\n"]}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "explore.ipynb").write_text(json.dumps(notebook))
    loaded = modules_after(tmp_path, "check", "explore.ipynb", "--no-cache", "--output-format", "json")
    assert {"gpulint.notebook", "gpulint.output.json"} <= loaded
    assert "gpulint.output.sarif" not in loaded


ROW_LOOP = """import pandas as pd

frame = pd.read_csv("prices.csv")
totals = []
for _, row in frame.iterrows():
    totals.append(row["price"] * row["quantity"])
"""


def test_a_check_plans_fixes_without_libcst_and_a_diff_renders_them(tmp_path):
    """Findings printed for people need each fix's plan, decided on `ast`; the edits, and the
    libcst that writes a structural one, only when the run applies or shows them."""
    (tmp_path / "totals.py").write_text(ROW_LOOP)
    args = ("check", "totals.py", "--no-cache", "--preview", "--select", "GPU102")
    loaded = modules_after(tmp_path, *args)
    assert "gpulint.fixers.iterrows_loop" in loaded  # the fix was planned
    assert "libcst" not in loaded and "gpulint.fixers.render.iterrows_loop" not in loaded
    for rendering in (("--diff",), ("--output-format", "json"), ("--show-fixes",)):
        assert "libcst" in modules_after(tmp_path, *args, *rendering), rendering
