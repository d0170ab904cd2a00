"""The benchmark harness and `gpulint bench`: every rule's before and after agree when
executed (the harness in --quick mode), the sweep's stopping rules, the GPU code paths
(with a NumPy stand-in for the GPU library), the command's files and errors, and the
committed results that the README and `gpulint rule` quote. Nothing here asserts a time."""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gpulint import all_rules, rule_by_key
from gpulint.benchmarks import report
from gpulint.benchmarks.backends import BACKENDS, Backend, apply_swap, default_backends, swapping_builtins
from gpulint.benchmarks.execution import assert_same_result, run_example, to_host
from gpulint.benchmarks.harness import Benchmark, BenchmarkError, Case, Settings, all_benchmarks, run_sweep
from gpulint.benchmarks.results import COMMITTED, ResultsError, Run, load, rule_section
from gpulint.docs import bench_block, marked_block, render_markdown, rule_json

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = all_benchmarks()
QUICK = Settings(quick=True)


def _backends(bench: Benchmark) -> tuple[str, ...]:
    try:
        return bench.case().backends
    except BenchmarkError:  # reported by test_every_benchmark_has_code_to_time
        return ()


CASES = [(code, backend) for code, bench in BENCHMARKS.items() for backend in _backends(bench)]


def _has_rewrite(rule) -> bool:
    return any(ex.rewrite is not None and ex.runnable for ex in rule.flagged)


# -- one benchmark per rule ---------------------------------------------------------------


@pytest.mark.parametrize("rule", [r for r in all_rules() if _has_rewrite(r)], ids=lambda r: r.code)
def test_every_rule_with_a_rewrite_has_a_benchmark(rule):
    path = ROOT / "benchmarks" / rule.family() / f"{rule.stem()}.py"
    assert path.is_file(), f"{rule.code} needs {path.relative_to(ROOT)} declaring `benchmark = Benchmark(...)`"
    assert rule.code in BENCHMARKS, f"{path.relative_to(ROOT)} declares no `benchmark` for {rule.code}"


@pytest.mark.parametrize("code", list(BENCHMARKS))
def test_every_benchmark_has_code_to_time(code):
    case = BENCHMARKS[code].case()
    assert case.before != case.after and case.call and case.backends


@pytest.mark.parametrize("code", list(BENCHMARKS))
def test_benchmark_lives_beside_its_rule(code):
    rule = rule_by_key(code)
    assert rule is not None, f"a benchmark names {code}, which is no rule"
    module = importlib.import_module(f"gpulint.benchmarks.{rule.family()}.{rule.stem()}")
    assert module.benchmark is BENCHMARKS[code]


# -- the CI correctness check: before and after agree, every rule, every backend ----------------


@pytest.mark.slow
@pytest.mark.parametrize("code, backend", CASES, ids=[f"{c}-{b}" for c, b in CASES])
def test_quick_sweep_before_and_after_agree(code, backend):
    sweep = run_sweep(BENCHMARKS[code].case(), BACKENDS[backend], QUICK)
    if sweep.status == "skipped":
        pytest.skip(sweep.message)
    assert sweep.status == "ok", sweep.message
    assert [p.n for p in sweep.points] == list(QUICK.sizes_for(BENCHMARKS[code].case()))
    for point in sweep.points:
        assert point.compared, point
        assert point.before is not None and point.after is not None, point


def test_case_times_the_fixers_own_output():
    case = BENCHMARKS["GPU102"].case()
    rule = rule_by_key("GPU102")
    assert case.before == rule.flagged[0].source
    assert case.after == rule.flagged[0].fixed
    assert case.rewrite == "fix" and case.backends == ("pandas", "cudf")


# -- stopping rules, on synthetic cases --------------------------------------------------------


def _case(before: str, after: str, call: str = "result", sizes=(10, 100, 1000), setup: str = "") -> Case:
    return Case(
        code="GPU999",
        name="synthetic",
        before=before,
        after=after,
        setup=setup,
        call=call,
        sizes=sizes,
        backends=("numpy",),
    )


def test_results_that_differ_fail_the_sweep_before_anything_is_timed():
    case = _case("result = list(range(N))", "result = list(range(N + 1))")
    sweep = run_sweep(case, BACKENDS["numpy"], Settings(sizes=(5, 50)))
    assert sweep.status == "failed"
    assert "differ at N=5" in sweep.message
    assert sweep.points == []


def test_code_that_raises_on_the_cpu_fails_the_sweep():
    sweep = run_sweep(_case("result = 1 / 0", "result = 1"), BACKENDS["numpy"], QUICK)
    assert sweep.status == "failed" and "ZeroDivisionError" in sweep.message


