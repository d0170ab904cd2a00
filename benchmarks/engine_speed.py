"""How fast gpulint detects, measured against the floor of any `ast`-based linter.

The floor is what every linter built on the standard library must pay: read the bytes,
`ast.parse` them, walk every node once. gpulint's target is a full check within 2x of that
floor on the same files. The corpus is real data-science code: the source distributions of a
few data-science packages, downloaded once into `benchmarks/.corpus/` (git-ignored; only
the `*.py` files are kept). Peers (ruff, flake8 with pandas-vet) are timed on the same files
for context when they are installed.

Usage:
    python benchmarks/engine_speed.py [--packages NAME==VERSION ...] [--repeat 3] [--json out.json]
    python benchmarks/engine_speed.py --full      # seaborn, statsmodels, scikit-learn, pandas

The default corpus (seaborn and scikit-learn: about 1,000 files, 440k lines) takes about five
minutes on two cores with the peers, most of it flake8; `--full` (3,600 files, 1.46M lines,
33 MB of downloads) about seventeen. `--no-peers` times only the floor and gpulint.

Every figure is the median of `--repeat` runs timed with `time.perf_counter`; the first run
of each in-process measurement is also reported (imports and registry discovery are paid
there). The files are read once before timing starts, so the operating system's page cache
is warm for every tool alike.

The real-code suite (`--realcode`) times every tool as a process on the pinned real
repositories (`benchmarks/realcode/repos.toml`, extracted by `benchmarks/realcode/extract.py`
into `benchmarks/.corpus/realcode`), `.py` files and notebooks separately: the floor (read,
`ast.parse`, one walk; a notebook's JSON decoded and its code cells joined first), gpulint
cold with one job and with all of them, gpulint warm (a second run on its cache), ruff
(`--select PD,PERF,NPY`, without and with its cache), flake8 with pandas-vet and pylint with
perflint (both on all cores; neither reads notebooks). For each: wall time, CPU time (user
plus system of the process and the workers it waited for) and peak RSS (of its largest
process), from `os.wait4`. A peer that is not installed is skipped; gpulint's `--jobs` and
`--no-cache` are passed only when its `check --help` lists them, so the suite also times
older versions.

    python benchmarks/engine_speed.py --realcode                  # writes results/engine_speed_realcode.*
    python benchmarks/engine_speed.py --realcode --files 250      # the first 250 files (a fixed shuffle)
    python benchmarks/engine_speed.py --realcode --rss-sizes 250 1000 3000   # peak RSS at each size too

With `--rss-sizes`, each size's runs also report the peak of the whole process tree's
resident sets added up (the main process and its workers at once, sampled from /proc every
20 ms), which is what grows when each process stays small but all of them together do not.
Each size's figures are the median of `--repeat` runs, every run's kept in the results.
"""

from __future__ import annotations

import argparse
import ast
import datetime as _dt
import functools
import gc
import hashlib
import html.parser
import importlib.metadata
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
import warnings
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE / ".corpus"
DEFAULT_PACKAGES = ("seaborn==0.13.2", "scikit-learn==1.5.2")
FULL_PACKAGES = ("seaborn==0.13.2", "statsmodels==0.14.4", "scikit-learn==1.5.2", "pandas==2.2.3")
TARGET_RATIO = 2.0
COMPLETE_MARKER = ".complete"


# -- corpus ------------------------------------------------------------------------------


