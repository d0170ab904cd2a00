"""Packaging: three source folders (`linter/`, `rules/`, `fixers/`) install as one
`gpulint` namespace, both from a wheel and in an editable install.

The wheel is built from a clean copy of the project (so that a stale `build/` folder
cannot hide a missing package), installed into a fresh virtual environment, and used
from there: imports, the console script, and a rule that lives in a family folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
#: Source folder -> import package, as the build backend maps them.
SOURCE_FOLDERS = {
    "linter": "gpulint",
    "rules": "gpulint.rules",
    "fixers": "gpulint.fixers",
    "benchmarks": "gpulint.benchmarks",
}
FORBIDDEN_TOP_LEVEL = {"linter", "rules", "fixers", "tests", "benchmarks", "examples"}
_COPY_IGNORE = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".venv", ".benchmarks", ".corpus", "*.pyc"
)


def _package_dirs(folder: str) -> list[Path]:
    return sorted(p.parent for p in (ROOT / folder).rglob("__init__.py") if _shipped(p))


def _shipped(path: Path) -> bool:
    """Not a cache, nor a hidden folder (such as the benchmarks' downloaded corpus)."""
    return "__pycache__" not in path.parts and not any(part.startswith(".") for part in path.relative_to(ROOT).parts)


def _package_name(directory: Path) -> str:
    folder, *rest = directory.relative_to(ROOT).parts
    return ".".join([SOURCE_FOLDERS[folder], *rest])


def _run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(args, capture_output=True, text=True, timeout=180, **kwargs)
    assert result.returncode == 0, f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result


# -- the package list in pyproject.toml ------------------------------------------------------


def test_package_dir_maps_the_three_source_folders():
    mapping = SETUPTOOLS["package-dir"]
    assert mapping == {
        "gpulint": "linter",
        "gpulint.rules": "rules",
        "gpulint.fixers": "fixers",
        "gpulint.benchmarks": "benchmarks",
    }


@pytest.mark.parametrize("folder", sorted(SOURCE_FOLDERS))
def test_every_package_folder_is_listed_in_pyproject(folder):
    listed = set(SETUPTOOLS["packages"])
    missing = [_package_name(d) for d in _package_dirs(folder) if _package_name(d) not in listed]
    assert not missing, f"add these to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_every_listed_package_exists():
    folders = {_package_name(d) for name in SOURCE_FOLDERS for d in _package_dirs(name)}
    stale = sorted(set(SETUPTOOLS["packages"]) - folders)
    assert not stale, f"pyproject.toml lists packages with no folder and __init__.py: {stale}"


@pytest.mark.parametrize("folder", ["rules", "fixers"])
def test_every_folder_with_modules_is_a_package(folder):
    # A family folder without __init__.py would be skipped by the rule registry's
    # package walk and left out of wheels.
    without_init = [
        str(directory.relative_to(ROOT))
        for directory in sorted({p.parent for p in (ROOT / folder).rglob("*.py")})
        if "__pycache__" not in directory.parts and not (directory / "__init__.py").exists()
    ]
    assert not without_init, f"folders with Python modules but no __init__.py: {without_init}"


# -- editable install ------------------------------------------------------------------------


def _editable() -> bool:
    # More than one distribution may be visible (a `gpulint.egg-info` left in the project
    # folder by a build, say); the installed one records how it was installed.
    for dist in metadata.distributions(name="gpulint"):
        text = dist.read_text("direct_url.json")
        if text and json.loads(text).get("dir_info", {}).get("editable", False):
            return True
    return False


def test_editable_install_imports_the_source_folders():
    if not _editable():
        pytest.skip("gpulint is not installed in editable mode in this environment")
    import gpulint
    import gpulint.fixers
    import gpulint.rules
    import gpulint.rules.dataframe

    assert Path(gpulint.__file__).resolve() == ROOT / "linter" / "__init__.py"
    assert Path(gpulint.rules.__file__).resolve() == ROOT / "rules" / "__init__.py"
    assert Path(gpulint.rules.dataframe.__file__).resolve() == ROOT / "rules" / "dataframe" / "__init__.py"
    assert Path(gpulint.fixers.__file__).resolve() == ROOT / "fixers" / "__init__.py"


# -- the wheel ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    project = work / "project"
    shutil.copytree(ROOT, project, ignore=_COPY_IGNORE)
    out = work / "dist"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--disable-pip-version-check",
            "-q",
            "-w",
            str(out),
            str(project),
        ]
    )
    [built] = out.glob("gpulint-*.whl")
    return built


