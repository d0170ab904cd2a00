"""Benchmark results: what a run measured, its versioned JSON file, and the figures quoted
from it (`gpulint rule CODE` reads the committed files in `results/`).

Standard library only: the linter imports this to quote measured speedups without
importing any data library.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = "gpulint-bench"
VERSION = 1
#: The committed runs, shipped with the package.
COMMITTED = Path(__file__).resolve().parent / "results"
#: The size a headline figure is quoted at, when it was measured.
HEADLINE_N = 10_000


class ResultsError(Exception):
    """A results file that cannot be read (missing, not JSON, another schema or version)."""


@dataclass
class Point:
    """One size N of one sweep. A version that was not timed at this N says why in its note."""

    n: int
    before: float | None = None  # seconds, the best of the timed runs
    after: float | None = None
    before_runs: list[float] = field(default_factory=list)
    after_runs: list[float] = field(default_factory=list)
    before_note: str | None = None
    after_note: str | None = None
    #: A run interrupted after this many seconds: the version takes at least that long.
    before_over: float | None = None
    after_over: float | None = None
    #: Both versions ran at this N and returned equal results (checked before timing).
    compared: bool = False

    @property
    def speedup(self) -> float | None:
        if self.before is not None and self.after:
            return self.before / self.after
        return None

    @property
    def speedup_at_least(self) -> float | None:
        """A lower bound when the antipattern was interrupted and the rewrite was timed."""
        if self.before is None and self.before_over is not None and self.after:
            return self.before_over / self.after
        return None


@dataclass
class Sweep:
    """One rule on one backend, over growing N."""

    code: str
    name: str
    backend: str
    device: str
    unit: str = "rows"
    rewrite: str = "fix"  # "fix" (the fixer's output) or "idiom" (the documented rewrite)
    status: str = "ok"  # "ok", "skipped" or "failed"
    message: str = ""  # why it was skipped or failed; how the antipattern was stopped
    points: list[Point] = field(default_factory=list)

    def headline(self) -> str | None:
        """ "~1,600x faster at 10k rows": at HEADLINE_N when measured there, else at the
        largest N with a measured speedup (or a lower bound)."""
        measured = [(p.n, p.speedup, False) for p in self.points if p.speedup is not None]
        measured += [(p.n, p.speedup_at_least, True) for p in self.points if p.speedup_at_least is not None]
        if not measured:
            return None
        at_headline = [m for m in measured if m[0] == HEADLINE_N and not m[2]]
        n, speedup, bound = at_headline[0] if at_headline else max(measured)
        figure = f"over {format_speedup(speedup)}" if bound else f"~{format_speedup(speedup)}"
        verdict = "faster" if speedup >= 1 else "(slower)"
        return f"{figure} {verdict} at {format_n(n)} {self.unit} on {self.device} ({self.backend})"


@dataclass
class Run:
    """A whole `gpulint bench` run, as written to its JSON file."""

    date: str
    gpulint: str
    machine: dict[str, Any]
    libraries: dict[str, str]
    settings: dict[str, Any]
    sweeps: list[Sweep] = field(default_factory=list)

    @property
    def label(self) -> str:
        """ "gpu" when any GPU backend was measured, else "cpu": the file's name."""
        return "gpu" if any(s.device == "GPU" and s.status == "ok" for s in self.sweeps) else "cpu"

    def to_json(self) -> dict[str, Any]:
        payload = asdict(self)
        return {"schema": SCHEMA, "version": VERSION, **payload}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Run:
        if data.get("schema") != SCHEMA:
            raise ResultsError(f"not a gpulint bench results file (schema {data.get('schema')!r})")
        if data.get("version") != VERSION:
            raise ResultsError(f"results file version {data.get('version')!r}; this gpulint reads version {VERSION}")
        sweeps = [Sweep(**{**s, "points": [Point(**p) for p in s["points"]]}) for s in data["sweeps"]]
        return cls(
            date=data["date"],
            gpulint=data["gpulint"],
            machine=data["machine"],
            libraries=data["libraries"],
            settings=data["settings"],
            sweeps=sweeps,
        )

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    def machine_line(self) -> str:
        """One line naming where and when the run was made, and with what."""
        m = self.machine
        parts = [m.get("cpu") or m.get("machine", "?"), f"{m.get('cpus', '?')} CPUs"]
        if m.get("gpu"):
            parts.append(m["gpu"])
        parts.append(m.get("system", ""))
        libraries = ", ".join(f"{name} {version}" for name, version in self.libraries.items())
        return f"{', '.join(p for p in parts if p)}; {libraries}; {self.date[:10]}"


