"""The docs site (`mkdocs.yml`, `docs/`): it builds strictly, every rule URL gpulint prints
is one of its pages, a real browser renders a rule page, and the speed figures in the rules'
prose come from the committed benchmark results.

The tests that build the site skip when MkDocs is not installed (`pip install -e '.[docs]'`);
the browser test also skips when no Chromium is installed."""

from __future__ import annotations

import html
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from gpulint.benchmarks.results import cell_speedup, format_seconds, measured
from gpulint.docs import FIGURE, RULES_INDEX, doc_sections, fill_figures, measured_figure, site_path
from gpulint.registry import DOCS_HOME, DOCS_URL, all_rules, rule_by_key

ROOT = Path(__file__).resolve().parent.parent
RULES = all_rules()

#: A speed figure typed by hand: "900x", "2,000x", "40 times faster", "490 ms", "3.8 s".
HAND_TYPED = re.compile(
    r"(?<![\w.])\d[\d,.]*x\b"
    r"|(?<![\w.])\d[\d,.]*\s+times\s+(?:faster|slower)"
    r"|(?<![\w.])\d[\d,.]*\s+(?:s|ms|µs|us|ns|seconds|milliseconds|microseconds)\b"
)


def _built_page(site: Path, url: str) -> Path:
    """The built HTML file a docs URL is served from."""
    assert url.startswith(DOCS_HOME), url
    relative = urlsplit(url).path[len(urlsplit(DOCS_HOME).path) :]
    return site / relative / "index.html"


def _text(page_html: str) -> str:
    """The visible text of a page's article, whitespace collapsed."""
    article = page_html[page_html.find("<article") : page_html.rfind("</article>")]
    article = re.sub(r"<(script|style)\b.*?</\1>", " ", article, flags=re.DOTALL)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", article)))


# -- one URL pattern ----------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_url_follows_the_one_pattern(rule):
    assert rule.url() == DOCS_URL.format(name=rule.name, code=rule.code)
    assert rule.url().startswith(DOCS_HOME)
    assert site_path(rule.url()).endswith(".md")


def test_rule_urls_map_to_distinct_pages():
    paths = [site_path(rule.url()) for rule in RULES]
    assert len(set(paths)) == len(paths)


def test_a_url_outside_the_site_is_refused():
    with pytest.raises(ValueError):
        site_path("https://example.org/rules/iterrows-loop/")


# -- speed figures in prose ----------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_prose_has_no_hand_typed_speed_figure(rule):
    doc = FIGURE.sub("", rule.__doc__ or "")
    typed = [match.group(0) for match in HAND_TYPED.finditer(doc)]
    assert not typed, (
        f"{rule.code}'s docstring types speed figures by hand: {typed}; write "
        "`{speedup:N}` (or `{before:N}`/`{after:N}`) to quote the committed results"
    )


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_figure_placeholders_resolve_in_the_committed_results(rule):
    for match in FIGURE.finditer(rule.__doc__ or ""):
        kind, n, backend = match.groups()
        assert measured_figure(rule.code, kind, int(n.replace("_", "")), backend) is not None, (
            f"{rule.code}: {match.group(0)} was not measured in benchmarks/results/"
        )
    assert not any(FIGURE.search(body) for body in doc_sections(rule).values())


def test_placeholders_are_the_measured_figures_at_their_size():
    _, sweep = measured("GPU102")[0]
    by_n = {point.n: point for point in sweep.points}
    timed = next(point for point in sweep.points if point.speedup is not None)
    text = fill_figures(f"{{speedup:{timed.n}}} / {{before:{timed.n}}} / {{after:{timed.n}}}", "GPU102")
    assert text == f"{cell_speedup(by_n[timed.n])} / {format_seconds(timed.before)} / {format_seconds(timed.after)}"
    assert fill_figures("{speedup:12345}", "GPU102") == "{speedup:12345}"
    assert fill_figures(f"{{speedup:{timed.n}:no-such-backend}}", "GPU102") == f"{{speedup:{timed.n}:no-such-backend}}"