@pytest.mark.slow
def test_wheel_holds_every_module_under_gpulint(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    code = [n for n in names if ".dist-info/" not in n]
    assert code, names
    top_level = {n.split("/", 1)[0] for n in code}
    assert top_level == {"gpulint"}, top_level
    assert not (top_level & FORBIDDEN_TOP_LEVEL)
    dist_info_top = [n for n in names if n.endswith(".dist-info/top_level.txt")]
    for entry in dist_info_top:
        assert zipfile.ZipFile(wheel).read(entry).decode().split() == ["gpulint"]

    expected = set()
    for folder, package in SOURCE_FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            if not _shipped(path):
                continue
            relative = path.relative_to(ROOT / folder).as_posix()
            # linter/ is the root of the namespace; rules/ and fixers/ sit below it
            expected.add(f"{package.replace('.', '/')}/{relative}")
    assert expected <= set(code), f"missing from the wheel: {sorted(expected - set(code))}"
    assert "gpulint/rules/dataframe/iterrows_loop.py" in code
    assert "gpulint/fixers/iterrows_loop.py" in code
    assert "gpulint/rules/__init__.py" in code and "gpulint/fixers/__init__.py" in code


@pytest.mark.slow
def test_wheel_installs_and_runs_on_its_own(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    # The interpreter running the tests supplies the dependencies (libcst, pathspec, ...) without
    # a download, whether it is a virtual environment or not: its site-packages folders are
    # put on the new environment's path by a plain path line, so the `.pth` files there (an
    # editable gpulint among them) are not processed. gpulint itself must come from the
    # wheel, which the checks below make sure of.
    paths = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    own_site = Path(paths.stdout.strip())
    own_site.mkdir(parents=True, exist_ok=True)
    lines = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (own_site / "gpulint-test-dependencies.pth").write_text("\n".join(sorted(lines)) + "\n")
    _run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--ignore-installed",
            "--no-index",
            "--disable-pip-version-check",
            "-q",
            str(wheel),
        ]
    )

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONNOUSERSITE"] = "1"
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()

    probe = (
        "import json, gpulint, gpulint.rules, gpulint.fixers, gpulint.rules.dataframe.iterrows_loop, "
        "gpulint.fixers.iterrows_loop\n"
        "print(json.dumps({'gpulint': gpulint.__file__, 'rules': gpulint.rules.__file__, "
        "'fixers': gpulint.fixers.__file__, 'codes': [r.code for r in gpulint.all_rules()]}))\n"
    )
    result = _run([str(python), "-c", probe], cwd=run_dir, env=env)
    found = json.loads(result.stdout.strip().splitlines()[-1])
    site = Path(venv).resolve()
    for key in ("gpulint", "rules", "fixers"):
        location = Path(found[key]).resolve()
        assert site in location.parents, f"{key} imported from {location}, not from the wheel in {site}"
        assert ROOT not in location.parents
    assert Path(found["rules"]).parent.name == "rules" and Path(found["rules"]).parent.parent.name == "gpulint"
    assert "GPU102" in found["codes"]

    script = bindir / ("gpulint.exe" if os.name == "nt" else "gpulint")
    assert script.exists(), "the console script was not installed"
    version = _run([str(script), "--version"], cwd=run_dir, env=env)
    assert PYPROJECT["project"]["version"] in version.stdout + version.stderr
    doc = _run([str(script), "rule", "GPU102"], cwd=run_dir, env=env)
    assert "iterrows" in doc.stdout
    assert "What it does" in doc.stdout or "iterrows-loop" in doc.stdout


