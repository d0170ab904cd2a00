"""`[tool.gpulint]` in the nearest pyproject.toml, its validation, and CLI overrides."""

from __future__ import annotations

import pytest

from .conftest import ITERROWS, ITERROWS_FIXED, write


def _config(root, body: str) -> None:
    write(root / "pyproject.toml", "[project]\nname = 'demo'\n\n[tool.gpulint]\n" + body)


def _codes(run) -> list[str]:
    return [line.split(": ")[1].split()[0] for line in run.lines if ": GPU" in line]


@pytest.mark.parametrize(
    "body, found",
    [
        ("", True),
        ('select = ["GPU102"]\n', True),
        ('select = ["GPU1"]\n', True),
        ('select = ["iterrows-loop"]\n', True),
        ('select = ["GPU001"]\n', False),
        ("select = []\n", False),
        ('ignore = ["GPU102"]\n', False),
        ('ignore = ["iterrows-loop"]\n', False),
        ('select = ["GPU001"]\nextend-select = ["GPU102"]\n', True),
        ('select = ["GPU1"]\nignore = ["GPU102"]\n', False),
    ],
)
def test_selection_from_config(project, cli, body, found):
    _config(project, body)
    write(project / "sales.py", ITERROWS)
    run = cli("check", "sales.py")
    assert run.code == (1 if found else 0), run.stderr
    assert ("GPU102" in _codes(run)) is found


def test_cli_flags_override_config(project, cli):
    _config(project, 'select = ["GPU001"]\n')
    write(project / "sales.py", ITERROWS)
    assert cli("check", "sales.py").code == 0
    assert cli("check", "--select", "GPU102", "sales.py").code == 1  # --select replaces
    assert cli("check", "--extend-select", "GPU102", "sales.py").code == 1  # --extend-select adds
    _config(project, 'extend-select = ["GPU102"]\n')
    assert cli("check", "--ignore", "GPU102", "sales.py").code == 0  # --ignore removes


def test_per_file_ignores_relative_to_the_config(project, cli, monkeypatch):
    _config(project, '[tool.gpulint.per-file-ignores]\n"legacy/**" = ["GPU102"]\n"scripts/*.py" = ["GPU1"]\n')
    for name in ("legacy/deep/old.py", "scripts/run.py", "src/new.py", "src/scripts/run.py"):
        write(project / name, ITERROWS)
    run = cli("check", ".")
    assert sorted(line.split(":")[0] for line in run.lines if ": GPU" in line) == ["src/new.py", "src/scripts/run.py"]
    monkeypatch.chdir(project / "legacy")  # patterns are relative to pyproject.toml, not the cwd
    assert cli("check", "deep/old.py").code == 0


def test_exclude_from_config(project, cli):
    _config(project, 'exclude = ["build_*.py", "third_party/"]\n')
    for name in ("build_x.py", "third_party/lib.py", "src/app.py"):
        write(project / name, ITERROWS)
    run = cli("check", ".")
    assert [line.split(":")[0] for line in run.lines if ": GPU" in line] == ["src/app.py"]


def test_unsafe_fixes_from_config_and_cli_override(project, cli):
    _config(project, "unsafe-fixes = true\n")
    path = write(project / "sales.py", ITERROWS)
    assert " GPU102 [*] " in cli("check", "sales.py").lines[0]
    assert " GPU102 [*] " not in cli("check", "--no-unsafe-fixes", "sales.py").lines[0]
    assert cli("check", "--fix", "--no-unsafe-fixes", "sales.py").code == 1
    assert path.read_text() == ITERROWS
    assert cli("check", "--fix", "sales.py").code == 0
    assert path.read_text() == ITERROWS_FIXED


def test_nearest_pyproject_with_a_gpulint_table_wins(project, cli):
    _config(project, 'ignore = ["GPU102"]\n')
    write(project / "sub" / "pyproject.toml", "[project]\nname = 'no-gpulint-table'\n")  # skipped
    write(project / "inner" / "pyproject.toml", "[tool.gpulint]\nselect = ['GPU102']\n")  # governs inner/
    for name in ("a.py", "sub/b.py", "inner/c.py"):
        write(project / name, ITERROWS)
    run = cli("check", ".")
    assert [line.split(":")[0] for line in run.lines if ": GPU" in line] == ["inner/c.py"]


def test_explicit_config_file(project, cli, tmp_path):
    elsewhere = write(tmp_path / "settings" / "pyproject.toml", '[tool.gpulint]\nignore = ["GPU102"]\n')
    write(project / "sales.py", ITERROWS)
    assert cli("check", "sales.py").code == 1
    assert cli("check", "--config", str(elsewhere), "sales.py").code == 0
    missing = cli("check", "--config", "nope.toml", "sales.py")
    assert missing.code == 2
    assert len(missing.errors) == 1 and missing.errors[0].startswith("error: nope.toml: cannot read")
    assert cli("check", "--config", str(tmp_path / "settings"), "sales.py").code == 2  # a folder