def normalize(name: str) -> str:
    """PEP 503 name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_spec(spec: str) -> tuple[str, str]:
    name, sep, version = spec.partition("==")
    if not sep or not name or not version:
        raise SystemExit(f"error: package {spec!r} must be pinned as NAME==VERSION")
    return name.strip(), version.strip()


class _Links(html.parser.HTMLParser):
    """The anchors of a PEP 503 simple-index page: (file name, absolute URL)."""

    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href = dict(attrs).get("href")
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append(("".join(self._text).strip(), urllib.parse.urljoin(self.base, self._href)))
            self._href = None


def index_url() -> str:
    return (os.environ.get("PIP_INDEX_URL") or "https://pypi.org/simple/").rstrip("/") + "/"


def fetch_from_index(name: str, version: str, downloads: Path) -> Path:
    """Download the sdist of NAME==VERSION from the simple index, checking its sha256."""
    page = index_url() + normalize(name) + "/"
    request = urllib.request.Request(page, headers={"Accept": "text/html"})
    with urllib.request.urlopen(request, timeout=60) as response:
        parser = _Links(page)
        parser.feed(response.read().decode("utf-8", "replace"))
    wanted = normalize(name)
    for filename, url in parser.links:
        for suffix in (".tar.gz", ".zip"):
            if not filename.endswith(suffix):
                continue
            stem = filename[: -len(suffix)]
            project, _, file_version = stem.rpartition("-")
            if normalize(project) == wanted and file_version == version:
                return _download(url, downloads / filename)
    raise RuntimeError(f"no source distribution of {name}=={version} on {page}")


def _download(url: str, target: Path) -> Path:
    url, _, fragment = url.partition("#")
    expected = dict(part.split("=", 1) for part in fragment.split("&") if "=" in part).get("sha256")
    if target.exists() and (expected is None or _sha256(target) == expected):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    with urllib.request.urlopen(url, timeout=300) as response, partial.open("wb") as out:
        shutil.copyfileobj(response, out)
    if expected is not None and _sha256(partial) != expected:
        partial.unlink()
        raise RuntimeError(f"sha256 mismatch for {url}")
    partial.replace(target)
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_with_pip(name: str, version: str, downloads: Path) -> Path:
    """`pip download` the sdist. pip prepares the package's metadata, which for packages
    with compiled extensions (scikit-learn, pandas) means building them: minutes each."""
    downloads.mkdir(parents=True, exist_ok=True)
    before = set(downloads.iterdir())
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            name,
            f"{name}=={version}",
            "-d",
            str(downloads),
        ],
        check=True,
    )
    wanted = normalize(name)
    for path in sorted(set(downloads.iterdir()) - before) + sorted(downloads.iterdir()):
        for suffix in (".tar.gz", ".zip"):
            if path.name.endswith(suffix):
                project, _, file_version = path.name[: -len(suffix)].rpartition("-")
                if normalize(project) == wanted and file_version == version:
                    return path
    raise RuntimeError(f"pip download left no sdist of {name}=={version} in {downloads}")


def extract_python_files(archive: Path, target: Path) -> int:
    """Extract the `*.py` members of an sdist into `target`, dropping the top folder."""
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    count = 0

    def store(member_name: str, data: bytes) -> None:
        nonlocal count
        parts = Path(member_name).parts[1:]  # drop "NAME-VERSION/"
        if not parts or any(part in ("..", "") for part in parts) or Path(member_name).is_absolute():
            return
        out = tmp.joinpath(*parts)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        count += 1

    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as handle:
            for info in handle.infolist():
                if not info.is_dir() and info.filename.endswith(".py"):
                    store(info.filename, handle.read(info))
    else:
        with tarfile.open(archive) as handle:
            for member in handle:
                if member.isfile() and member.name.endswith(".py"):
                    extracted = handle.extractfile(member)
                    if extracted is not None:
                        store(member.name, extracted.read())
    (tmp / COMPLETE_MARKER).write_text(archive.name + "\n")
    for folder in (tmp, *(path for path in tmp.rglob("*") if path.is_dir())):
        folder.chmod(0o755)  # mkdtemp made it private
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)
    return count


def build_corpus(specs: list[str], corpus: Path, fetch: str) -> list[Path]:
    """Make sure every package's `*.py` files are under `corpus`; return them, sorted."""
    downloads = corpus / "downloads"
    files: list[Path] = []
    for spec in specs:
        name, version = parse_spec(spec)
        target = corpus / f"{normalize(name)}-{version}"
        if not (target / COMPLETE_MARKER).exists():
            print(f"fetching {name}=={version} ({fetch}) ...", file=sys.stderr, flush=True)
            fetcher = fetch_with_pip if fetch == "pip" else fetch_from_index
            archive = fetcher(name, version, downloads)
            count = extract_python_files(archive, target)
            print(
                f"  {count} .py files from {archive.name} ({archive.stat().st_size / 1e6:.1f} MB)",
                file=sys.stderr,
                flush=True,
            )
        files.extend(sorted(target.rglob("*.py")))
    return files


# -- measurements ------------------------------------------------------------------------


@dataclass
class Result:
    tool: str
    command: str
    files: int
    lines: int
    times: list[float] = field(default_factory=list)
    first: float | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def as_json(self) -> dict:
        median = self.median
        return {
            "tool": self.tool,
            "command": self.command,
            "files": self.files,
            "lines": self.lines,
            "seconds_median": median,
            "seconds_all": self.times,
            "seconds_first": self.first,
            "files_per_s": self.files / median if median else None,
            "lines_per_s": self.lines / median if median else None,
            "note": self.note,
            **self.extra,
        }


def count_lines(files: list[Path]) -> tuple[int, int]:
    lines = size = 0
    for path in files:
        data = path.read_bytes()
        size += len(data)
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return lines, size


def read_only(files: list[Path]) -> dict:
    for path in files:
        with open(path, "rb") as handle:
            handle.read()
    return {}


def read_parse(files: list[Path]) -> dict:
    errors = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            with open(path, "rb") as handle:
                data = handle.read()
            try:
                ast.parse(data, filename=str(path))
            except (SyntaxError, ValueError):
                errors += 1
    return {"syntax_errors": errors}


def floor(files: list[Path]) -> dict:
    """Read the bytes, `ast.parse`, one `ast.walk` over every node."""
    errors = nodes = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            with open(path, "rb") as handle:
                data = handle.read()
            try:
                tree = ast.parse(data, filename=str(path))
            except (SyntaxError, ValueError):
                errors += 1
                continue
            for _ in ast.walk(tree):
                nodes += 1
    return {"syntax_errors": errors, "nodes": nodes}


def gpulint_in_process(files: list[Path]) -> dict:
    from gpulint import lint_paths

    findings: dict[str, int] = {}
    errors = 0
    for result in lint_paths(files, write=False):
        if result.error:
            errors += 1
        for diagnostic in result.diagnostics:
            findings[diagnostic.code] = findings.get(diagnostic.code, 0) + 1
    return {"findings": dict(sorted(findings.items())), "file_errors": errors}


def time_in_process(function: Callable[[list[Path]], dict], files: list[Path]) -> tuple[float, dict]:
    gc.collect()
    start = time.perf_counter()
    extra = function(files)
    return time.perf_counter() - start, extra


def time_command(argv: list[str], cwd: Path, env: dict | None = None) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    completed = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    return time.perf_counter() - start, completed