def test_a_version_over_the_budget_stops_growing():
    # sleeping N ms: 100 ms at N=100 is over a 50 ms budget, so N=1000 is not run
    case = _case("import time\ntime.sleep(N / 1000)\nresult = N", "result = N")
    sweep = run_sweep(case, BACKENDS["numpy"], Settings(budget=0.05, timeout=5, min_time=0.01))
    assert sweep.status == "ok"
    small, over, stopped = sweep.points
    assert small.before is not None and over.before is not None and over.speedup is not None
    assert stopped.before is None and stopped.before_note.startswith("stopped")
    assert stopped.after is not None and stopped.speedup is None
    assert "over the 0.05 s budget" in sweep.message
    assert "stopped" in report.text_table(Run("d", "v", {}, {}, {}, [sweep]))


def test_a_run_past_the_timeout_is_interrupted_and_gives_a_lower_bound():
    case = _case("import time\ntime.sleep(N / 1000)\nresult = N", "result = N", sizes=(10, 300, 400))
    sweep = run_sweep(case, BACKENDS["numpy"], Settings(budget=1, timeout=0.1, min_time=0.01))
    _, interrupted, after_only = sweep.points
    assert interrupted.before is None and interrupted.before_over == 0.1
    assert interrupted.speedup_at_least is not None and interrupted.speedup_at_least > 0
    assert after_only.before_note.startswith("stopped") and after_only.after is not None
    assert "timeout" in sweep.message
    table = report.text_table(Run("d", "v", {}, {}, {}, [sweep]))
    assert "> 100.00 ms" in table


def test_a_missing_backend_is_skipped_with_a_reason():
    missing = Backend("nowhere", "GPU", "gpulint_no_such_library", "pip install nothing")
    sweep = run_sweep(_case("result = 1", "result = 1"), missing, QUICK)
    assert sweep.status == "skipped" and "gpulint_no_such_library is not installed" in sweep.message
    assert sweep.points == []


def test_a_missing_example_module_is_skipped_with_a_reason():
    case = Case(**{**_case("result = 1", "result = 1").__dict__, "requires": ("gpulint_no_such_library",)})
    sweep = run_sweep(case, BACKENDS["numpy"], QUICK)
    assert sweep.status == "skipped" and "needs gpulint_no_such_library" in sweep.message


# -- the GPU code paths, with NumPy standing in for the GPU library -----------------------------


class DeviceArray(np.ndarray):
    """What the stand-in backend's `to_device` makes of a NumPy array."""


@pytest.fixture
def stand_in(monkeypatch):
    """A module `gpulint_stand_in` that is NumPy under another name (with its `linalg`),
    and a GPU backend that swaps it in for numpy."""
    module = types.ModuleType("gpulint_stand_in")
    module.__getattr__ = lambda name: getattr(np, name)  # type: ignore[attr-defined]
    linalg = types.ModuleType("gpulint_stand_in.linalg")
    linalg.__getattr__ = lambda name: getattr(np.linalg, name)  # type: ignore[attr-defined]
    module.linalg = linalg
    monkeypatch.setitem(sys.modules, "gpulint_stand_in", module)
    monkeypatch.setitem(sys.modules, "gpulint_stand_in.linalg", linalg)
    syncs = []

    def to_device(namespace):
        for key, value in list(namespace.items()):
            if isinstance(value, np.ndarray):
                namespace[key] = value.view(DeviceArray)

    backend = Backend(
        "stand-in",
        "GPU",
        "gpulint_stand_in",
        "-",
        swap={"numpy": "gpulint_stand_in"},
        to_device=to_device,
        sync=lambda: syncs.append(1),
    )
    return backend, syncs


def test_swapped_imports_give_the_replacement_module(stand_in):
    backend, _ = stand_in
    source = (
        "import numpy as np\nimport numpy.linalg as la\nfrom numpy import linalg\nimport numpy\n"
        "def where():\n    import numpy as inner\n    return inner\n"
    )
    namespace = {"np": np}
    apply_swap(namespace, backend.swapped_for([source]))
    exec(source, namespace)
    replacement = sys.modules["gpulint_stand_in"]
    assert namespace["np"] is replacement and namespace["numpy"] is replacement
    assert namespace["la"] is replacement.linalg and namespace["linalg"] is replacement.linalg
    assert namespace["where"]() is replacement
    exec("import json", namespace)  # other imports are untouched
    assert namespace["json"] is json
    # imports made by compiled library code while the example runs get the real modules
    exec("import pickle\nrestored = pickle.loads(pickle.dumps(np.arange(3)))", namespace)
    assert type(namespace["restored"]) is np.ndarray