def test_config_edits_are_seen_by_a_long_lived_process(project, cli):
    """Several runs in one process (an editor integration) each read the current config."""
    write(project / "sales.py", ITERROWS)
    assert cli("check", "sales.py").code == 1
    _config(project, 'ignore = ["GPU102"]\n')
    assert cli("check", "sales.py").code == 0
    _config(project, "")
    assert cli("check", "sales.py").code == 1


@pytest.mark.parametrize(
    "body, expected",
    [
        ("colour = 'blue'\n", "unknown key(s) in [tool.gpulint]: colour"),
        ("extend_select = ['GPU102']\n", "unknown key(s) in [tool.gpulint]: extend_select"),
        ("select = ['GPU999']\n", "select: unknown rule selector 'GPU999'"),
        ("ignore = ['E501']\n", "ignore: unknown rule selector 'E501'"),
        ("extend-select = ['iterows-loop']\n", "extend-select: unknown rule selector 'iterows-loop'"),
        ("select = 'GPU102'\n", "`select` must be a list of strings"),
        ("select = [102]\n", "`select` must be a list of strings"),
        ("unsafe-fixes = 'yes'\n", "`unsafe-fixes` must be true or false"),
        ("exclude = 'build'\n", "`exclude` must be a list of strings"),
        ("per-file-ignores = ['x']\n", "`per-file-ignores` must be a table"),
        ("per-file-ignores = { 'a.py' = 'GPU102' }\n", "per-file-ignores for 'a.py' must be a list of codes"),
        ("per-file-ignores = { 'a.py' = ['GPU9'] }\n", "unknown rule selector 'GPU9'"),
    ],
)
def test_bad_config_is_one_clear_error(project, cli, body, expected):
    _config(project, body)
    write(project / "sales.py", ITERROWS)
    run = cli("check", "sales.py")
    assert run.code == 2
    # The files governed by the broken config are not checked (other files would be).
    # reported once, as the configuration that could not be read
    assert run.stdout.startswith(f"1 file could not be checked: {project / 'pyproject.toml'} (")
    assert len(run.errors) == 1, run.errors
    assert run.errors[0].startswith("error: ") and "pyproject.toml" in run.errors[0]
    assert expected in run.errors[0]


def test_gpulint_must_be_a_table(project, cli):
    write(project / "pyproject.toml", "[tool]\ngpulint = 3\n")
    write(project / "sales.py", ITERROWS)
    run = cli("check", "sales.py")
    assert run.code == 2 and run.errors == [f"error: {project / 'pyproject.toml'}: [tool.gpulint] must be a table"]


@pytest.mark.parametrize(
    "text",
    [
        "[tool.gpulint\nselect = ['GPU102']\n",
        "[tool.gpulint]\nselect = ['GPU102'\n",
        "[tool.gpulint]\nselect = ['GPU102']\nselect = ['GPU001']\n",
        "\xff\xfe not toml [tool.gpulint]",
    ],
)
def test_broken_pyproject_is_one_line_exit_2(project, cli, text):
    (project / "pyproject.toml").write_bytes(text.encode("latin-1"))
    write(project / "sales.py", ITERROWS)
    run = cli("check", "sales.py")
    assert run.code == 2
    # reported once, as the configuration that could not be read
    assert run.stdout.startswith(f"1 file could not be checked: {project / 'pyproject.toml'} (")
    assert len(run.errors) == 1
    assert run.errors[0].startswith(f"error: {project / 'pyproject.toml'}: invalid TOML")


@pytest.mark.slow
def test_broken_pyproject_in_a_subproject_stops_the_run(project, cli, gpulint_exe):
    write(project / "a.py", ITERROWS)
    write(project / "sub" / "pyproject.toml", "[tool.gpulint\n")
    write(project / "sub" / "b.py", ITERROWS)
    run = gpulint_exe("check", ".", cwd=project)
    assert run.code == 2
    assert len(run.errors) == 1
    assert run.errors[0].startswith("error: ") and "sub/pyproject.toml: invalid TOML" in run.errors[0]


def test_a_rule_selected_on_the_command_line_beats_a_configured_ignore(project, cli):
    _config(project, "ignore = ['GPU102']\n")
    write(project / "sales.py", ITERROWS)
    assert cli("check", "sales.py").code == 0
    assert cli("check", "--select", "GPU102", "sales.py").code == 1
    assert cli("check", "--extend-select", "iterrows-loop", "sales.py").code == 1
    assert cli("check", "--select", "GPU102", "--ignore", "GPU102", "sales.py").code == 0


# -- extend-ignore, --exclude and --extend-exclude ---------------------------------------------


