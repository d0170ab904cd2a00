"""The `gpulint` command end to end: exit codes, text output, fixing, diffs, standard
input, rule selection, file discovery and the `rule` subcommand."""

from __future__ import annotations

import os

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpulint import __version__, all_rules

from .conftest import CLEAN, ITERROWS, ITERROWS_DISPLAY_ONLY, ITERROWS_FIXED, ITERROWS_POSITION, invoke, write

MESSAGE = next(rule.message for rule in all_rules() if rule.code == "GPU102")
LINE, COL = ITERROWS_POSITION


# -- exit codes and the text format ------------------------------------------------------


def test_clean_file_exits_0(project, cli):
    write(project / "clean.py", CLEAN)
    run = cli("check", "clean.py")
    assert run.code == 0
    assert run.lines == ["All checks passed."]


def test_finding_exits_1_with_text_line_summary_and_unsafe_hint(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "sales.py")
    assert run.code == 1
    assert run.lines[0] == f"sales.py:{LINE}:{COL}: GPU102 {MESSAGE}"  # no [*]: the fix is unsafe
    assert run.lines[1] == "Found 1 finding in 1 file."
    assert run.lines[2].startswith("1 more fix available with `--unsafe-fixes`")
    assert len(run.lines) == 3
    assert run.stderr == ""