def test_code_written_for_the_gpu_library_is_not_swapped(stand_in):
    backend, _ = stand_in
    assert backend.swapped_for(["import gpulint_stand_in\nimport numpy as np\n"]) == {}
    assert backend.swapped_for(["import numpy as np\n"]) == {"numpy": "gpulint_stand_in"}


def test_swapping_builtins_only_replaces_import():
    table = swapping_builtins({"numpy": "math"})
    assert table["len"] is len
    namespace = {"__builtins__": table}
    exec("import numpy\nfrom numpy import sqrt\n", namespace)
    assert namespace["numpy"].__name__ == "math" and namespace["sqrt"](9) == 3


def test_a_gpu_sweep_runs_on_device_inputs_syncs_and_compares(stand_in):
    backend, syncs = stand_in
    case = _case(
        "import numpy as np\ndef total(x):\n    s = 0.0\n    for v in x:\n        s += v\n"
        "    return (np.__name__, type(x).__name__, s)\n",
        "import numpy as np\ndef total(x):\n    return (np.__name__, type(x).__name__, float(x.sum()))\n",
        call="total(x)",
        setup="x = rng.normal(size=N)",
        sizes=(10, 100),
    )
    sweep = run_sweep(case, backend, Settings(min_time=0.001, max_repeat=2))
    assert sweep.status == "ok", sweep.message
    assert sweep.device == "GPU"
    assert all(p.compared for p in sweep.points)
    # the check run is never counted on a GPU: every version is timed again after it
    assert all(len(p.before_runs) >= 1 and len(p.after_runs) >= 1 for p in sweep.points)
    # two sizes x (before, after) x (check run, at least one timed run), each synced twice
    assert len(syncs) >= 16
    assert run_example("x = rng.normal(size=N)", case.after, "total(x)", n=3)[0] == "numpy"  # no backend: NumPy


def test_a_version_that_does_not_run_on_the_gpu_is_noted_not_failed(stand_in):
    backend, _ = stand_in
    case = _case(
        "import numpy as np\nresult = np.no_such_function(N)",
        "import numpy as np\nresult = np.ones(N)",
        sizes=(10, 100),
    )
    sweep = run_sweep(case, backend, QUICK)
    assert sweep.status == "ok"
    first, second = sweep.points
    assert first.before is None and "does not run on stand-in" in first.before_note
    assert first.after is not None and second.after is not None


def test_default_backends_follow_the_example_imports():
    assert default_backends(["import pandas as pd\n"]) == ("pandas", "cudf")
    assert default_backends(["import numpy as np\n"]) == ("numpy", "cupy")
    assert default_backends(["import torch\nimport numpy as np\n"]) == ("torch", "torch-cuda")
    assert default_backends(["import pandas as pd\nfrom sklearn.svm import SVC\n"]) == ("sklearn",)
    assert default_backends(["import cupy as cp\nimport numpy as np\n"]) == ("cupy",)
    assert default_backends(["x = 1\n"], requires=("dask",)) == ("dask",)


# -- comparing results -----------------------------------------------------------------------------


class _FakeCupyArray:
    __module__ = "cupy._core.core"

    def __init__(self, data):
        self.data = np.asarray(data)

    def get(self):
        return self.data


def test_device_values_are_compared_on_the_host():
    assert isinstance(to_host(_FakeCupyArray([1, 2])), np.ndarray)
    assert_same_result(_FakeCupyArray([1.0, 2.0]), np.array([1.0, 2.0]), strict=False)
    with pytest.raises(AssertionError):
        assert_same_result(_FakeCupyArray([1.0, 2.0]), np.array([1.0, 2.5]), strict=False)
    assert to_host({"a": [_FakeCupyArray([3])]})["a"][0].tolist() == [3]


def test_scalars_and_dicts_compare_by_value():
    assert_same_result(0.1 + 0.2, 0.3, strict=False)
    with pytest.raises(AssertionError):
        assert_same_result(0.1 + 0.2, 0.3, strict=True)
    assert_same_result(np.float64(2.0), 2.0, strict=False)
    assert_same_result({"a": pd.Series([1, 2])}, {"a": pd.Series([1.0, 2.0])}, strict=False)
    with pytest.raises(AssertionError):
        assert_same_result({"a": 1}, {"b": 1}, strict=False)


