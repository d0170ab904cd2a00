"""The ecosystem report: tier lookup, the difference against a baseline, label annotations,
the baseline file, and one run on a tiny corpus (no real corpus needed)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from benchmarks import ecosystem
from benchmarks.ecosystem import (
    Baseline,
    annotation,
    difference,
    dump_baseline,
    load_baseline,
    report,
    rule_tier,
)
from benchmarks.realcode.labels import Label, by_place
from benchmarks.realcode.recall import Finding

pytestmark = pytest.mark.real_tiers


def finding(line, code="GPU304", path="a.py", cell=None, last=None, repo="o/r", message=""):
    return Finding(repo, path, cell, code, line, last or line, message)


def label(line, verdict="instance", code="GPU304", path="a.py", cell=None, why="why"):
    return Label("o/r", path, cell, line, code, verdict, "gpulint", why, "")


def test_rule_tier_is_the_rules_tier_attribute():
    from gpulint.registry import Tier, all_rules

    families, tiers = ecosystem.registry()
    assert families["GPU102"] == "dataframe" and families["GPU001"] == "file" and set(families) == set(tiers)
    assert tiers == {rule.code: rule_tier(rule) for rule in all_rules()}
    assert all(rule_tier(rule) == rule.tier.value for rule in all_rules())
    assert {rule_tier(rule) for rule in all_rules()} <= {tier.value for tier in Tier}
    assert len(set(tiers.values())) > 1, "the registry's rules are not all in one tier"


def test_difference_is_by_place_and_rule_with_multiplicity():
    old = [finding(1), finding(5), finding(5), finding(9), finding(3, cell=2, path="n.ipynb")]
    new = [
        finding(1, message="same place"),
        finding(5),
        finding(9, code="GPU301"),
        finding(3, cell=4, path="n.ipynb"),
        finding(2),
    ]
    added, gone = difference(old, new)
    assert [(f.path, f.cell, f.first, f.code) for f in added] == [
        ("a.py", None, 2, "GPU304"),
        ("a.py", None, 9, "GPU301"),
        ("n.ipynb", 4, 3, "GPU304"),
    ]
    assert [(f.path, f.cell, f.first, f.code) for f in gone] == [
        ("a.py", None, 5, "GPU304"),
        ("a.py", None, 9, "GPU304"),
        ("n.ipynb", 2, 3, "GPU304"),
    ]
    assert difference(new, new) == ([], [])


def test_annotation_needs_same_file_cell_and_rule_and_a_line_in_the_span():
    groups = by_place(
        [
            label(5, why="moved every step"),
            label(12, "not", why="made on the device"),
            label(3, cell=2, path="n.ipynb", why="in a cell"),
        ]
    )
    assert annotation(finding(4, last=6), groups) == "instance: moved every step"
    assert annotation(finding(12), groups) == "not: made on the device"
    assert annotation(finding(3, cell=2, path="n.ipynb"), groups) == "instance: in a cell"
    assert annotation(finding(3, cell=3, path="n.ipynb"), groups) == "unlabelled"  # another cell
    assert annotation(finding(5, code="GPU301"), groups) == "unlabelled"  # another rule
    assert annotation(finding(6, last=11), groups) == "unlabelled"  # no labelled line in 6..11


def test_baseline_file_is_sorted_stable_and_reads_back(tmp_path):
    run = Baseline(
        [finding(9), finding(2, cell=1, path="n.ipynb"), finding(4, last=6, repo="a/b")],
        files=3,
        unreadable=["own+repo/z.ipynb: bad", "own+repo/b.ipynb: bad"],
        repos={"o/r": "c1", "a/b": "c2"},
        gpulint={"commit": "abc", "modified": False},
        arguments=["--select", "ALL"],
    )
    text = dump_baseline(run)
    data = json.loads(text)
    assert [row[:4] for row in data["findings"]] == [
        ["a/b", "a.py", None, 4],
        ["o/r", "a.py", None, 9],
        ["o/r", "n.ipynb", 1, 2],
    ]
    assert [repo["name"] for repo in data["repos"]] == ["a/b", "o/r"]
    assert data["unreadable"] == sorted(run.unreadable)
    assert len(text.splitlines()) > len(data["findings"])  # one finding a line
    path = tmp_path / "baseline.json"
    path.write_text(text, encoding="utf-8")
    again = load_baseline(path)
    assert dump_baseline(again) == text
    assert difference(again.findings, run.findings) == ([], [])
    assert load_baseline(tmp_path / "absent.json") is None
    path.write_text('{"format": 1}', encoding="utf-8")
    with pytest.raises(ecosystem.EcosystemError, match="not an ecosystem baseline"):
        load_baseline(path)


def test_report_counts_tiers_and_shares_and_annotates_the_difference():
    old = Baseline([finding(1), finding(7, code="GPU403")], repos={"o/r": "c1"})
    new = Baseline(
        [
            finding(1),
            finding(5, message="moved"),
            finding(8, code="GPU403"),
            finding(9, code="GPU403"),
            finding(10, code="GPU403"),
        ],
        repos={"o/r": "c1"},
    )
    tiers = {"GPU304": "default", "GPU403": "preview", "GPU101": "default"}
    families = {"GPU304": "transfers", "GPU403": "pipelines", "GPU101": "dataframe"}
    text = report(new, old, [label(5, why="moved every step")], families, tiers, "# header")
    assert "| default | 2 | 2 | 40.0% | 1 | 1 | 0 |" in text
    assert "| preview | 1 | 3 | 60.0% | 1 | 3 | 1 |" in text
    assert "| GPU101 (dataframe, default) | 0 | 0.0% | 0 | 0 | 0 |" in text
    assert (
        "Biggest rule: GPU403: 3 of 5 findings (60.0%); in the default tier: GPU304: 2 of 2 findings (100.0%)" in text
    )
    assert "- GPU304 o/r `a.py:5` — moved — label: instance: moved every step" in text
    assert "- GPU403 o/r `a.py:8` — label: unlabelled" in text
    assert "## Vanished findings (1)" in text and "- GPU403 o/r `a.py:7` — label: unlabelled" in text
    limited = report(new, old, [], families, tiers, "# header", limit=1)
    assert "… and 3 more" in limited
    assert "No baseline yet" in report(new, None, [], families, tiers, "# header")
    same = report(new, new, [], families, tiers, "# header")
    assert "0 new, 0 vanished (no difference)" in same


SCRIPT = 'import torch\n\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\nramp = [torch.arange(n).to(device) for n in range(9)]\n'


@pytest.mark.slow
def test_main_on_a_tiny_corpus(tmp_path, capsys):
    repos = tmp_path / "repos.toml"
    repos.write_text('[[repo]]\nname = "own/repo"\ncommit = "0123"\nwhy = "test"\n', encoding="utf-8")
    corpus = tmp_path / "corpus"
    (corpus / "own+repo" / "src").mkdir(parents=True)
    (corpus / "own+repo" / "src" / "a.py").write_text(SCRIPT, encoding="utf-8")
    (corpus / "own+repo" / "broken.ipynb").write_text("not json", encoding="utf-8")
    labels = tmp_path / "transfers.csv"
    labels.write_text(
        "repo,path,cell,line,code,verdict,source,why,snippet\n"
        "own/repo,src/a.py,,4,GPU304,instance,gpulint,arange moved after it is made,\n",
        encoding="utf-8",
    )
    baseline, output = tmp_path / "baseline.json", tmp_path / "report.md"
    common = ["--repos", str(repos), "--corpus", str(corpus), "--baseline", str(baseline), "--labels", str(labels)]
    assert ecosystem.main([*common, "--update-baseline", "--output", str(output)]) == 0
    data = json.loads(baseline.read_text(encoding="utf-8"))
    assert ["own/repo", "src/a.py", None, 4, 4, "GPU304"] in data["findings"]
    assert data["repos"] == [{"name": "own/repo", "commit": "0123"}] and data["files"] == 2
    assert [line.split(":")[0] for line in data["unreadable"]] == ["own+repo/broken.ipynb"]
    assert str(tmp_path) not in baseline.read_text(encoding="utf-8")
    assert "(no difference)" in output.read_text(encoding="utf-8")

    (corpus / "own+repo" / "src" / "a.py").write_text(SCRIPT.replace("ramp = ", "\nramp = "), encoding="utf-8")
    capsys.readouterr()
    assert ecosystem.main(common) == 0
    out = capsys.readouterr().out
    assert "- GPU304 own/repo `src/a.py:5`" in out and "label: unlabelled" in out
    assert "## Vanished findings (1)" in out and "`src/a.py:4` — label: instance: arange moved after it is made" in out

    baseline.write_text("{", encoding="utf-8")
    assert ecosystem.main(common) == 2
    assert "cannot read the baseline" in capsys.readouterr().err


def test_missing_corpus_or_repository_exits_2(tmp_path, capsys):
    assert ecosystem.main(["--corpus", str(tmp_path / "nothing")]) == 2
    assert "no corpus here" in capsys.readouterr().err
    repos = tmp_path / "repos.toml"
    repos.write_text('[[repo]]\nname = "own/repo"\ncommit = "0123"\nwhy = "test"\n', encoding="utf-8")
    assert ecosystem.main(["--repos", str(repos), "--corpus", str(tmp_path)]) == 2
    assert "lacks own/repo" in capsys.readouterr().err


def test_a_default_rules_preview_behaviour_is_its_own_tier_and_reads_back(tmp_path):
    run = Baseline(
        [
            finding(1, code="GPU308"),
            replace(finding(2, code="GPU308"), preview=True),
            replace(finding(3, code="GPU308"), preview=True),
            finding(4, code="GPU001"),
        ],
        repos={"o/r": "c1"},
    )
    path = tmp_path / "baseline.json"
    path.write_text(dump_baseline(run), encoding="utf-8")
    again = load_baseline(path)
    assert [f.preview for f in again.findings] == [False, True, True, False]
    assert json.loads(path.read_text(encoding="utf-8"))["findings"][1][-1] == "preview behaviour"
    tiers = {"GPU308": "default", "GPU001": "default"}
    families = {"GPU308": "transfers", "GPU001": "file"}
    text = report(again, again, [], families, tiers, "# header")
    assert "| preview behaviour | 1 | 2 | 50.0% | 2 | 0 | 0 |" in text
    assert "| GPU308 (transfers, default) | 1 | 25.0% |" in text
    assert "| GPU308 (transfers, preview behaviour) | 2 | 50.0% |" in text
    assert "in the default tier: GPU001: 1 of 2 findings (50.0%)" in text
