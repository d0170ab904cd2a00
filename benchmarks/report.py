"""What a benchmark run is shown as: the terminal table, the Markdown summary, the README
block and the plot. All of them are made from a `Run`, so a committed results file
regenerates them exactly."""

from __future__ import annotations

from pathlib import Path

from .results import Run, Sweep, cell_after, cell_before, cell_speedup, format_n, format_speedup

COLUMNS = ("rule", "backend", "N", "before", "after", "speedup")
#: The terminal table's extra column: whether both versions' results were compared equal.
RESULTS = "results"
#: A speedup this many times above or below the committed one at the same N is called out.
FAR = 3.0


def _rows(run: Run, with_results: bool = False) -> list[tuple[str, ...]]:
    rows = []
    for sweep in run.sweeps:
        for point in sweep.points:
            row = (
                f"{sweep.code} {sweep.name}",
                f"{sweep.backend} ({sweep.device})",
                f"{point.n:,}",
                cell_before(point),
                cell_after(point),
                cell_speedup(point),
            )
            rows.append((*row, "equal" if point.compared else "not compared") if with_results else row)
    return rows


def far_from_committed(run: Run, committed_runs: list[Run]) -> list[str]:
    """A note for each speedup more than `FAR` times above or below the committed run's
    (of the same kind, CPU or GPU) at the same rule, backend and N: small N and a busy
    machine make timings noisy, and the committed figure is the one the docs quote."""
    reference = {
        (sweep.code, sweep.backend, point.n): point.speedup
        for other in committed_runs
        if other.label == run.label
        for sweep in other.sweeps
        for point in sweep.points
        if point.speedup
    }
    lines = []
    for sweep in run.sweeps:
        for point in sweep.points:
            before = reference.get((sweep.code, sweep.backend, point.n))
            now = point.speedup
            if before and now and not 1 / FAR <= now / before <= FAR:
                lines.append(
                    f"note: {sweep.code} on {sweep.backend} at N={point.n:,}: {format_speedup(now)} here, "
                    f"{format_speedup(before)} in the committed {run.label} run; timings at one N on a "
                    "busy machine are noisy: rerun, or compare at the largest N"
                )
    return lines


def notes(run: Run) -> list[str]:
    """One line per sweep that was skipped, failed, or had a version stopped."""
    lines = []
    for sweep in run.sweeps:
        who = f"{sweep.code} on {sweep.backend}"
        if sweep.status == "skipped":
            lines.append(f"skipped {who}: {sweep.message}")
        elif sweep.status == "failed":
            lines.append(f"FAILED {who}: {sweep.message}")
        elif sweep.message:
            lines.append(f"{who}: {sweep.message}")
    return lines


def text_table(run: Run) -> str:
    """The table `gpulint bench` prints: one line per rule, backend and N, saying whether
    the two versions' results were compared equal there (they are, before any timing)."""
    rows = _rows(run)
    if not rows:
        return "nothing was measured"
    columns = (*COLUMNS, RESULTS)
    rows = _rows(run, with_results=True)
    widths = [max(len(columns[i]), *(len(row[i]) for row in rows)) for i in range(len(columns))]
    right = {2, 3, 4, 5}

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
        )

    out = [line(columns), "  ".join("-" * w for w in widths)]
    previous = None
    for row in rows:
        shown = row if row[:2] != previous else ("", "", *row[2:])
        previous = row[:2]
        out.append(line(shown).rstrip())
    return "\n".join(out)