def _found(cli, *args: str) -> list[tuple[str, str]]:
    """(file, code) of every finding of `gpulint check ARGS`, read from the JSON output."""
    import json

    run = cli("check", "--output-format", "json", *args)
    assert run.code in (0, 1), run.stderr
    return sorted((item["filename"], item["code"]) for item in json.loads(run.stdout))


TWO_RULES = ITERROWS + "\n\ndef g(sales: pd.DataFrame):\n    return sales.apply(lambda r: r['a'] + 1, axis=1)\n"


@pytest.mark.parametrize(
    "body, codes",
    [
        ('extend-ignore = ["GPU102"]\n', ["GPU104"]),
        ('extend-ignore = ["apply-axis-1"]\n', ["GPU102"]),
        ('ignore = ["GPU102"]\nextend-ignore = ["GPU104"]\n', []),
        ("extend-ignore = []\n", ["GPU102", "GPU104"]),
        ('extend-ignore = ["GPU2"]\n', ["GPU102", "GPU104"]),  # a near miss: other rules
    ],
)
def test_extend_ignore_in_config_adds_to_ignore(project, cli, body, codes):
    _config(project, body)
    write(project / "sales.py", TWO_RULES)
    assert [code for _, code in _found(cli, "sales.py")] == codes


@pytest.mark.parametrize(
    "body, expected",
    [
        ("extend-ignore = ['GPU999']\n", "extend-ignore: unknown rule selector 'GPU999'"),
        ("extend-ignore = 'GPU102'\n", "`extend-ignore` must be a list of strings"),
    ],
)
def test_bad_extend_ignore_is_one_clear_error(project, cli, body, expected):
    _config(project, body)
    write(project / "sales.py", TWO_RULES)
    run = cli("check", "sales.py")
    assert run.code == 2
    assert any(line.startswith("error: ") and expected in line for line in run.errors), run.errors


def test_extend_ignore_on_the_command_line(project, cli):
    write(project / "sales.py", TWO_RULES)
    assert [code for _, code in _found(cli, "--extend-ignore", "GPU102", "sales.py")] == ["GPU104"]
    assert _found(cli, "--extend-ignore", "GPU102,GPU104", "sales.py") == []
    assert _found(cli, "--ignore", "GPU102", "--extend-ignore", "GPU104", "sales.py") == []
    run = cli("check", "--extend-ignore", "GPU999", "sales.py")
    assert run.code == 2 and "--extend-ignore: unknown rule selector 'GPU999'" in run.stderr


def _tree(project):
    for name in ("src/app.py", "src/gen/out.py", "vendor/x.py", "legacy/old.py", "top.py"):
        write(project / name, ITERROWS)


def _files(cli, *args: str) -> list[str]:
    return sorted({name for name, _ in _found(cli, *args)})


def test_exclude_on_the_command_line_replaces_the_configured_patterns(project, cli):
    _tree(project)
    _config(project, 'exclude = ["vendor/"]\nextend-exclude = ["legacy/"]\n')
    assert _files(cli, ".") == ["src/app.py", "src/gen/out.py", "top.py"]
    # --exclude replaces exclude and extend-exclude of the configuration
    assert _files(cli, "--exclude", "gen/", ".") == ["legacy/old.py", "src/app.py", "top.py", "vendor/x.py"]
    # --extend-exclude adds to them
    assert _files(cli, "--extend-exclude", "gen/", ".") == ["src/app.py", "top.py"]
    assert _files(cli, "--exclude", "gen/,top.py", "--extend-exclude", "src/app.py", ".") == [
        "legacy/old.py",
        "vendor/x.py",
    ]


def test_command_line_patterns_are_relative_to_the_current_folder(project, cli, monkeypatch):
    _tree(project)
    monkeypatch.chdir(project / "src")
    assert _files(cli, "--extend-exclude", "/gen", ".") == ["app.py"]
    assert _files(cli, "--extend-exclude", "/src/gen", ".") == ["app.py", "gen/out.py"]  # anchored at src/


def test_command_line_exclude_spares_named_files_unless_force_exclude(project, cli):
    _tree(project)
    assert _files(cli, "--extend-exclude", "top.py", "top.py") == ["top.py"]
    assert _files(cli, "--extend-exclude", "top.py", "--force-exclude", "top.py") == []
    assert _files(cli, "--exclude", "top.py", "--force-exclude", "src/app.py") == ["src/app.py"]


@pytest.mark.parametrize("option", ["--exclude", "--extend-exclude"])
def test_bad_command_line_pattern_is_one_clear_error(project, cli, option):
    _tree(project)
    run = cli("check", option, "src\\", ".")
    assert run.code == 2
    assert run.errors[0].startswith(f"error: {option}: invalid path pattern 'src\\\\'"), run.errors