def test_unsafe_fixes_flag_marks_finding_fixable(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--unsafe-fixes", "sales.py")
    assert run.code == 1
    assert run.lines[0] == f"sales.py:{LINE}:{COL}: GPU102 [*] {MESSAGE}"
    assert "[*] 1 fixable with `gpulint check --fix --unsafe-fixes`." in run.lines
    assert not any("more fix" in line for line in run.lines)


def test_display_only_fix_is_never_marked(project, cli):
    write(project / "notify.py", ITERROWS_DISPLAY_ONLY)
    run = cli("check", "--unsafe-fixes", "notify.py")
    assert run.code == 1
    assert run.lines[0] == f"notify.py:4:19: GPU102 {MESSAGE}"
    assert not any("fixable" in line or "more fix" in line for line in run.lines)


def test_plural_summary_over_several_files(project, cli):
    write(project / "a.py", ITERROWS)
    write(project / "b.py", ITERROWS)
    run = cli("check", "a.py", "b.py")
    assert run.code == 1
    assert "Found 2 findings in 2 files." in run.lines
    assert any(line.startswith("2 more fixes available with `--unsafe-fixes`") for line in run.lines)


def test_exit_zero_turns_findings_into_0(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--exit-zero", "sales.py")
    assert run.code == 0
    assert run.lines[0].startswith("sales.py:5:19: GPU102")


def test_exit_zero_does_not_hide_errors(project, cli):
    run = cli("check", "--exit-zero", "missing.py")
    assert run.code == 2


def test_quiet_prints_findings_only(project, cli):
    write(project / "sales.py", ITERROWS)
    write(project / "bad.py", "import pandas as pd\nx = 1  # noqa: GPU102, not-a-code\n")
    run = cli("check", "--quiet", "sales.py", "bad.py")
    assert run.code == 1
    assert run.lines == [f"sales.py:{LINE}:{COL}: GPU102 {MESSAGE}"]
    assert run.stderr == ""  # the noqa warning is silenced too
    clean = cli("check", "-q", "bad.py")
    assert clean.code == 0 and clean.stdout == ""


def test_statistics_counts_per_rule(project, cli):
    write(project / "a.py", ITERROWS)
    write(project / "b.py", ITERROWS + "\n\n" + ITERROWS_DISPLAY_ONLY.replace("import pandas as pd\n", ""))
    write(project / "broken.py", "def f(:\n")
    run = cli("check", "--statistics", ".")
    assert run.code == 1
    assert run.lines == [
        "count  code    fixable  name",
        "    3  GPU102        0  iterrows-loop",
        "    1  GPU001        0  syntax-error",
        "    4  total         0",
    ]
    fixable = cli("check", "--statistics", "--unsafe-fixes", ".")
    assert fixable.lines[1:] == [
        "    3  GPU102        2  iterrows-loop",
        "    1  GPU001        0  syntax-error",
        "    4  total         2",
    ]


def test_version(cli):
    run = cli("--version")
    assert run.code == 0
    assert run.stdout.strip() == f"gpulint, version {__version__}"


def test_version_is_the_same_under_python_m(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "gpulint", "-V"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout == f"gpulint, version {__version__}\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (("check", "--output-format", "xml", "."), "argument --output-format: invalid choice: 'xml'"),
        (("check", "--no-such-option"), "unrecognized arguments: --no-such-option"),
        (("check", "--sel", "GPU1"), "unrecognized arguments: --sel"),  # no abbreviations
        (("frobnicate",), "invalid choice: 'frobnicate'"),
        (("check", "--target-version", "py27"), "argument --target-version: invalid choice: 'py27'"),
        (("check", "--jobs", "0"), "argument --jobs/-j: 0 is not 1 or more"),
        (("check", "-j", "many"), "argument --jobs/-j: 'many' is not an integer"),
        (("check", "--fix", "--add-noqa"), "--add-noqa cannot be combined with --fix"),
        (("rule", "--format", "yaml"), "argument --format: invalid choice: 'yaml'"),
        (("readiness", "--library", "pandas"), "argument --library: invalid choice: 'pandas'"),
        (("readiness", "--fail-under", "101"), "argument --fail-under: 101 is not between 0 and 100"),
        (("bench", "--budget", "0"), "argument --budget: 0 is not more than 0"),
    ],
)
def test_usage_errors_exit_2(project, cli, args, message):
    """The usage, then one line naming what was wrong, from the command that refused it."""
    run = cli(*args)
    assert run.code == 2 and run.stdout == ""
    prog = "gpulint" if args[0] == "frobnicate" else f"gpulint {args[0]}"
    assert run.errors[0].startswith(f"usage: {prog} ")
    assert run.errors[-1].startswith(f"{prog}: error: ") and message in run.errors[-1], run.errors


def test_an_output_format_from_the_environment_is_checked_too(project, cli, monkeypatch):
    write(project / "sales.py", ITERROWS)
    monkeypatch.setenv("GPULINT_OUTPUT_FORMAT", "xml")
    run = cli("check", "sales.py")
    assert run.code == 2 and "argument --output-format: invalid choice: 'xml'" in run.stderr
    monkeypatch.setenv("GPULINT_OUTPUT_FORMAT", "json")
    assert json.loads(cli("check", "sales.py").stdout)[0]["code"] == "GPU102"
    assert cli("check", "--output-format", "concise", "sales.py").lines[0].startswith("sales.py:")


def test_without_a_command_the_help_goes_to_standard_error(cli):
    run = cli()
    assert run.code == 2 and run.stdout == ""
    assert run.errors[0].startswith("usage: gpulint")


@pytest.mark.parametrize("command", ["check", "clean", "rule", "server", "bench", "readiness"])
def test_every_command_has_help(cli, command):
    for flag in ("-h", "--help"):
        run = cli(command, flag)
        assert run.code == 0 and run.stderr == ""
        assert run.lines[0].startswith(f"usage: gpulint {command}")
    assert command in cli("-h").stdout


def test_options_and_paths_in_any_order(project, cli):
    write(project / "a.py", ITERROWS)
    write(project / "b.py", ITERROWS)
    run = cli("check", "a.py", "--select", "GPU102", "b.py", "-q", "--select=GPU1")
    assert run.code == 1
    assert [line.split(":")[0] for line in run.lines] == ["a.py", "b.py"]
    assert cli("check", "-q", "--", "a.py").code == 1


def test_flags_turn_off_with_no(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--fix", "--unsafe-fixes", "--no-fix", "--no-unsafe-fixes", "sales.py")
    assert run.code == 1 and (project / "sales.py").read_text() == ITERROWS


def test_ctrl_c_exits_130_with_one_line(project, cli, monkeypatch):
    import gpulint.cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(gpulint.cli, "lint_paths", interrupted)
    write(project / "sales.py", ITERROWS)
    run = cli("check", "sales.py")
    assert run.code == 130
    assert run.errors == ["interrupted"]


def test_default_path_is_current_folder(project, cli):
    write(project / "pkg" / "sales.py", ITERROWS)
    run = cli("check")
    assert run.code == 1
    assert run.lines[0].startswith(f"pkg/sales.py:{LINE}:{COL}: GPU102")


# -- selection -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, found",
    [
        (("--select", "GPU102"), True),
        (("--select", "GPU1"), True),
        (("--select", "GPU"), True),
        (("--select", "iterrows-loop"), True),
        (("--select", "GPU001,iterrows-loop"), True),
        (("--select", "GPU001", "--select", "GPU102"), True),
        (("--select", "ALL"), True),
        (("--select", "GPU001"), False),
        (("--ignore", "GPU102"), False),
        (("--ignore", "GPU1"), False),
        (("--ignore", "iterrows-loop"), False),
        (("--ignore", "GPU001, GPU102"), False),
        (("--select", "GPU001", "--extend-select", "GPU102"), True),
        (("--select", "GPU001", "--extend-select", "iterrows-loop"), True),
        (("--select", "GPU102", "--ignore", "GPU102"), False),
    ],
)
def test_select_ignore_extend_select(project, cli, args, found):
    write(project / "sales.py", ITERROWS)
    run = cli("check", *args, "sales.py")
    assert run.code == (1 if found else 0), run.stdout + run.stderr
    assert any("GPU102" in line for line in run.lines) is found


def test_selection_applies_to_syntax_errors(project, cli):
    write(project / "broken.py", "def f(:\n")
    assert cli("check", "broken.py").code == 1
    assert cli("check", "--ignore", "GPU001", "broken.py").code == 0
    assert cli("check", "--select", "GPU102", "broken.py").code == 0


@pytest.mark.parametrize(
    "option, value",
    [
        ("--select", "GPU9"),
        ("--select", "GPU999"),
        ("--ignore", "E501"),
        ("--extend-select", "no-such-rule"),
        ("--select", "GPU102,bogus"),
    ],
)
def test_unknown_selector_is_one_clear_error(project, cli, option, value):
    write(project / "sales.py", ITERROWS)
    run = cli("check", option, value, "sales.py")
    assert run.code == 2
    assert run.stdout == ""
    assert len(run.errors) == 1
    assert run.errors[0].startswith(f"error: {option}: unknown rule selector")


# -- fixing ----------------------------------------------------------------------------------


def test_fix_without_unsafe_fixes_leaves_unsafe_fix_alone(project, cli):
    path = write(project / "sales.py", ITERROWS)
    run = cli("check", "--fix", "sales.py")
    assert run.code == 1
    assert path.read_text() == ITERROWS
    assert not any(line.startswith("Fixed") for line in run.lines)


def test_fix_with_unsafe_fixes_rewrites_the_file(project, cli):
    path = write(project / "sales.py", ITERROWS)
    run = cli("check", "--fix", "--unsafe-fixes", "sales.py")
    assert run.code == 0
    assert path.read_text() == ITERROWS_FIXED
    assert run.lines == ["Fixed 1 finding in 1 file."]
    ast.parse(path.read_text())
    again = cli("check", "--fix", "--unsafe-fixes", "sales.py")
    assert again.code == 0 and again.lines == ["All checks passed."]
    assert path.read_text() == ITERROWS_FIXED


def test_fix_reports_what_remains(project, cli):
    write(project / "sales.py", ITERROWS)
    write(project / "notify.py", ITERROWS_DISPLAY_ONLY)
    run = cli("check", "--fix", "--unsafe-fixes", "sales.py", "notify.py")
    assert run.code == 1
    assert run.lines == [
        f"notify.py:4:19: GPU102 {MESSAGE}",
        "Fixed 1 finding in 1 file.",
        "Found 1 finding in 1 file (remaining).",
    ]
    assert (project / "notify.py").read_text() == ITERROWS_DISPLAY_ONLY


def test_diff_shows_unified_diff_and_writes_nothing(project, cli):
    path = write(project / "sales.py", ITERROWS)
    run = cli("check", "--diff", "--unsafe-fixes", "sales.py")
    assert run.code == 1
    assert path.read_text() == ITERROWS
    assert run.lines[:2] == ["--- a/sales.py", "+++ b/sales.py"]
    assert "-    for _, row in sales.iterrows():" in run.lines
    assert '+    out = (sales["price"] - sales["cost"]).tolist()' in run.lines
    # standard output is the diff alone; the report goes to standard error
    assert all(line[:1] in "-+@ " for line in run.lines)
    assert "Would fix 1 finding in 1 file." in run.errors


def test_diff_applies_with_git_apply(project, cli):
    path = write(project / "sales.py", ITERROWS)
    write(project / "notify.py", ITERROWS_DISPLAY_ONLY)
    run = cli("check", "--diff", "--unsafe-fixes", ".")
    assert run.code == 1
    assert run.errors == ["Would fix 1 finding in 1 file."]  # one line on stderr, as ruff's
    (project / "fix.patch").write_text(run.stdout)
    subprocess.run(["git", "apply", "fix.patch"], cwd=project, check=True, capture_output=True)
    assert path.read_text() == ITERROWS_FIXED


def test_diff_without_applicable_fixes_prints_no_diff_and_exits_0(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--diff", "sales.py")  # the only fix is unsafe
    assert run.stdout == ""
    assert run.code == 0  # nothing to change (as ruff's --diff), though the finding remains
    assert run.errors == ["No findings would be fixed (1 more fix available with `--unsafe-fixes`)."]
    clean = cli("check", "--diff", write(project / "clean.py", CLEAN).name)
    assert clean.code == 0 and clean.stdout == ""


def test_diff_cannot_be_combined_with_a_machine_format(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--diff", "--output-format", "json", "sales.py")
    assert run.code == 2
    assert "--diff" in run.stderr


# -- standard input ----------------------------------------------------------------------------


def test_stdin_is_linted_under_stdin_filename(project, cli):
    run = cli("check", "-", "--stdin-filename", "src/sales.py", input=ITERROWS)
    assert run.code == 1
    assert run.lines[0] == f"src/sales.py:{LINE}:{COL}: GPU102 {MESSAGE}"


def test_stdin_without_filename_is_shown_as_dash(project, cli):
    run = cli("check", "-", input=ITERROWS)
    assert run.lines[0].startswith(f"-:{LINE}:{COL}: GPU102")


def test_stdin_fix_prints_fixed_code_only_on_stdout(project, cli):
    run = cli("check", "--fix", "--unsafe-fixes", "-", "--stdin-filename", "sales.py", input=ITERROWS)
    assert run.code == 0
    assert run.stdout == ITERROWS_FIXED
    assert "Fixed 1 finding in 1 file." in run.errors
    assert not (project / "sales.py").exists()


def test_stdin_fix_with_nothing_to_fix_echoes_the_input(project, cli):
    run = cli("check", "--fix", "-", "--stdin-filename", "sales.py", input=ITERROWS)
    assert run.stdout == ITERROWS
    assert run.code == 1
    assert run.errors[0].startswith(f"sales.py:{LINE}:{COL}: GPU102")


def test_stdin_fix_keeps_undecodable_input_byte_for_byte(project, cli):
    data = b'x = "caf\xe9"\n'
    run = cli("check", "--fix", "-", "--stdin-filename", "x.py", input=data)
    assert run.code == 2
    assert run.stdout_bytes == data
    assert any(line.startswith("error: x.py: cannot decode as utf-8") for line in run.errors)


def test_stdin_and_files_in_one_run(project, cli):
    write(project / "a.py", ITERROWS)
    run = cli("check", "-", "a.py", "--stdin-filename", "b.py", input=ITERROWS)
    assert [line.split(":")[0] for line in run.lines[:2]] == ["b.py", "a.py"]


def test_stdin_honours_per_file_ignores_of_its_filename(project, cli):
    write(project / "pyproject.toml", '[tool.gpulint]\nper-file-ignores = { "legacy/*.py" = ["GPU102"] }\n')
    assert cli("check", "-", "--stdin-filename", "legacy/old.py", input=ITERROWS).code == 0
    assert cli("check", "-", "--stdin-filename", "new/old.py", input=ITERROWS).code == 1


def test_stdin_force_exclude(project, cli):
    write(project / "pyproject.toml", '[tool.gpulint]\nexclude = ["vendored/"]\n')
    args = ("check", "-", "--stdin-filename", "vendored/x.py")
    assert cli(*args, input=ITERROWS).code == 1
    excluded = cli(*args, "--force-exclude", input=ITERROWS)
    assert excluded.code == 0 and "GPU102" not in excluded.stdout
    fixed = cli(*args, "--force-exclude", "--fix", "--unsafe-fixes", input=ITERROWS)
    assert fixed.stdout == ITERROWS  # excluded: passed through untouched


# -- discovery: folders, .gitignore, exclude -------------------------------------------------


def _git_project(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / ".gitignore", "generated/\n*_tmp.py\n!keep_tmp.py\n")
    write(root / "src" / "nested" / ".gitignore", "local.py\n")
    for name in [
        "src/a.py",
        "src/nested/b.py",
        "src/nested/local.py",
        "generated/g.py",
        "scratch_tmp.py",
        "keep_tmp.py",
        "vendored/v.py",
        ".venv/lib/site.py",
        "notes.txt",
    ]:
        write(root / name, ITERROWS)


def _files(run) -> list[str]:
    return sorted({line.split(":")[0] for line in run.lines if ": GPU" in line})


def test_folders_honour_gitignore(project, cli):
    _git_project(project)
    run = cli("check", ".")
    assert _files(run) == ["keep_tmp.py", "src/a.py", "src/nested/b.py", "vendored/v.py"]


def test_folders_honour_gitignore_from_a_subfolder(project, cli, monkeypatch):
    _git_project(project)
    monkeypatch.chdir(project / "src")
    assert _files(cli("check", "..")) == ["../keep_tmp.py", "../src/a.py", "../src/nested/b.py", "../vendored/v.py"]
    assert _files(cli("check", "nested")) == ["nested/b.py"]


def test_exclude_and_respect_gitignore_from_config(project, cli):
    _git_project(project)
    write(project / "pyproject.toml", '[tool.gpulint]\nexclude = ["vendored/", "keep_*.py"]\n')
    assert _files(cli("check", ".")) == ["src/a.py", "src/nested/b.py"]
    write(project / "pyproject.toml", "[tool.gpulint]\nrespect-gitignore = false\n")
    assert "generated/g.py" in _files(cli("check", "."))
    assert ".venv/lib/site.py" not in _files(cli("check", "."))  # never walked into


def test_explicit_files_are_linted_even_if_ignored(project, cli):
    _git_project(project)
    write(project / "pyproject.toml", '[tool.gpulint]\nexclude = ["vendored/"]\n')
    run = cli("check", "generated/g.py", "vendored/v.py", "scratch_tmp.py")
    assert _files(run) == ["generated/g.py", "scratch_tmp.py", "vendored/v.py"]


def test_explicit_files_with_other_suffixes_are_linted(project, cli):
    write(project / "script", ITERROWS)
    assert _files(cli("check", "script")) == ["script"]
    write(project / "folder" / "script", ITERROWS)
    assert cli("check", "folder").code == 0  # a folder walk takes .py/.pyi only


def test_force_exclude_applies_exclude_to_explicit_files(project, cli):
    write(project / "pyproject.toml", '[tool.gpulint]\nexclude = ["vendored/", "gen_*.py"]\n')
    write(project / "vendored" / "v.py", ITERROWS)
    write(project / "gen_x.py", ITERROWS)
    write(project / "src" / "a.py", ITERROWS)
    run = cli("check", "--force-exclude", "vendored/v.py", "gen_x.py", "src/a.py")
    assert _files(run) == ["src/a.py"]
    run = cli("check", "--force-exclude", "vendored/v.py")
    assert run.code == 0


def test_file_named_twice_is_linted_once(project, cli):
    write(project / "a.py", ITERROWS)
    run = cli("check", "a.py", "./a.py", ".")
    assert sum(": GPU102" in line for line in run.lines) == 1


# -- the rule command ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["GPU102", "gpu102", "iterrows-loop"])
def test_rule_by_code_or_name(cli, key):
    run = cli("rule", key)
    assert run.code == 0
    assert run.lines[0] == "# iterrows-loop (GPU102)"
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert section in run.lines
    assert "iterrows()" in run.stdout


def test_rule_json_for_one_rule(cli):
    run = cli("rule", "iterrows-loop", "--format", "json")
    data = json.loads(run.stdout)
    assert data["code"] == "GPU102" and data["name"] == "iterrows-loop" and data["fix"] == "unsafe"


def test_rule_all_json_documents_every_rule(cli):
    run = cli("rule", "--all", "--format", "json")
    assert run.code == 0
    data = json.loads(run.stdout)
    assert [entry["code"] for entry in data] == [rule.code for rule in all_rules()]
    for entry in data:
        for key in ("what_it_does", "why_is_this_bad", "example", "fix_safety"):
            assert entry[key].strip(), f"{entry['code']} has an empty {key}"
        assert "use_instead" in entry
        if entry["fix"] != "none":
            assert entry["use_instead"].strip(), f"{entry['code']} has a fix but no use_instead"


def test_rule_all_text(cli):
    run = cli("rule", "--all")
    assert run.code == 0
    for rule in all_rules():
        assert f"# {rule.name} ({rule.code})" in run.lines


def test_unknown_rule_exits_2(cli):
    run = cli("rule", "GPU999")
    assert run.code == 2
    assert run.stdout == ""
    assert run.errors == ["error: unknown rule 'GPU999' (see `gpulint rule --all`)"]
    assert cli("rule").code == 2


# -- the installed console script, as a real process ---------------------------------------------


@pytest.mark.slow
def test_console_script_exit_codes(tmp_path, gpulint_exe):
    write(tmp_path / "clean.py", CLEAN)
    write(tmp_path / "sales.py", ITERROWS)
    assert gpulint_exe("check", "clean.py", cwd=tmp_path).code == 0
    found = gpulint_exe("check", "sales.py", cwd=tmp_path)
    assert found.code == 1
    assert found.lines[0] == f"sales.py:{LINE}:{COL}: GPU102 {MESSAGE}"
    missing = gpulint_exe("check", "nowhere.py", cwd=tmp_path)
    assert missing.code == 2
    assert missing.errors == ["error: nowhere.py: no such file or directory"]
    version = gpulint_exe("--version", cwd=tmp_path)
    assert version.code == 0 and __version__ in version.stdout


def test_console_script_fix_and_stdin(tmp_path, gpulint_exe):
    path = write(tmp_path / "sales.py", ITERROWS)
    piped = gpulint_exe(
        "check", "--fix", "--unsafe-fixes", "-", "--stdin-filename", "sales.py", cwd=tmp_path, input=ITERROWS.encode()
    )
    assert piped.code == 0 and piped.stdout == ITERROWS_FIXED
    assert path.read_text() == ITERROWS
    fixed = gpulint_exe("check", "--fix", "--unsafe-fixes", "sales.py", cwd=tmp_path)
    assert fixed.code == 0
    assert path.read_text() == ITERROWS_FIXED


@pytest.mark.slow
def test_console_script_rule_json(tmp_path, gpulint_exe):
    run = gpulint_exe("rule", "--all", "--format", "json", cwd=tmp_path)
    assert run.code == 0
    assert "GPU102" in [entry["code"] for entry in json.loads(run.stdout)]
    assert gpulint_exe("rule", "nope", cwd=tmp_path).code == 2


def test_a_folder_without_python_files_says_so(tmp_path, cli):
    (tmp_path / "notes.txt").write_text("nothing to lint")
    run = cli("check", str(tmp_path))
    assert run.code == 0
    assert "warning: no Python files found" in run.stderr


# -- internal errors and --debug ---------------------------------------------------------------


@pytest.fixture
def crashing_run(project, monkeypatch):
    """A run in which the engine itself fails (not a rule, not a file): the last line of
    defence in the command reports it."""
    import gpulint.cli

    def crash(*args, **kwargs):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(gpulint.cli, "lint_paths", crash)
    write(project / "sales.py", ITERROWS)
    return lambda *args: invoke("check", *args, "sales.py")


def test_internal_error_suggests_debug_and_hides_the_traceback(crashing_run):
    result = crashing_run()
    assert result.code == 2
    assert result.stderr.splitlines() == [
        "error: internal error: RuntimeError: engine exploded",
        "Please report this with the file that caused it (`--debug` prints the traceback).",
    ]


def test_debug_prints_the_traceback_of_an_internal_error(crashing_run):
    result = crashing_run("--debug")
    assert result.code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == "error: internal error: RuntimeError: engine exploded"
    assert "Traceback (most recent call last):" in lines
    assert "RuntimeError: engine exploded" in lines
    assert "--debug" not in lines[-1]


@pytest.mark.parametrize("debug", [False, True])
def test_a_rules_internal_error_carries_its_traceback_with_debug(project, monkeypatch, debug):
    """A rule that raises costs its file, reported on one line; with `--debug` the line is
    followed by the traceback a bug report needs (the rule's own frame in it)."""
    from gpulint.diagnostic import DEBUG_VARIABLE
    from gpulint.registry import rule_by_key

    def exploding_check(self, node, ctx):
        raise RuntimeError("rule exploded")

    monkeypatch.setattr(rule_by_key("GPU102"), "check", exploding_check)
    monkeypatch.setenv(DEBUG_VARIABLE, "")  # restored (unset) afterwards, whatever `--debug` sets
    write(project / "sales.py", ITERROWS)
    result = invoke("check", "--no-cache", *(["--debug"] if debug else []), "sales.py")
    assert "internal error in rule GPU102" in result.stderr and "rule exploded" in result.stderr
    assert ("Traceback (most recent call last):" in result.stderr) is debug
    assert ("exploding_check" in result.stderr) is debug
    output = result.stdout + result.stderr
    [summary] = [line for line in output.splitlines() if "could not be checked" in line]
    assert "rule exploded" in summary and "Traceback" not in summary  # told once, not again there
    assert os.environ[DEBUG_VARIABLE] == ""  # the run put back what it found


def test_debug_is_documented_and_harmless_without_an_error(project, cli):
    assert "--debug" in cli("check", "--help").stdout
    write(project / "sales.py", ITERROWS)
    assert cli("check", "--debug", "sales.py").code == 1


# -- --output-file and --show-settings ---------------------------------------------------------


@pytest.mark.parametrize("fmt", ["concise", "json"])
def test_output_file_takes_the_report_and_keeps_the_exit_code(project, cli, fmt):
    write(project / "sales.py", ITERROWS)
    write(project / "clean.py", CLEAN)
    plain = cli("check", "--output-format", fmt, ".")
    run = cli("check", "--output-format", fmt, "--output-file", "out/report.txt", ".")
    assert run.code == plain.code == 1
    assert run.stdout == ""
    assert (project / "out" / "report.txt").read_text(encoding="utf-8") == plain.stdout
    clean = cli("check", "-o", "out/report.txt", "clean.py")
    assert clean.code == 0 and clean.stdout == ""
    assert (project / "out" / "report.txt").read_text() == "All checks passed.\n"  # replaced, not appended


def test_output_file_with_diff_keeps_the_diff_on_stdout(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--diff", "--unsafe-fixes", "--output-format", "concise", "-o", "report.txt", "sales.py")
    assert run.code == 1
    assert run.lines[:2] == ["--- a/sales.py", "+++ b/sales.py"]
    assert "Would fix 1 finding in 1 file." in (project / "report.txt").read_text()


def test_output_file_errors_exit_2(project, cli):
    write(project / "sales.py", ITERROWS)
    (project / "folder").mkdir()
    run = cli("check", "--output-file", "folder", "sales.py")
    assert run.code == 2 and "folder" in run.stderr
    write(project / "blocker", "a file where a folder should be")
    run = cli("check", "--output-file", "blocker/report.txt", "sales.py")
    assert run.code == 2
    assert run.errors[-1].startswith("error: --output-file blocker/report.txt: cannot write:"), run.errors


def _settings(run) -> dict[str, str]:
    return dict(line.split(" = ", 1) for line in run.lines if " = " in line)


def test_show_settings_prints_the_resolved_configuration_and_exits_0(project, cli):
    write(
        project / "pyproject.toml",
        '[tool.gpulint]\nignore = ["GPU104"]\nexclude = ["build/"]\n'
        'per-file-ignores = { "legacy/**" = ["GPU102"], "tests/**" = ["GPU101"] }\n',
    )
    write(project / "legacy" / "old.py", ITERROWS)
    run = cli("check", "--show-settings", "--unsafe-fixes", "--extend-select", "GPU104", "legacy/old.py")
    assert run.code == 0
    assert run.lines[0] == 'Resolved settings for: "legacy/old.py"'
    assert run.lines[1] == f'Settings path: "{project.resolve() / "pyproject.toml"}"'
    settings = _settings(run)
    assert settings["ignore"] == "[]"  # --extend-select lifted the configured ignore
    assert settings["unsafe-fixes"] == "true"
    assert settings["exclude"] == '["build/"]'
    assert settings["per-file-ignores-applied"] == '{ "legacy/**" = ["GPU102"] }'
    assert '"GPU102 iterrows-loop"' not in settings["rules"] and '"GPU104 apply-axis-1"' in settings["rules"]
    assert settings["excluded"] == "false"
    assert "GPU102" not in run.stdout.split("per-file-ignores-applied")[1].split("rules = ")[1]


def test_show_settings_of_a_folder_uses_its_first_file_and_defaults_without_config(project, cli):
    write(project / "src" / "b.py", CLEAN)
    write(project / "src" / "a.py", CLEAN)
    run = cli("check", "--show-settings", "src")
    assert run.code == 0
    assert run.lines[:2] == ['Resolved settings for: "src/a.py"', "Settings path: none (gpulint's defaults)"]
    assert _settings(run)["excluded"] == "false"
    assert _settings(cli("check", "--show-settings", "--extend-exclude", "src/a.py", "src/a.py"))["excluded"] == "true"


def test_show_settings_errors_exit_2(project, cli):
    write(project / "a.py", CLEAN)
    (project / "empty").mkdir()
    for args, message in (
        (["a.py", "b.py"], "--show-settings expects a single path"),
        (["empty"], "no Python file found under empty"),
        (["--select", "GPU999", "a.py"], "unknown rule selector 'GPU999'"),
    ):
        run = cli("check", "--show-settings", *args)
        assert run.code == 2, args
        assert message in run.stderr


# -- the synopsis the README and docs/cli.md share ---------------------------------------------


def _usage_block(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split("<!-- usage:start -->", 1)[1].split("<!-- usage:end -->", 1)[0]


def test_readme_usage_is_the_synopsis_of_docs_cli():
    root = Path(__file__).resolve().parents[1]
    assert _usage_block(root / "README.md") == _usage_block(root / "docs" / "cli.md"), (
        "the README's Usage block and docs/cli.md's synopsis differ: copy docs/cli.md's into the README"
    )


def test_every_check_option_is_in_the_synopsis(cli):
    synopsis = _usage_block(Path(__file__).resolve().parents[1] / "docs" / "cli.md")
    # The options as `gpulint check --help` lists them (each at the start of its line), less
    # --help and the --no- form of a flag.
    listed = re.findall(r"^  (?:-\w, )?(--[\w-]+)", cli("check", "--help").stdout, re.MULTILINE)
    options = [
        name for name in listed if name != "--help" and not (name.startswith("--no-") and "--" + name[5:] in listed)
    ]
    assert "--add-noqa" in options and "--watch" in options and "--no-cache" in options
    missing = [name for name in options if name not in synopsis]
    assert not missing, f"options missing from docs/cli.md's synopsis: {missing}"
    commands = re.search(r"\{([\w,]+)\}", cli("--help").stdout).group(1).split(",")
    assert "check" in commands and "readiness" in commands
    missing = [name for name in commands if f"gpulint {name}" not in synopsis]
    assert not missing, f"commands missing from the synopsis: {missing}"


def test_show_settings_names_the_config_file_given_with_config(project, cli):
    write(project / "conf" / "pyproject.toml", '[tool.gpulint]\nselect = ["GPU1"]\n')
    write(project / "a.py", CLEAN)
    run = cli("check", "--show-settings", "--config", "conf/pyproject.toml", "a.py")
    assert run.code == 0
    assert run.lines[1] == f'Settings path: "{project / "conf" / "pyproject.toml"}"'
    assert '"GPU201 array-element-loop"' not in _settings(run)["rules"]
    assert '"GPU102 iterrows-loop"' in _settings(run)["rules"]