def tool_version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def external_tools(peers: bool) -> list[tuple[str, list[str], dict | None, str]]:
    """(label, argv prefix, environment, note) for the gpulint CLI and each installed peer."""
    tools: list[tuple[str, list[str], dict | None, str]] = []
    gpulint_exe = shutil.which("gpulint")
    if gpulint_exe:
        cold = ["--no-cache"] if "--no-cache" in cli_options(gpulint_exe) else []
        tools.append(
            (
                "gpulint CLI",
                [gpulint_exe, "check", "--quiet", "--exit-zero", *cold],
                None,
                "subprocess: interpreter start-up and imports included; no cache",
            )
        )
    else:
        print("gpulint CLI: not on PATH, skipped", file=sys.stderr)
    if not peers:
        return tools
    ruff = shutil.which("ruff")
    if ruff:
        argv = [ruff, "check", "--isolated", "--no-cache", "--select", "PD,PERF,NPY", "--exit-zero", "--quiet"]
        tools.append(("ruff PD,PERF,NPY", argv, None, "all cores"))
        single = dict(os.environ, RAYON_NUM_THREADS="1")
        tools.append(("ruff PD,PERF,NPY 1 thread", argv, single, "RAYON_NUM_THREADS=1"))
    else:
        print("ruff: not installed, skipped", file=sys.stderr)
    flake8 = shutil.which("flake8")
    if flake8:
        if tool_version("pandas-vet"):
            tools.append(
                (
                    "flake8 + pandas-vet",
                    [flake8, "-j", "1", "--isolated", "--select", "PD", "--exit-zero"],
                    None,
                    "one process; every plugin runs, --select only filters the report",
                )
            )
        else:
            print(
                "pandas-vet: not installed (pip install pandas-vet); flake8 timed with its default checks",
                file=sys.stderr,
            )
            tools.append(
                (
                    "flake8 (no pandas-vet)",
                    [flake8, "-j", "1", "--isolated", "--exit-zero"],
                    None,
                    "one process, pyflakes + pycodestyle only",
                )
            )
    else:
        print("flake8: not installed, skipped", file=sys.stderr)
    return tools


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def progress(message: str) -> None:
    """A transient status line on a terminal; nothing when stderr is redirected."""
    if sys.stderr.isatty():
        sys.stderr.write(f"\r\033[K{message}")
        sys.stderr.flush()


def machine_info() -> dict:
    versions = {name: tool_version(name) for name in ("gpulint", "ruff", "flake8", "pandas-vet", "libcst")}
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "versions": versions,
    }


# -- the pinned real repositories, every tool as a process ---------------------------------

REALCODE = DEFAULT_CORPUS / "realcode"
REALCODE_RESULTS = HERE / "results" / "engine_speed_realcode.json"
KINDS = {"py": "`.py` files", "ipynb": "notebooks"}
PEER_SELECT = "PD,PERF,NPY"
#: perflint's messages: pylint reports only these (`--disable=all` then `--enable`).
PERFLINT_MESSAGES = "W8101,W8102,W8201,W8202,R8203,W8204,W8205,W8401,W8402,W8403"
PROCESS_TIMEOUT = 1800.0


def realcode_files(corpus: Path, limit: int | None = None) -> list[Path]:
    """The corpus's `.py` and `.ipynb` files in a fixed shuffle (by the SHA-1 of each path
    relative to the corpus), so the first N are a sample of every repository; the first
    `limit` of them (all when None)."""
    found = [path for path in corpus.rglob("*") if path.suffix in (".py", ".ipynb") and path.is_file()]
    found.sort(key=lambda path: hashlib.sha1(path.relative_to(corpus).as_posix().encode()).hexdigest())
    return found if limit is None else found[:limit]


def by_kind(files: Sequence[Path]) -> dict[str, list[Path]]:
    return {kind: [path for path in files if path.suffix == "." + kind] for kind in KINDS}


_IPYTHON_LINE = re.compile(r"^([ \t]*)(?:[%!?].*|\S.*\?)$", re.MULTILINE)


def notebook_programs(data: bytes) -> list[str]:
    """What any notebook linter must parse: the code cells joined into one program, lines
    of IPython syntax (magics, shell escapes, help) made `pass`; each cell on its own when
    the program does not parse (a cell that does not parse is left out)."""
    try:
        notebook = json.loads(data)
    except (ValueError, RecursionError):
        return []
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    codes = []
    for cell in cells if isinstance(cells, list) else ():
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else str(source)
            codes.append(_IPYTHON_LINE.sub(r"\1pass", text))
    program = "\n".join(codes)
    try:
        ast.parse(program)
    except (SyntaxError, ValueError, RecursionError):
        return codes
    return [program]


def floor_of(paths: Sequence[Path]) -> dict:
    """The floor over `paths`: read, parse and walk once (notebooks: `notebook_programs`)."""
    errors = nodes = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in paths:
            data = path.read_bytes()
            for code in notebook_programs(data) if path.suffix == ".ipynb" else [data]:
                try:
                    tree = ast.parse(code, filename=str(path))
                except (SyntaxError, ValueError, RecursionError):
                    errors += 1
                    continue
                for _ in ast.walk(tree):
                    nodes += 1
    return {"files": len(paths), "nodes": nodes, "syntax_errors": errors}


@dataclass
class Process:
    """One timed run of a command: wall and CPU seconds, peak RSS in MiB, exit status."""

    wall: float
    cpu: float
    rss_mib: float
    returncode: int
    stdout: bytes
    stderr: bytes
    #: The peak of the resident sets of the command and all its descendants (a pool's
    #: workers) added up, sampled every `TREE_SAMPLE_S` seconds; None when not sampled.
    tree_rss_mib: float | None = None


#: How often `run_process(..., sample_tree=True)` adds up the resident sets of a process tree.
TREE_SAMPLE_S = 0.02