def test_hand_typed_figures_are_recognised():
    for typed in ("about 900x faster", "2,000x at 100k", "roughly 40 times faster", "take 490 ms", "3.8 s"):
        assert HAND_TYPED.search(typed), typed
    for fine in ("{speedup:10000} faster", "a 200,000 x 20 array", "`int8` 100s", "GPU102", "float64"):
        assert not HAND_TYPED.search(FIGURE.sub("", fine)), fine


# -- the built site --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
    pytest.importorskip("material", reason="the docs extra is not installed: pip install -e '.[docs]'")
    pytest.importorskip("matplotlib", reason="the docs extra is not installed: pip install -e '.[docs]'")
    folder = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(folder),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "WARNING" not in run.stderr + run.stdout, run.stderr
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_rule_url_is_a_built_page(site, rule):
    page = _built_page(site, rule.url())
    assert page.is_file(), f"{rule.url()} has no page in the built site"
    text = page.read_text(encoding="utf-8")
    assert f'<link rel="canonical" href="{rule.url()}">' in text
    shown = _text(text)
    assert f"{rule.name} ({rule.code})" in shown
    for title in ("What it does", "Why is this bad?", "Example", "Fix safety"):
        assert title in shown, f"{rule.code}'s page lacks {title!r}"
    assert f"Fix : {rule.fix_label()}" in shown


@pytest.mark.slow
@pytest.mark.parametrize("rule", [r for r in RULES if measured(r.code)], ids=lambda r: r.code)
def test_rule_page_shows_the_committed_measurements_and_plot(site, rule):
    page = _built_page(site, rule.url())
    shown = _text(page.read_text(encoding="utf-8"))
    assert "Measured speedup" in shown
    for _, sweep in measured(rule.code):
        for point in sweep.points:
            assert f"{point.n:,}" in shown and cell_speedup(point) in shown
    plot = page.parent.parent / f"{page.parent.name}.png"
    assert plot.read_bytes().startswith(b"\x89PNG"), "the rule's speedup plot is missing"
    assert f'src="../{plot.name}"' in page.read_text(encoding="utf-8")


@pytest.mark.slow
def test_rule_index_links_every_rule(site):
    index = (site / "rules" / "index.html").read_text(encoding="utf-8")
    index_path = urlsplit(DOCS_HOME).path + posixpath.dirname(RULES_INDEX) + "/"
    for rule in RULES:
        link = posixpath.relpath(urlsplit(rule.url()).path, index_path) + "/"
        assert f'href="{link}"' in index, f"the rule table does not link {rule.code} ({link})"


@pytest.mark.slow
def test_benchmark_page_shows_the_committed_table(site):
    shown = _text((site / "benchmarks" / "index.html").read_text(encoding="utf-8"))
    assert "gpulint:bench-table" not in shown
    _, sweep = measured("GPU102")[0]
    assert all(cell_speedup(point) in shown for point in sweep.points)
    assert (site / "cpu.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow
def test_urls_in_json_and_sarif_findings_are_built_pages(site):
    urls = set()
    for output_format in ("json", "sarif"):
        run = subprocess.run(
            [sys.executable, "-m", "gpulint", "check", "--output-format", output_format, "examples/"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 1, run.stderr
        data = json.loads(run.stdout)
        if output_format == "json":
            urls |= {finding["url"] for finding in data}
        else:
            driver = data["runs"][0]["tool"]["driver"]
            assert driver["informationUri"] == DOCS_HOME
            urls |= {rule["helpUri"] for rule in driver["rules"]}
    assert len(urls) > 10
    for url in urls:
        assert _built_page(site, url).is_file(), f"{url} is not a page of the built site"


# -- a real browser --------------------------------------------------------------------------------


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.mark.slow
def test_browser_renders_a_rule_page(site, tmp_path):
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium)")
    rule = rule_by_key("GPU102")
    page = _built_page(site, rule.url())
    run = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    shown = _text(run.stdout)
    assert f"{rule.name} ({rule.code})" in shown
    assert "Why is this bad?" in shown and "Use instead" in shown and "Measured speedup" in shown
    _, sweep = measured(rule.code)[0]
    assert all(cell_speedup(point) in shown for point in sweep.points)
    assert "{speedup" not in shown
