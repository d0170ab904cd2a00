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
"""

from __future__ import annotations

import argparse
import ast
import datetime as _dt
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
from collections.abc import Callable
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
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", name,
                    f"{name}=={version}", "-d", str(downloads)], check=True)
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
            print(f"  {count} .py files from {archive.name} ({archive.stat().st_size / 1e6:.1f} MB)",
                  file=sys.stderr, flush=True)
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
            "tool": self.tool, "command": self.command, "files": self.files, "lines": self.lines,
            "seconds_median": median, "seconds_all": self.times, "seconds_first": self.first,
            "files_per_s": self.files / median if median else None,
            "lines_per_s": self.lines / median if median else None,
            "note": self.note, **self.extra,
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
        tools.append(("gpulint CLI", [gpulint_exe, "check", "--quiet", "--exit-zero"], None,
                      "subprocess: interpreter start-up and imports included"))
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
            tools.append(("flake8 + pandas-vet", [flake8, "-j", "1", "--isolated", "--select", "PD", "--exit-zero"],
                          None, "one process; every plugin runs, --select only filters the report"))
        else:
            print("pandas-vet: not installed (pip install pandas-vet); flake8 timed with its default checks",
                  file=sys.stderr)
            tools.append(("flake8 (no pandas-vet)", [flake8, "-j", "1", "--isolated", "--exit-zero"], None,
                          "one process, pyflakes + pycodestyle only"))
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


# -- report --------------------------------------------------------------------------------

def print_table(results: list[Result], floor_seconds: float) -> None:
    header = f"{'tool':<28} {'files':>6} {'lines':>9} {'median s':>9} {'first s':>8} {'files/s':>9} {'lines/s':>11} {'x floor':>8}"
    print(header)
    print("-" * len(header))
    for result in results:
        median = result.median
        first = f"{result.first:.3f}" if result.first is not None else "-"
        print(f"{result.tool:<28} {result.files:>6} {result.lines:>9} {median:>9.3f} {first:>8} "
              f"{result.files / median:>9.0f} {result.lines / median:>11.0f} {median / floor_seconds:>8.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES), metavar="NAME==VERSION",
                        help="source distributions making up the corpus (default: %(default)s)")
    parser.add_argument("--full", action="store_true", help="use the larger corpus: " + ", ".join(FULL_PACKAGES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median is reported")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the results and machine info here")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="where the corpus lives")
    parser.add_argument("--fetch", choices=("index", "pip"), default="index",
                        help="download sdists straight from the package index (default), or with `pip download`, "
                             "which builds packages with compiled extensions just to read their metadata")
    parser.add_argument("--no-peers", action="store_true", help="skip ruff and flake8 (the gpulint CLI still runs)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

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
        print(f"warning: load average {load_before:.2f} before starting: other work shares the CPUs, "
              "so absolute times are inflated (the interleaved ratios suffer less)")
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
        result = Result(label, " ".join([Path(prefix[0]).name, *prefix[1:], "FILES..."]), len(files), lines,
                        note=note)
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
    print(f"\ngpulint / floor = {ratio:.2f} (target <= {TARGET_RATIO:.1f}): {'OK' if ratio <= TARGET_RATIO else 'OVER TARGET'}")
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