def _children(pid: int) -> list[int]:
    """The child processes of `pid` (Linux: /proc/PID/task/*/children)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listing:
                found += [int(child) for child in listing.read().split()]
    except OSError:
        pass
    return found


def _resident(pid: int) -> int:
    """The resident set of `pid` in bytes (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def tree_resident(pid: int) -> int:
    """The resident sets of the descendants of `pid` (not `pid` itself), added up, in bytes."""
    total, pending = 0, _children(pid)
    while pending:
        child = pending.pop()
        total += _resident(child)
        pending += _children(child)
    return total


#: Runs a command as its child and writes the child's wall time and `os.wait4` figures to a
#: file. A command forked from the benchmark itself would report at least the benchmark's
#: own resident set: Linux keeps a process's high-water mark across `exec`. Forked from this
#: small process (no `site`), it starts from a few MiB (`launcher_rss_mib` in the results).
_LAUNCHER = """
import os, sys, time
report, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
with open(report, "w") as out:
    out.write(f"{wall} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def run_process(
    argv: Sequence[str], cwd: Path, env: dict | None = None, timeout: float = PROCESS_TIMEOUT, sample_tree: bool = False
) -> Process:
    """Run `argv` to its end. CPU time and peak RSS are those `os.wait4` gives for the
    process: user plus system time of it and of the children it waited for (a pool's
    workers), and the largest resident set among them (Linux counts `ru_maxrss` in KiB).
    `sample_tree` (Linux): also the peak of the whole tree's resident sets added up
    (`tree_rss_mib`), which is what the machine must hold at once."""
    # Tools run as installed: Python ones with their bytecode cached. A shell that turns the
    # cache off (PYTHONDONTWRITEBYTECODE) would make every run compile every module it imports.
    env = {
        key: value for key, value in (os.environ if env is None else env).items() if key != "PYTHONDONTWRITEBYTECODE"
    }
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r", suffix=".wait4") as report,
    ):
        launcher = subprocess.Popen(
            [sys.executable, "-S", "-c", _LAUNCHER, report.name, *argv],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        sampled = sample_tree and os.path.isdir("/proc")
        tree = 0
        try:
            if sampled:
                deadline = time.monotonic() + timeout
                while launcher.poll() is None:
                    if time.monotonic() > deadline:
                        raise subprocess.TimeoutExpired(argv, timeout)
                    tree = max(tree, tree_resident(launcher.pid))  # the command and its workers
                    time.sleep(TREE_SAMPLE_S)
            else:
                launcher.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, 9)
            launcher.wait()
        out.seek(0)
        err.seek(0)
        fields = report.read().split()
        if len(fields) != 4:
            return Process(float("nan"), float("nan"), float("nan"), -9, out.read(), err.read() + b"\ntimed out")
        scale = 1024 if sys.platform != "darwin" else 1  # macOS counts bytes
        return Process(
            float(fields[0]),
            float(fields[1]),
            int(fields[2]) * scale / 2**20,
            int(fields[3]),
            out.read(),
            err.read(),
            tree / 2**20 if sampled else None,
        )


@dataclass
class Tool:
    """A command timed on the files of each kind it reads."""

    label: str
    argv: list[str]
    kinds: tuple[str, ...]
    env: dict | None = None
    #: Run once untimed before the timed runs (to fill a cache).
    warm_up: bool = False
    note: str = ""
    #: Only the first `limit` files of each kind (None: all).
    limit: int | None = None


#: flake8 without the plugin gpulint itself installs (which would run gpulint inside it).
_FLAKE8_WITHOUT_GPULINT = (
    "import sys\n"
    "import flake8.plugins.finder as finder\n"
    "found = finder._find_importlib_plugins\n"
    "finder._find_importlib_plugins = lambda: (p for p in found() if p.package != 'gpulint')\n"
    "from flake8.main.cli import main\n"
    "sys.exit(main())\n"
)


@functools.cache
def cli_options(executable: str) -> str:
    """`gpulint check --help` of this gpulint: which options it has."""
    try:
        return subprocess.run([executable, "check", "--help"], capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def realcode_tools(
    scratch: Path, jobs: int, peers: bool = True, pylint_files: int = 100
) -> tuple[list[Tool], list[str]]:
    """The tools to time, and a line for each one skipped. `scratch` holds their caches and
    an empty gpulint configuration (so the repository's own does not apply). pylint, some
    hundred times slower than the others, runs on the first `pylint_files` files only."""
    tools = [
        Tool(
            "floor: read+parse+walk",
            [sys.executable, str(Path(__file__).resolve()), "--floor-of"],
            ("py", "ipynb"),
            note="one process; notebooks: JSON decoded, code cells joined",
        )
    ]
    skipped: list[str] = []
    gpulint = shutil.which("gpulint")
    if gpulint is None:
        skipped.append("gpulint: not on PATH")
    else:
        config = scratch / "pyproject.toml"
        config.write_text("[tool.gpulint]\n")
        options = cli_options(gpulint)
        has_jobs, has_cache = "--jobs" in options, "--no-cache" in options
        base = [gpulint, "check", "--quiet", "--exit-zero", "--config", str(config)]
        cold = base + (["--no-cache"] if has_cache else [])
        env = dict(os.environ, GPULINT_CACHE_DIR=str(scratch / "gpulint-cache"))
        tools.append(
            Tool(
                "gpulint cold, 1 job",
                cold + (["--jobs", "1"] if has_jobs else []),
                ("py", "ipynb"),
                env,
                note="" if has_jobs else "no --jobs: its only way",
            )
        )
        if has_jobs:
            tools.append(Tool(f"gpulint cold, {jobs} jobs", cold + ["--jobs", str(jobs)], ("py", "ipynb"), env))
        else:
            skipped.append("gpulint with all jobs: this gpulint has no --jobs")
        if has_cache:
            tools.append(
                Tool(
                    "gpulint warm (cache)",
                    base + (["--jobs", str(jobs)] if has_jobs else []),
                    ("py", "ipynb"),
                    env,
                    warm_up=True,
                    note="the second run over unchanged files",
                )
            )
        else:
            skipped.append("gpulint warm: this gpulint has no cache (--no-cache)")
    if not peers:
        return tools, skipped
    ruff = shutil.which("ruff")
    if ruff is None:
        skipped.append("ruff: not installed")
    else:
        argv = [ruff, "check", "--isolated", "--select", PEER_SELECT, "--exit-zero", "--quiet"]
        tools.append(Tool(f"ruff {PEER_SELECT}, no cache", argv + ["--no-cache"], ("py", "ipynb"), note="all cores"))
        tools.append(
            Tool(
                f"ruff {PEER_SELECT}, cached",
                argv + ["--cache-dir", str(scratch / "ruff-cache")],
                ("py", "ipynb"),
                warm_up=True,
                note="the second run over unchanged files",
            )
        )
    flake8 = shutil.which("flake8")
    if flake8 is None or tool_version("pandas-vet") is None:
        skipped.append("flake8 + pandas-vet: " + ("flake8" if flake8 is None else "pandas-vet") + " not installed")
    else:
        tools.append(
            Tool(
                "flake8 + pandas-vet",
                [
                    sys.executable,
                    "-c",
                    _FLAKE8_WITHOUT_GPULINT,
                    "-j",
                    str(jobs),
                    "--isolated",
                    "--select",
                    "PD",
                    "--exit-zero",
                ],
                ("py",),
                note="every plugin but gpulint's own runs, --select only filters the report; no notebooks",
            )
        )
    pylint = shutil.which("pylint")
    if pylint is None or tool_version("perflint") is None:
        skipped.append("pylint + perflint: " + ("pylint" if pylint is None else "perflint") + " not installed")
    else:
        rcfile = scratch / "pylintrc"
        rcfile.write_text("[MAIN]\n")
        tools.append(
            Tool(
                f"pylint + perflint (first {pylint_files} `.py` files)",
                [
                    pylint,
                    f"--rcfile={rcfile}",
                    "--load-plugins=perflint",
                    "--disable=all",
                    f"--enable={PERFLINT_MESSAGES}",
                    f"--jobs={jobs}",
                    "--exit-zero",
                    "--persistent=n",
                    "--score=n",
                ],
                ("py",),
                note="perflint's messages only; no notebooks",
                limit=pylint_files,
            )
        )
    return tools, skipped


@dataclass
class Measured:
    tool: str
    kind: str
    command: str
    files: int
    runs: list[Process] = field(default_factory=list)
    note: str = ""

    def as_json(self) -> dict:
        failed = [run for run in self.runs if run.returncode != 0]
        note = self.note
        if failed:
            note = (note + "; " if note else "") + (
                f"exit {failed[0].returncode}: " + failed[0].stderr.decode(errors="replace")[-300:].strip()
            )
        return {
            "tool": self.tool,
            "kind": self.kind,
            "command": self.command,
            "files": self.files,
            "wall_s": statistics.median(run.wall for run in self.runs),
            "cpu_s": statistics.median(run.cpu for run in self.runs),
            "peak_rss_mib": max(run.rss_mib for run in self.runs),
            "wall_all": [round(run.wall, 3) for run in self.runs],
            "cpu_all": [round(run.cpu, 3) for run in self.runs],
            "exit_codes": sorted({run.returncode for run in self.runs}),
            "output_lines": self.runs[-1].stdout.count(b"\n"),
            "note": note,
        }


def measure_tools(
    tools: Sequence[Tool], groups: dict[str, list[Path]], corpus: Path, repeat: int, scratch: Path
) -> list[Measured]:
    """Every tool on every group of files it reads, `repeat` times, interleaved so that drift
    on a shared machine hits them alike; the files are passed relative to `corpus`."""
    lists, relative = {}, {}
    for kind, files in groups.items():
        relative[kind] = [str(path.relative_to(corpus)) for path in files]
        lists[kind] = scratch / f"files-{kind}.txt"
        lists[kind].write_text("\n".join(str(path) for path in files) + "\n")
    results = {
        (tool.label, kind): Measured(tool.label, kind, _command(tool), len(groups[kind][: tool.limit]), note=tool.note)
        for tool in tools
        for kind in tool.kinds
        if groups.get(kind)
    }
    for run in range(repeat):
        for tool in tools:
            for kind in tool.kinds:
                if (tool.label, kind) not in results:
                    continue
                progress(f"{tool.label} on {KINDS[kind]}: run {run + 1}/{repeat}")
                files = [str(lists[kind])] if tool.argv[-1] == "--floor-of" else relative[kind][: tool.limit]
                if tool.warm_up and run == 0:
                    run_process(tool.argv + files, corpus, tool.env)
                results[tool.label, kind].runs.append(run_process(tool.argv + files, corpus, tool.env))
    progress("")
    return list(results.values())


def _command(tool: Tool) -> str:
    """The tool's command line as the results show it: no scratch paths, no inline code."""
    argv = [Path(tool.argv[0]).name, *tool.argv[1:]]
    if "-c" in argv[:2]:
        argv = [
            argv[0],
            "-c",
            "<flake8 without gpulint's plugin>" if argv[2] == _FLAKE8_WITHOUT_GPULINT else "...",
            *argv[3:],
        ]
    return " ".join(re.sub(r"(?<![\w.-])/\S*/", "", part) for part in argv) + " FILES..."


def rss_by_size(sizes: Sequence[int], corpus: Path, jobs: int, scratch: Path, repeat: int = 1) -> list[dict]:
    """Peak RSS of gpulint (cold, one job and all jobs) and ruff on the first N files of the
    fixed shuffle, for each N in `sizes`: whether memory grows with the number of files.
    Each is the median of `repeat` runs (every run's figures kept in `runs`): with workers,
    the tree's peak is the moment two of them hold large files at once, which varies from
    run to run as timings do."""
    tools = [
        tool
        for tool in realcode_tools(scratch, jobs)[0]
        if tool.label.startswith("gpulint cold") or tool.label == f"ruff {PEER_SELECT}, no cache"
    ]
    rows = []
    for size in sizes:
        files = realcode_files(corpus, size)
        relative = [str(path.relative_to(corpus)) for path in files]
        for tool in tools:
            progress(f"peak RSS: {tool.label} on {len(files)} files")
            runs = [run_process(tool.argv + relative, corpus, tool.env, sample_tree=True) for _ in range(repeat)]
            rows.append(
                {
                    "files": len(files),
                    "tool": tool.label,
                    "peak_rss_mib": statistics.median(run.rss_mib for run in runs),
                    "peak_tree_rss_mib": _median_of(run.tree_rss_mib for run in runs),
                    "wall_s": statistics.median(run.wall for run in runs),
                    "cpu_s": statistics.median(run.cpu for run in runs),
                    "exit": max(run.returncode for run in runs),
                    "runs": [{"peak_rss_mib": run.rss_mib, "peak_tree_rss_mib": run.tree_rss_mib} for run in runs],
                }
            )
    progress("")
    return rows


def _median_of(values: Iterable[float | None]) -> float | None:
    """The median, or None when some run had no figure (no /proc to sample)."""
    values = list(values)
    return None if any(value is None for value in values) else statistics.median(values)


def cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or None


def git_commit(folder: Path) -> str | None:
    """The commit checked out in `folder`, with "+changes" when the work tree differs."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+changes" if dirty else "")


def tool_versions() -> dict:
    names = ("gpulint", "ruff", "flake8", "pandas-vet", "pylint", "perflint", "astroid", "libcst")
    return {name: tool_version(name) for name in names}


def realcode_repos() -> list[dict]:
    import tomllib

    try:
        table = tomllib.loads((HERE / "realcode" / "repos.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [{"name": entry.get("name"), "commit": entry.get("commit")} for entry in table.get("repo", [])]


def run_realcode(args: argparse.Namespace) -> int:
    corpus = args.corpus if args.corpus != DEFAULT_CORPUS else REALCODE
    if not corpus.is_dir():
        raise SystemExit(f"error: no corpus at {corpus}: run `python benchmarks/realcode/extract.py` first")
    files = realcode_files(corpus, args.files)
    if not files:
        raise SystemExit(f"error: no .py or .ipynb files under {corpus}")
    groups = by_kind(files)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    jobs = args.jobs or cores
    sizes = {kind: count_lines(paths) for kind, paths in groups.items()}
    print(
        f"corpus: {corpus}: "
        + ", ".join(f"{len(groups[kind])} {KINDS[kind]} ({sizes[kind][1] / 1e6:.1f} MB)" for kind in KINDS)
    )
    load_before = load_average()
    commit = git_commit(HERE.parent)  # before: other commits may land while it runs
    with tempfile.TemporaryDirectory(prefix="gpulint-speed-") as tmp:
        scratch = Path(tmp)
        launcher = run_process(["true"], scratch)
        tools, skipped = realcode_tools(scratch, jobs, peers=not args.no_peers, pylint_files=args.pylint_files)
        for line in skipped:
            print(f"skipped: {line}", file=sys.stderr)
        measured = measure_tools(tools, groups, corpus, args.repeat, scratch)
        memory = rss_by_size(args.rss_sizes, corpus, jobs, scratch, args.repeat) if args.rss_sizes else []
    in_process = {}
    if groups["py"] and not args.no_in_process:
        progress("in process: floor and gpulint on the .py files")
        gpulint_in_process(groups["py"][:1])  # imports and the rule registry paid here
        floor_s = statistics.median(time_in_process(floor, groups["py"])[0] for _ in range(args.repeat))
        gpulint_s = statistics.median(time_in_process(gpulint_in_process, groups["py"])[0] for _ in range(args.repeat))
        progress("")
        in_process = {
            "files": len(groups["py"]),
            "floor_s": floor_s,
            "gpulint_s": gpulint_s,
            "ratio": gpulint_s / floor_s,
        }
    payload = {
        "benchmark": "engine_speed_realcode",
        "machine": dict(
            machine_info(),
            cpu_model=cpu_model(),
            versions=tool_versions(),
            gpulint_commit=commit,
            gpulint_commit_after=git_commit(HERE.parent),
            launcher_rss_mib=launcher.rss_mib,
        ),
        "corpus": {
            "repos": realcode_repos(),
            "order": "sha1 of the path relative to the corpus",
            "limit": args.files,
            "files": {kind: len(groups[kind]) for kind in KINDS},
            "lines": {kind: sizes[kind][0] for kind in KINDS},
            "bytes": {kind: sizes[kind][1] for kind in KINDS},
        },
        "repeat": args.repeat,
        "jobs": jobs,
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "skipped": skipped,
        "results": [result.as_json() for result in measured],
        "in_process_py": in_process,
        "peak_rss_by_files": memory,
    }
    print(speed_markdown(payload))
    target = args.json or (REALCODE_RESULTS if args.files is None else None)
    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(payload, indent=2) + "\n")
        target.with_suffix(".md").write_text(speed_markdown(payload) + "\n")
        print(f"\nwrote {target} and {target.with_suffix('.md').name}")
    return 0


def _figure(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _commits(machine: dict) -> str:
    before, after = machine.get("gpulint_commit"), machine.get("gpulint_commit_after")
    return (before or "?") if after in (None, before) else f"{before} (and {after} by the end)"


def speed_markdown(payload: dict) -> str:
    """The results of `--realcode` as Markdown: one row per tool, `.py` files and notebooks
    side by side (wall seconds, CPU seconds, peak RSS, and wall time over the floor's), the
    machine and versions under it; the peak RSS by number of files when measured."""
    rows: dict[str, dict[str, dict]] = {}
    for result in payload["results"]:
        rows.setdefault(result["tool"], {})[result["kind"]] = result
    floor_label = next((tool for tool in rows if tool.startswith("floor")), None)
    floors = rows.get(floor_label, {}) if floor_label else {}
    files = payload["corpus"]["files"]
    header = "| Tool |" + "".join(f" {KINDS[kind]}: wall s | CPU s | peak RSS MiB | x floor |" for kind in KINDS)
    lines = [header, "|---|" + "---:|" * 4 * len(KINDS)]
    for tool, kinds in rows.items():
        cells = []
        for kind in KINDS:
            result = kinds.get(kind)
            if result is None:
                cells += ["n/a"] * 4
                continue
            floor = floors.get(kind)
            ratio = (
                (result["wall_s"] / result["files"]) / (floor["wall_s"] / floor["files"])
                if floor and floor["wall_s"] and result["files"]
                else None
            )
            cells += [
                _figure(result["wall_s"], 2),
                _figure(result["cpu_s"], 2),
                _figure(result["peak_rss_mib"], 0),
                _figure(ratio, 2) + ("" if ratio is None else "x"),
            ]
        lines.append(f"| {tool} | " + " | ".join(cells) + " |")
    machine = payload["machine"]
    versions = ", ".join(f"{name} {version}" for name, version in machine["versions"].items() if version)
    lines += [
        "",
        (
            f"{files['py']:,} `.py` files and {files['ipynb']:,} notebooks from "
            f"{len(payload['corpus']['repos'])} pinned repositories (`benchmarks/realcode/repos.toml`); "
            f"median of {payload['repeat']} run(s), {payload['jobs']} jobs where a tool takes them. "
            f"{machine.get('cpu_model') or machine['machine']}, {machine['usable_cpus']} CPUs, "
            f"python {machine['python']}, {versions}; gpulint at {_commits(machine)}; "
            f"{machine['date'][:10]}. CPU: user + system of the process and its workers; "
            "peak RSS: its largest process."
        ),
    ]
    in_process = payload.get("in_process_py") or {}
    if in_process:
        lines.append(
            f"In one process (`lint_paths`, imports paid before timing), gpulint takes "
            f"{in_process['ratio']:.2f}x the floor's time on the `.py` files."
        )
    lines.append("x floor: wall time per file over the floor's on the same kind of files.")
    memory = payload.get("peak_rss_by_files") or []
    if memory:
        sizes = sorted({row["files"] for row in memory})
        tools = list(dict.fromkeys(row["tool"] for row in memory))
        found = {(row["tool"], row["files"]): row["peak_rss_mib"] for row in memory}
        runs = max((len(row.get("runs") or [None]) for row in memory), default=1)
        median = f" (median of {runs} runs)" if runs > 1 else ""
        lines += [
            "",
            f"| Peak RSS MiB by files linted{median} |" + "".join(f" {size:,} |" for size in sizes),
            "|---|" + "---:|" * len(sizes),
        ]
        lines += [
            f"| {tool} |" + "".join(f" {_figure(found.get((tool, size)), 0)} |" for size in sizes) for tool in tools
        ]
        trees = {
            (row["tool"], row["files"]): row["peak_tree_rss_mib"]
            for row in memory
            if row.get("peak_tree_rss_mib") is not None
        }
        if trees:
            lines += [
                "",
                f"| Peak RSS MiB of the process tree (all processes at once) by files linted{median} |"
                + "".join(f" {size:,} |" for size in sizes),
                "|---|" + "---:|" * len(sizes),
            ]
            lines += [
                f"| {tool} |" + "".join(f" {_figure(trees.get((tool, size)), 0)} |" for size in sizes)
                for tool in tools
                if any((tool, size) in trees for size in sizes)
            ]
    return "\n".join(lines)


# -- report --------------------------------------------------------------------------------


def print_table(results: list[Result], floor_seconds: float) -> None:
    header = f"{'tool':<28} {'files':>6} {'lines':>9} {'median s':>9} {'first s':>8} {'files/s':>9} {'lines/s':>11} {'x floor':>8}"
    print(header)
    print("-" * len(header))
    for result in results:
        median = result.median
        first = f"{result.first:.3f}" if result.first is not None else "-"
        print(
            f"{result.tool:<28} {result.files:>6} {result.lines:>9} {median:>9.3f} {first:>8} "
            f"{result.files / median:>9.0f} {result.lines / median:>11.0f} {median / floor_seconds:>8.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--packages",
        nargs="+",
        default=list(DEFAULT_PACKAGES),
        metavar="NAME==VERSION",
        help="source distributions making up the corpus (default: %(default)s)",
    )
    parser.add_argument("--full", action="store_true", help="use the larger corpus: " + ", ".join(FULL_PACKAGES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median is reported")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the results and machine info here")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="where the corpus lives")
    parser.add_argument(
        "--fetch",
        choices=("index", "pip"),
        default="index",
        help="download sdists straight from the package index (default), or with `pip download`, "
        "which builds packages with compiled extensions just to read their metadata",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip ruff and flake8 (the gpulint CLI still runs)")
    realcode = parser.add_argument_group("the real-code suite: every tool as a process, on the pinned repositories")
    realcode.add_argument(
        "--realcode",
        action="store_true",
        help="run it (results: benchmarks/results/engine_speed_realcode.json and .md)",
    )
    realcode.add_argument("--files", type=int, metavar="N", help="only the first N files of the fixed shuffle")
    realcode.add_argument(
        "--jobs", type=int, metavar="N", help="jobs for the tools that take them (default: the cores)"
    )
    realcode.add_argument(
        "--rss-sizes",
        type=int,
        nargs="+",
        default=[],
        metavar="N",
        help="also the peak RSS of gpulint and ruff on the first N files, for each N",
    )
    realcode.add_argument(
        "--pylint-files",
        type=int,
        default=100,
        metavar="N",
        help="pylint, by far the slowest, lints only the first N .py files (default: %(default)s)",
    )
    realcode.add_argument(
        "--no-in-process", action="store_true", help="skip the in-process floor-against-gpulint check on the .py files"
    )
    parser.add_argument("--floor-of", type=Path, metavar="LIST", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.floor_of is not None:  # the floor as a process of its own (`--realcode` times it so)
        paths = [Path(line) for line in args.floor_of.read_text().splitlines() if line]
        print(json.dumps(floor_of(paths)))
        return 0
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    for name in ("files", "jobs", "pylint_files"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if any(size < 1 for size in args.rss_sizes):
        parser.error("--rss-sizes must be at least 1")
    if args.realcode:
        return run_realcode(args)

    if args.full:
        args.packages = list(FULL_PACKAGES)
    files = build_corpus(args.packages, args.corpus, args.fetch)
    if not files:
        raise SystemExit("error: the corpus is empty")
    lines, size = count_lines(files)  # also warms the page cache for every tool alike
    print(f"corpus: {len(files)} files, {lines} lines, {size / 1e6:.1f} MB from {', '.join(args.packages)}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, median of {args.repeat} run(s)")
    load_before = load_average()
    if load_before is not None and load_before > 0.5:
        print(
            f"warning: load average {load_before:.2f} before starting: other work shares the CPUs, "
            "so absolute times are inflated (the interleaved ratios suffer less)"
        )
    print()

    in_process = [
        ("read bytes", "open().read() per file", read_only),
        ("read + ast.parse", "ast.parse(bytes)", read_parse),
        ("floor: read+parse+walk", "ast.parse + one ast.walk", floor),
        ("gpulint lint_paths", "list(lint_paths(files)), one process", gpulint_in_process),
    ]
    results: dict[str, Result] = {label: Result(label, command, len(files), lines) for label, command, _ in in_process}
    # Interleave the in-process measurements so drift hits them alike; run 1 is the cold one.
    for run in range(args.repeat):
        for label, _, function in in_process:
            progress(f"{label}: run {run + 1}/{args.repeat}")
            seconds, extra = time_in_process(function, files)
            result = results[label]
            if run == 0:
                result.first = seconds
            result.times.append(seconds)
            result.extra = extra
    ordered = [results[label] for label, _, _ in in_process]

    cwd = args.corpus
    relative = [str(path.relative_to(cwd)) if path.is_relative_to(cwd) else str(path) for path in files]
    for label, prefix, env, note in external_tools(peers=not args.no_peers):
        result = Result(label, " ".join([Path(prefix[0]).name, *prefix[1:], "FILES..."]), len(files), lines, note=note)
        for run in range(args.repeat):
            progress(f"{label}: run {run + 1}/{args.repeat}")
            seconds, completed = time_command(prefix + relative, cwd, env)
            if completed.returncode != 0:
                result.note = f"exit {completed.returncode}: {completed.stderr.decode(errors='replace')[-300:]}"
            result.times.append(seconds)
            result.extra = {"output_lines": completed.stdout.count(b"\n")}
        ordered.append(result)

    progress("")
    floor_seconds = results["floor: read+parse+walk"].median
    gpulint_seconds = results["gpulint lint_paths"].median
    print_table(ordered, floor_seconds)
    ratio = gpulint_seconds / floor_seconds
    print(
        f"\ngpulint / floor = {ratio:.2f} (target <= {TARGET_RATIO:.1f}): {'OK' if ratio <= TARGET_RATIO else 'OVER TARGET'}"
    )
    floor_extra = results["floor: read+parse+walk"].extra
    print(f"floor: {floor_extra.get('nodes', 0)} nodes, {floor_extra.get('syntax_errors', 0)} files that do not parse")
    print(f"gpulint findings: {results['gpulint lint_paths'].extra.get('findings')}")
    for result in ordered:
        if result.note and result.tool not in results:
            print(f"  {result.tool}: {result.note}")

    if args.json:
        payload = {
            "benchmark": "engine_speed",
            "machine": machine_info(),
            "corpus": {"packages": args.packages, "files": len(files), "lines": lines, "bytes": size},
            "repeat": args.repeat,
            "load_average_before": load_before,
            "load_average_after": load_average(),
            "target_ratio": TARGET_RATIO,
            "ratio_gpulint_to_floor": ratio,
            "results": [result.as_json() for result in ordered],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