# -- the command ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_bench_quick_writes_table_json_markdown_and_plot(cli, tmp_path):
    out = tmp_path / "out"
    run = cli("bench", "--rule", "GPU102", "--rule", "apply-axis-1", "--quick", "--output", str(out))
    assert run.code == 0, run.stderr
    header = run.lines[0].split()
    assert header == ["rule", "backend", "N", "before", "after", "speedup", "results"]
    measured = [line for line in run.lines[2:] if line.strip() and line[0] in "G "]
    assert measured and all(line.rstrip().endswith("equal") for line in measured)  # said on screen
    assert any(line.startswith("GPU102 iterrows-loop") for line in run.lines)
    assert any(line.startswith("GPU104 apply-axis-1") for line in run.lines)
    data = json.loads((out / "cpu.json").read_text())
    assert data["schema"] == "gpulint-bench" and data["version"] == 1
    assert data["settings"]["quick"] is True
    assert {(s["code"], s["backend"]) for s in data["sweeps"] if s["status"] == "ok"} == {
        ("GPU102", "pandas"),
        ("GPU104", "pandas"),
    }
    assert all(p["compared"] for s in data["sweeps"] for p in s["points"])
    assert data["libraries"]["pandas"] == pd.__version__
    loaded = load(out / "cpu.json")
    assert [s.code for s in loaded.sweeps] == [s["code"] for s in data["sweeps"]]
    summary = (out / "cpu.md").read_text()
    assert "| GPU102 iterrows-loop | pandas (CPU) | 10 |" in summary
    pytest.importorskip("matplotlib")
    assert (out / "cpu.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "![Speedup against N, per rule](cpu.png)" in summary


def test_bench_skips_a_backend_that_is_not_installed(cli, tmp_path):
    if BACKENDS["cudf"].unavailable() is None:
        pytest.skip("cuDF and a GPU are present here")
    run = cli("bench", "--rule", "GPU102", "--backend", "cudf", "--quick", "--output", str(tmp_path))
    assert run.code == 0
    assert any(line.startswith("skipped GPU102 on cudf: cudf") for line in run.lines), run.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("--rule", "GPU999"), "unknown rule 'GPU999'"),
        (("--rule", "GPU001"), "GPU001 has no benchmark"),
        (("--backend", "tpu"), "unknown backend 'tpu'"),
        (("--max-n", "0"), "argument --max-n: 0 is not 1 or more"),
    ],
)
def test_bench_usage_errors_exit_2(cli, tmp_path, args, message):
    run = cli("bench", "--quick", "--output", str(tmp_path), *args)
    assert run.code == 2
    assert message in run.stderr


def test_without_matplotlib_the_command_says_how_to_get_the_plot(monkeypatch, tmp_path):
    from gpulint.benchmarks.command import write

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    result = Run(
        "2025-01-01T00:00:00+00:00",
        "0",
        {"cpus": 1},
        {},
        {},
        [run_sweep(_case("result = 1", "result = 1"), BACKENDS["numpy"], QUICK)],
    )
    lines = write(result, tmp_path)
    assert "pip install 'gpulint[bench]'" in lines[-1]
    assert (tmp_path / "cpu.json").is_file() and (tmp_path / "cpu.md").is_file()
    assert not (tmp_path / "cpu.png").exists()


def test_results_round_trip_and_refuse_other_files(tmp_path):
    sweep = run_sweep(_case("result = N", "result = N"), BACKENDS["numpy"], QUICK)
    run = Run("2025-01-01T00:00:00+00:00", "0.1.0", {"cpus": 2}, {"numpy": np.__version__}, {"quick": True}, [sweep])
    run.write(tmp_path / "cpu.json")
    assert load(tmp_path / "cpu.json") == run
    (tmp_path / "other.json").write_text(json.dumps({"schema": "something-else"}))
    with pytest.raises(ResultsError, match="not a gpulint bench results file"):
        load(tmp_path / "other.json")
    (tmp_path / "future.json").write_text(json.dumps({"schema": "gpulint-bench", "version": 99}))
    with pytest.raises(ResultsError, match="version 99"):
        load(tmp_path / "future.json")


# -- the committed results, and where they are quoted --------------------------------------------


def _committed_cpu_run() -> Run:
    path = COMMITTED / "cpu.json"
    assert path.is_file(), "run `gpulint bench --output benchmarks/results` to commit CPU results"
    return load(path)


def test_committed_cpu_results_cover_every_benchmark_with_results_checked():
    run = _committed_cpu_run()
    assert not run.settings["quick"], "the committed results must come from a full run, not --quick"
    measured = {s.code for s in run.sweeps if s.device == "CPU" and s.status == "ok"}
    cpu_benchmarks = {code for code, bench in BENCHMARKS.items() if any(not BACKENDS[b].gpu for b in _backends(bench))}
    assert cpu_benchmarks <= measured, f"not in benchmarks/results/cpu.json: {sorted(cpu_benchmarks - measured)}"
    for sweep in run.sweeps:
        assert sweep.status != "failed", f"{sweep.code} on {sweep.backend}: {sweep.message}"
        for point in sweep.points:
            assert point.speedup is None or point.compared, (sweep.code, point.n)