def markdown(run: Run, plot: str | None) -> str:
    """The Markdown summary written next to the JSON file."""
    lines = [
        f"# gpulint bench: {run.label.upper()} run",
        "",
        f"Measured on {run.machine_line()}; gpulint {run.gpulint}.",
        "",
        "Each rule's first flagged example (before) against gpulint's rewrite of it (after: the fixer's "
        "output, or the documented idiom where the rule only suggests), on generated data of size N. "
        "At every N both versions ran once and their results were compared equal before anything was "
        'timed; times are the best run. "stopped": the version went over the time budget at a '
        'smaller N; "> t": a run was interrupted after t seconds, so the speedup is a lower bound.',
        "",
        "| Rule | Backend | N | before | after | speedup |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in _rows(run):
        lines.append("| " + " | ".join(row) + " |")
    extra = notes(run)
    if extra:
        lines += ["", *(f"- {note}" for note in extra)]
    if plot:
        lines += ["", f"![Speedup against N, per rule]({plot})"]
    return "\n".join(lines) + "\n"


def readme_block(run: Run, plot: str | None) -> str:
    """The README's "Why these rules matter" table: speedup per rule and backend at each N."""
    sizes = sorted({point.n for sweep in run.sweeps for point in sweep.points})
    header = "| Rule | Backend | " + " | ".join(f"N={format_n(n)}" for n in sizes) + " |"
    lines = [header, "|---|---|" + "---:|" * len(sizes)]
    for sweep in run.sweeps:
        if sweep.status != "ok" or not sweep.points:
            continue
        by_n = {point.n: point for point in sweep.points}
        cells = [cell_speedup(by_n[n]) if n in by_n else "" for n in sizes]
        lines.append(f"| {sweep.code} `{sweep.name}` | {sweep.backend} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Speedup of gpulint's rewrite over the flagged code, measured on {run.machine_line()}. "
        "`> x`: the flagged code was interrupted, so at least x; `—`: the flagged code had gone over "
        "the time budget at a smaller N; empty: neither version was run at that size.",
    ]
    if plot:
        lines += ["", f"![Speedup against N, per rule]({plot})"]
    return "\n".join(lines)


def plot(run: Run, path: Path) -> bool:
    """A log-log plot of speedup against N, one panel per rule, one line per backend.
    False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    except ImportError:
        return False
    by_rule: dict[str, list[Sweep]] = {}
    for sweep in run.sweeps:
        if sweep.status == "ok" and sweep.points:
            by_rule.setdefault(sweep.code, []).append(sweep)
    panels = max(len(by_rule), 1)
    columns = min(3, panels)
    rows = (panels + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.0 * rows), squeeze=False, layout="constrained")
    for ax, (code, sweeps) in zip(axes.flat, by_rule.items(), strict=False):
        values = [1.0]
        for sweep in sweeps:
            measured = [(p.n, p.speedup) for p in sweep.points if p.speedup is not None]
            bounds = [(p.n, p.speedup_at_least) for p in sweep.points if p.speedup_at_least is not None]
            values += [v for _, v in measured + bounds]
            if measured:
                (line,) = ax.plot(*zip(*measured, strict=False), marker="o", label=f"{sweep.backend} ({sweep.device})")
                color = line.get_color()
            else:
                color = None
            if bounds:
                ax.plot(
                    *zip(*bounds, strict=False),
                    linestyle="none",
                    marker="^",
                    markerfacecolor="none",
                    color=color,
                    label=f"{sweep.backend}: at least",
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        # always show 1x (no speedup), and at least 0.5x to 2x, so that every panel has labels
        low, high = min(min(values) / 1.5, 0.5), max(max(values) * 1.5, 2.0)
        ax.set_ylim(low, high)
        subs = (1.0, 2.0, 5.0) if high / low <= 300 else (1.0,)
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,g}x"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: format_n(int(round(value)))))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.axhline(1, color="grey", linewidth=0.8, linestyle=":")
        ax.set_title(f"{code} {sweeps[0].name}", fontsize=9)
        ax.set_xlabel(f"N ({sweeps[0].unit})", fontsize=8)
        ax.set_ylabel("speedup (x)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", linewidth=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(by_rule) :]:
        ax.set_visible(False)
    figure.suptitle(f"gpulint rewrites: speedup over the flagged code ({run.label.upper()} run)", fontsize=10)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=90, metadata={"Software": None, "CreationDate": None})
    plt.close(figure)
    return True