# -- what the README tells a new user to run ---------------------------------------------------

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    """The README's text under the heading `title`, up to the next heading of any level."""
    start = README.index(f"{title}\n")
    rest = README[start + len(title) + 1 :]
    end = min((rest.index(mark) for mark in ("\n## ", "\n### ") if mark in rest), default=len(rest))
    return rest[:end]


def _yaml_blocks(text: str) -> list[str]:
    return [block.split("```", 1)[0] for block in text.split("```yaml\n")[1:]]


def test_readme_installs_only_from_this_project_and_names_real_extras():
    import re

    commands = re.findall(r"pip install [^`\n]*", README)
    assert commands, "the README says how to install"
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    for command in commands:
        # gpulint is not on PyPI: every install is of this folder (or a git URL of it)
        assert "gpulint[" not in command and "'gpulint" not in command, command
        for named in re.findall(r"\.\[([a-z,]+)\]", command):
            assert set(named.split(",")) <= extras, command
    assert "pip install .\n" in README, "the README says how to install the linter alone"
    assert "pip install -e '.[dev]'" in README, "the README says how to set up development"


def _git(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_readme_pre_commit_rev_exists_and_ships_the_hooks_it_names():
    import yaml

    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout of gpulint")
    remote = [yaml.safe_load(block) for block in _yaml_blocks(_section("### pre-commit"))]
    repos = [repo for config in remote for repo in config["repos"] if repo["repo"] != "local"]
    assert repos, "the README shows how to use gpulint's own hook repository"
    for repo in repos:
        rev = repo["rev"]
        found = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        assert found.returncode == 0, f"rev {rev!r} of the README's pre-commit snippet is not in this repository"
        manifest = yaml.safe_load(_git("show", f"{rev}:.pre-commit-hooks.yaml").stdout)
        assert {hook["id"] for hook in repo["hooks"]} <= {hook["id"] for hook in manifest}
        # the hooks at that commit are the hooks of today: same entries, arguments and files
        assert manifest == yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")), (
            f"the hooks changed since {rev}: pin a newer commit in the README's pre-commit snippet"
        )


@pytest.mark.slow
def test_readme_local_pre_commit_hook_runs_as_written(tmp_path):
    import yaml

    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists() or shutil.which("git") is None:
        pytest.skip("needs pre-commit and git")
    [local] = [block for block in _yaml_blocks(_section("### pre-commit")) if "repo: local" in block]
    assert yaml.safe_load(local)["repos"][0]["hooks"][0]["entry"].startswith("gpulint check")
    repo = tmp_path / "user"
    repo.mkdir()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "PRE_COMMIT_COLOR": "never",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t.invalid",
        # the hook runs the `gpulint` on PATH, as it would for a user who installed it
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    (repo / ".pre-commit-config.yaml").write_text(local)
    (repo / "sales.py").write_text(
        'import pandas as pd\n\ndef f(s: pd.DataFrame):\n    s["price"][s["price"] < 0] = 0\n'
    )
    (repo / "clean.py").write_text("x = 1\n")
    assert _git("init", "-q", cwd=repo).returncode == 0
    assert _git("add", ".", cwd=repo).returncode == 0
    found = subprocess.run(
        [str(pre_commit), "run", "--all-files"], cwd=repo, capture_output=True, text=True, env=env, timeout=300
    )
    assert found.returncode == 1, found.stdout + found.stderr
    assert "GPU107" in found.stdout and "sales.py" in found.stdout
    (repo / "sales.py").write_text("x = 2\n")
    clean = subprocess.run(
        [str(pre_commit), "run", "--all-files"], cwd=repo, capture_output=True, text=True, env=env, timeout=300
    )
    assert clean.returncode == 0, clean.stdout + clean.stderr
