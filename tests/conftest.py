"""Shared fixtures for the front-end tests: running the real `gpulint` command in-process
(`invoke`) or as a subprocess, inside a scratch project folder."""

from __future__ import annotations

import atexit
import io
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpulint.cli import main
from gpulint.registry import Tier, rule_by_key

# The tests read findings one per line: the `concise` format, for this process and every
# gpulint it starts. Tests of the default (`full`) output remove the variable.
os.environ["GPULINT_OUTPUT_FORMAT"] = "concise"

#: A GPU102 finding whose (unsafe) fix turns the loop into one column expression.
ITERROWS = textwrap.dedent("""\
    import pandas as pd

    def f(sales: pd.DataFrame) -> list:
        out = []
        for _, row in sales.iterrows():
            out.append(row["price"] - row["cost"])
        return out
""")
#: Where that finding is reported (1-based line and column of `sales.iterrows()`).
ITERROWS_POSITION = (5, 19)
#: What `--fix --unsafe-fixes` makes of it.
ITERROWS_FIXED = textwrap.dedent("""\
    import pandas as pd

    def f(sales: pd.DataFrame) -> list:
        out = (sales["price"] - sales["cost"]).tolist()
        return out
""")
#: A GPU102 finding the fixer cannot rewrite: only a display-only suggestion.
ITERROWS_DISPLAY_ONLY = textwrap.dedent("""\
    import pandas as pd

    def notify(frame: pd.DataFrame) -> None:
        for _, row in frame.iterrows():
            send_invoice(row["email"], row["amount"])
""")
CLEAN = "import pandas as pd\n\nframe = pd.DataFrame({'a': [1, 2]})\ntotal = frame['a'].sum()\n"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes = b""

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()

    @property
    def errors(self) -> list[str]:
        return self.stderr.splitlines()


def _no_traceback(run: Run) -> Run:
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout, run.stderr
    assert "internal error" not in run.stderr, run.stderr
    return run


#: Runs outside any one test (module-scoped fixtures) cache in a scratch folder too.
os.environ["GPULINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="gpulint-test-cache-")
atexit.register(shutil.rmtree, os.environ["GPULINT_CACHE_DIR"], ignore_errors=True)


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own (`GPULINT_CACHE_DIR`)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(folder))
    return folder


#: The rules whose findings the front-end tests work on: an iterrows loop and its fix
#: (`ITERROWS`), a frame grown in a loop, a row-wise `apply`.
FRONT_END_RULES = ("GPU101", "GPU102", "GPU104")


@pytest.fixture(autouse=True)
def _front_end_rules_run_by_default(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The front-end tests exercise gpulint's machinery (fixes, `# noqa`, the cache, the
    outputs, the editor) on the findings of `FRONT_END_RULES`, which never-used code put in
    the preview tier: in process they run those rules as default rules. Tests of the tiers
    themselves (marked `real_tiers`) and gpulint run as a process see the real tiers."""
    if request.node.get_closest_marker("real_tiers") is None:
        for code in FRONT_END_RULES:
            monkeypatch.setattr(rule_by_key(code), "tier", Tier.DEFAULT)


@pytest.fixture(autouse=True)
def _scratch_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test caches results in a scratch folder of its own: the suite never writes a
    `.gpulint_cache` into the repository or its fixtures, and no test sees another's entries."""
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder that is the current directory."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def invoke(*args: str, input: str | bytes | None = None) -> Run:
    """Run `gpulint ARGS...` in this process, with `input` (text is UTF-8 encoded) on
    standard input; its exit code and what it wrote. Standard input, output and error are
    in-memory files for the run (not terminals), whose bytes are what it wrote."""
    data = input.encode("utf-8") if isinstance(input, str) else input or b""
    out, err = io.BytesIO(), io.BytesIO()
    streams = sys.stdin, sys.stdout, sys.stderr
    replacements = (
        io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True),
    )
    sys.stdin, sys.stdout, sys.stderr = replacements
    try:
        code = main(list(args))
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        for stream in replacements:
            stream.flush()
            stream.detach()  # the in-memory files stay open to be read
    return Run(
        code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace"), out.getvalue()
    )


@pytest.fixture
def cli():
    """Run `gpulint ARGS...` in-process (`invoke`); a traceback anywhere fails the test."""

    def run(*args: str, input: str | bytes | None = None) -> Run:
        return _no_traceback(invoke(*args, input=input))

    return run


#: What `gpulint` runs as a process in the tests: the program with `FRONT_END_RULES` in the
#: default set, as in process (`_front_end_rules_run_by_default`).
FRONT_END_PROGRAM = f"""\
import sys
from gpulint.registry import Tier, rule_by_key
for code in {FRONT_END_RULES!r}:
    rule_by_key(code).tier = Tier.DEFAULT
from gpulint.cli import run
run()
"""


def _front_end_gpulint() -> str:
    """A `gpulint` executable (in a scratch folder of its own) that runs `FRONT_END_PROGRAM`."""
    folder = Path(tempfile.mkdtemp(prefix="gpulint-test-bin-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    program = folder / "gpulint"
    program.write_text(f"#!{sys.executable}\n{FRONT_END_PROGRAM}", encoding="utf-8")
    program.chmod(0o755)
    return str(program)


GPULINT = _front_end_gpulint()
#: The installed `gpulint` program itself: every rule in its real tier, as in a host tool's
#: plugin (flake8, pylint) run beside it.
INSTALLED_GPULINT = shutil.which("gpulint") or str(Path(sys.executable).with_name("gpulint"))


@pytest.fixture
def gpulint_exe():
    """Run the installed `gpulint` console script as a real process."""

    def run(*args: str, cwd: Path, input: bytes | None = None, env: dict[str, str] | None = None) -> Run:
        process = subprocess.run(
            [GPULINT, *args], cwd=cwd, input=input, capture_output=True, timeout=60, env={**os.environ, **(env or {})}
        )
        return _no_traceback(Run(process.returncode, process.stdout.decode(), process.stderr.decode(), process.stdout))

    return run


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


REPOSITORY = Path(__file__).resolve().parent.parent


def fill_project(root: Path) -> list[Path]:
    """A project of many files, more than a run keeps in one process: the rule fixtures, the
    examples (a notebook among them), a file that does not parse and one that cannot be
    decoded. The files, sorted."""
    sources = sorted((REPOSITORY / "tests" / "fixtures").glob("*.py")) + sorted((REPOSITORY / "examples").glob("*.*"))
    files = []
    for source in sources:
        if source.suffix in (".py", ".ipynb"):
            files.append(source)
            target = root / ("examples" if source.parent.name == "examples" else "rules") / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    write(root / "broken" / "syntax.py", "import pandas as pd\ndef f(:\n")
    (root / "broken" / "latin.py").write_bytes(b"x = '\xff'\n")
    return sorted(p for p in root.rglob("*") if p.suffix in (".py", ".ipynb"))