def test_readme_shows_the_committed_benchmark_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = marked_block(readme, "bench").strip()
    assert (ROOT / "benchmarks" / "results" / "cpu.png").is_file()
    assert block == report.readme_block(_committed_cpu_run(), "benchmarks/results/cpu.png"), (
        "README benchmark table is stale: run `python -m gpulint.docs README.md`"
    )
    assert block == bench_block(str(ROOT))


def test_rule_docs_quote_the_measured_speedup(cli):
    run = _committed_cpu_run()
    sweep = next(s for s in run.sweeps if s.status == "ok" and s.headline())
    shown = cli("rule", sweep.code)
    assert "## Measured speedup" in shown.stdout
    assert sweep.headline() in shown.stdout
    assert rule_section(sweep.code) in render_markdown(rule_by_key(sweep.code))
    data = rule_json(rule_by_key(sweep.code))
    assert {m["backend"] for m in data["measured"]} >= {sweep.backend}


def test_rule_without_measurements_has_no_measured_section():
    rule = rule_by_key("GPU001")
    assert "Measured speedup" not in render_markdown(rule)
    assert rule_json(rule)["measured"] == []


def test_inputs_are_copied_to_the_device_inside_containers():
    from gpulint.benchmarks.backends import _converted

    host = {"a": np.arange(3), "parts": [np.ones(2), (np.zeros(1), "label")], "n": 3}
    device = _converted(host, (np.ndarray,), lambda array: array.view(DeviceArray))
    assert type(device["a"]) is DeviceArray and type(device["parts"][0]) is DeviceArray
    assert type(device["parts"][1][0]) is DeviceArray and device["parts"][1][1] == "label"
    assert device["n"] == 3 and type(host["a"]) is np.ndarray


def test_the_terminal_table_says_each_point_was_compared_equal():
    run = load(COMMITTED / "cpu.json")
    table = report.text_table(run).splitlines()
    assert table[0].split()[-1] == "results"
    measured = [line for line in table[2:] if line.strip()]
    assert measured and all(line.endswith("equal") for line in measured if not line.endswith("not compared"))


def test_a_speedup_far_from_the_committed_one_is_called_out():
    import copy

    committed = load(COMMITTED / "cpu.json")
    sweep = next(s for s in committed.sweeps if s.status == "ok" and any(p.speedup for p in s.points))
    point = next(p for p in sweep.points if p.speedup)
    assert report.far_from_committed(committed, [committed]) == []  # the same run: nothing to say
    noisy = copy.deepcopy(committed)
    moved = next(
        p
        for s in noisy.sweeps
        if s.code == sweep.code and s.backend == sweep.backend
        for p in s.points
        if p.n == point.n
    )
    moved.after = moved.after / 10  # ten times the speedup
    [note] = report.far_from_committed(noisy, [committed])
    assert f"{sweep.code} on {sweep.backend} at N={point.n:,}" in note and "noisy" in note


def test_a_run_of_some_rules_keeps_the_other_sweeps_already_written(tmp_path):
    from gpulint.benchmarks.command import write

    def run(*codes: str) -> Run:
        sweeps = []
        for code in codes:
            sweep = run_sweep(_case("result = N", "result = N"), BACKENDS["numpy"], QUICK)
            sweeps.append(dataclasses.replace(sweep, code=code))
        return Run(f"2025-01-0{len(codes)}T00:00:00+00:00", "0", {"cpus": 1}, {}, {}, sweeps)

    write(run("GPU201", "GPU202"), tmp_path)
    lines = write(run("GPU202"), tmp_path)
    assert "kept 1 sweeps of the earlier run there" in lines[0]
    written = load(tmp_path / "cpu.json")
    assert [s.code for s in written.sweeps] == ["GPU201", "GPU202"]
    assert "measured in an earlier run" in written.sweeps[0].message
    assert "measured" not in written.sweeps[1].message


def test_bench_refuses_to_replace_a_file_that_is_not_its_results(cli, tmp_path):
    (tmp_path / "cpu.json").write_text('{"mine": true}\n')
    run = cli("bench", "--rule", "GPU102", "--quick", "--output", str(tmp_path))
    assert run.code == 2 and "nothing was run" in run.stderr
    assert (tmp_path / "cpu.json").read_text() == '{"mine": true}\n'