def load(path: Path) -> Run:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: not a gpulint bench results file")
    try:
        return Run.from_json(data)
    except (KeyError, TypeError) as error:
        raise ResultsError(f"{path}: malformed results file ({type(error).__name__}: {error})") from None


def committed(folder: Path = COMMITTED) -> list[tuple[Path, Run]]:
    """The committed runs (CPU first), skipping files this version cannot read."""
    runs = []
    for path in sorted(folder.glob("*.json"), key=lambda p: (p.stem != "cpu", p.stem)):
        try:
            runs.append((path, load(path)))
        except ResultsError:
            continue
    return runs


def measured(code: str, folder: Path = COMMITTED) -> list[tuple[Run, Sweep]]:
    """Every committed sweep of a rule that measured something."""
    return [
        (run, sweep)
        for _, run in committed(folder)
        for sweep in run.sweeps
        if sweep.code == code and sweep.status == "ok" and sweep.points
    ]


# -- formatting ------------------------------------------------------------------------------


def format_speedup(value: float) -> str:
    """Two significant figures: 1,634 -> "1,600x", 43.2 -> "43x", 1.46 -> "1.5x"."""
    if value >= 100:
        digits = len(str(int(value))) - 2
        return f"{round(value, -digits):,.0f}x"
    if value >= 10:
        return f"{value:.0f}x"
    return f"{value:.1f}x" if value >= 0.1 else f"{value:.2g}x"


def format_n(n: int) -> str:
    """100 -> "100", 10_000 -> "10k", 1_000_000 -> "1M"."""
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= size and n % size == 0:
            return f"{n // size}{suffix}"
    return f"{n:,}"


def format_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def rule_section(code: str, folder: Path = COMMITTED, cpu_headline: bool = True) -> str:
    """The "Measured speedup" section of a rule's docs (empty when nothing was measured).
    Without `cpu_headline` (a rule whose cost is a device's wait), a CPU sweep gets no
    headline figure, only a line saying that its timings are the CPU's."""
    found = measured(code, folder)
    if not found:
        return ""
    lines = []
    for _, sweep in found:
        headline = sweep.headline()
        if sweep.device == "CPU" and not cpu_headline:
            lines.append(f'- {sweep.backend} on the CPU: nothing there waits for a device (see "On a CPU").')
        elif headline:
            lines.append(f"- {headline}.")
    lines += ["", "| Backend | N | before | after | speedup |", "|---|---:|---:|---:|---:|"]
    for _, sweep in found:
        for point in sweep.points:
            lines.append(
                f"| {sweep.backend} ({sweep.device}) | {point.n:,} | {cell_before(point)} | "
                f"{cell_after(point)} | {cell_speedup(point)} |"
            )
    lines.append("")
    runs: list[Run] = []
    for run, _ in found:
        if not any(run is seen for seen in runs):
            runs.append(run)
    for run in runs:
        lines.append(f"Measured by `gpulint bench` on {run.machine_line()}.")
    lines.append(
        "The rule's first example before and after the rewrite, on generated data of size N; "
        "results compared equal before timing."
    )
    return "\n".join(lines)


def cell_before(point: Point) -> str:
    return _timing_cell(point.before, point.before_over, point.before_note)


def cell_after(point: Point) -> str:
    return _timing_cell(point.after, point.after_over, point.after_note)


def _timing_cell(seconds: float | None, over: float | None, note: str | None) -> str:
    """A table cell for one side's time: the time, `> limit` when it ran past one, or why not."""
    if seconds is not None:
        return format_seconds(seconds)
    if over is not None:
        return f"> {format_seconds(over)}"
    return "stopped" if (note or "").startswith("stopped") else "—"


def cell_speedup(point: Point) -> str:
    if point.speedup is not None:
        return format_speedup(point.speedup)
    if point.speedup_at_least is not None:
        return f"> {format_speedup(point.speedup_at_least)}"
    return "—"


def rule_measurements(code: str, folder: Path = COMMITTED) -> list[dict[str, Any]]:
    """A rule's committed measurements, for `gpulint rule CODE --format json`."""
    out = []
    for run, sweep in measured(code, folder):
        out.append(
            {
                "backend": sweep.backend,
                "device": sweep.device,
                "headline": sweep.headline(),
                "rewrite": sweep.rewrite,
                "unit": sweep.unit,
                "machine": run.machine_line(),
                "points": [
                    {
                        "n": p.n,
                        "before_s": p.before,
                        "after_s": p.after,
                        "speedup": p.speedup,
                        "speedup_at_least": p.speedup_at_least,
                        "compared": p.compared,
                    }
                    for p in sweep.points
                ],
            }
        )
    return out
