"""The committed usefulness sample is well-formed, and the sampler keeps its quotas (on
findings made up here)."""

from __future__ import annotations

import csv
import json

import pytest

from benchmarks.realcode import labels as labels_module
from benchmarks.realcode import usefulness
from benchmarks.realcode.usefulness import (
    DEFAULT_SAMPLE,
    HEADER,
    VERDICTS,
    Place,
    UsefulnessError,
    draw,
    draw_random,
    preview_behaviour,
    read_findings,
    read_places,
    read_sample,
    report,
)
from gpulint.registry import all_rules

needs_sample = pytest.mark.skipif(not DEFAULT_SAMPLE.exists(), reason="no committed usefulness sample")


@needs_sample
def test_committed_sample_is_well_formed():
    rows = list(csv.reader(DEFAULT_SAMPLE.read_text(encoding="utf-8").splitlines()))
    assert tuple(rows[0]) == HEADER
    records = [dict(zip(HEADER, row, strict=False)) for row in rows[1:]]
    assert all(len(row) == len(HEADER) for row in rows[1:])
    assert len(records) >= 150
    assert {r["verdict"] for r in records} <= set(VERDICTS)
    assert all(r["why"].strip() for r in records)
    codes = {rule.code for rule in all_rules()}
    assert {r["code"] for r in records} <= codes
    keys = [(r["code"], r["repo"], r["path"], int(r["cell"] or 0), int(r["line"])) for r in records]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)
    assert read_sample(DEFAULT_SAMPLE) == records  # the script's own checks agree


@needs_sample
def test_committed_sample_is_not_read_as_instance_labels():
    assert DEFAULT_SAMPLE.name in labels_module.OTHER_TABLES
    assert DEFAULT_SAMPLE not in labels_module.label_files([labels_module.DEFAULT_LABELS])


def _finding(code: str, repo: str, path: str, line: int, message: str = "m") -> dict:
    return {
        "code": code,
        "filename": f"/scratch/rc/{repo.replace('/', '+')}/{path}",
        "cell": None,
        "location": {"row": line, "column": 1},
        "message": message,
    }


def test_draw_keeps_the_quotas_and_is_seeded(tmp_path):
    items = [_finding("GPU301", "a/b", f"f{i % 4}.py", i) for i in range(40)]
    items += [_finding("GPU102", "a/b", "one.py", i) for i in range(10)]
    items += [_finding("GPU001", "a/b", f"s{i}.py", 1, "SyntaxError: invalid syntax") for i in range(3)]
    items += [_finding("GPU001", "a/b", f"p{i}.py", 1, "SyntaxError: Missing parentheses") for i in range(3)]
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    findings = read_findings(path)
    sample = draw(findings, seed=1, per_rule=6, per_file=2, syntax=10)
    by_code = {code: [p for p in sample if p.code == code] for code in ("GPU301", "GPU102", "GPU001")}
    assert len(by_code["GPU301"]) == 6
    assert len(by_code["GPU102"]) == 2  # one file, at most 2 from it
    assert {p.path for p in by_code["GPU001"]} == {"s0.py", "s1.py", "s2.py"}  # plainly invalid ones skipped
    assert all(sum(p.path == q.path for q in by_code["GPU301"]) <= 2 for p in by_code["GPU301"])
    assert sample == sorted(sample)
    assert draw(findings, seed=1, per_rule=6, per_file=2, syntax=10) == sample
    assert draw(findings, seed=2, per_rule=6, per_file=2, syntax=10) != sample


def test_report_counts_the_default_set_and_groups_noise():
    places = [Place("GPU301", "a/b", "x.py", 0, i) for i in range(1, 7)] + [Place("GPU403", "a/b", "y.py", 0, 1)]
    sample = [
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "1",
            "code": "GPU301",
            "verdict": "useful",
            "why": "r",
            "snippet": "",
        },
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "2",
            "code": "GPU301",
            "verdict": "noise",
            "why": "toy",
            "snippet": "",
        },
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "3",
            "code": "GPU301",
            "verdict": "noise",
            "why": "toy",
            "snippet": "",
        },
        {
            "repo": "a/b",
            "path": "y.py",
            "cell": "",
            "line": "1",
            "code": "GPU403",
            "verdict": "noise",
            "why": "tiny",
            "snippet": "",
        },
    ]
    text = report(places, sample, {"GPU301": "default", "GPU403": "preview"})
    assert "| GPU301 | default | 6 | 3 | 1 | 2 | 0 | 33% |" in text
    assert "Default set (1 rules): 6 findings, 3 sampled, 1 useful" in text
    assert "- GPU301 (2): toy" in text


def test_a_top_up_draws_only_what_the_quotas_lack(tmp_path):
    items = [_finding("GPU301", "a/b", f"f{i}.py", 1) for i in range(20)]
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    findings = read_findings(path)
    first = draw(findings, seed=1, per_rule=5, per_file=1, syntax=0)
    gone = Place("GPU301", "a/b", "no-longer-reported.py", 0, 1)
    more = draw(findings, seed=1, per_rule=8, per_file=1, syntax=0, already=[*first, gone])
    assert len(more) == 3 and not set(more) & set(first)


def test_sampled_findings_no_longer_reported_are_left_out_and_counted():
    places = [Place("GPU301", "a/b", "x.py", 0, 1)]
    sample = [
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "1",
            "code": "GPU301",
            "verdict": "useful",
            "why": "r",
            "snippet": "",
        },
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "9",
            "code": "GPU301",
            "verdict": "noise",
            "why": "toy",
            "snippet": "",
        },
    ]
    text = report(places, sample, {"GPU301": "default"})
    assert "| GPU301 | default | 1 | 1 | 1 | 0 | 0 | 100% |" in text
    assert "no longer reported (left out above): 1, of them 0 useful: GPU301 1." in text
    assert "toy" not in text


def test_bad_sample_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "sample.csv"
    bad.write_text("repo,path\n", encoding="utf-8")
    findings = tmp_path / "findings.json"
    findings.write_text("[]", encoding="utf-8")
    with pytest.raises(UsefulnessError, match="header"):
        read_sample(bad)
    assert usefulness.main(["report", "--findings", str(findings), "--sample", str(bad)]) == 2
    assert "error:" in capsys.readouterr().err


def test_random_draw_is_uniform_over_the_default_set_and_seeded():
    findings = {Place("GPU301", "a/b", f"f{i}.py", 0, 1): "m" for i in range(50)}
    findings.update({Place("GPU403", "a/b", f"g{i}.py", 0, 1): "m" for i in range(50)})
    drawn = draw_random(findings, {"GPU301"}, seed=3, size=20)
    assert len(drawn) == 20 and {p.code for p in drawn} == {"GPU301"} and drawn == sorted(drawn)
    assert draw_random(findings, {"GPU301"}, seed=3, size=20) == drawn
    assert draw_random(findings, {"GPU301"}, seed=4, size=20) != drawn
    assert len(draw_random(findings, {"GPU301"}, seed=3, size=500)) == 50  # never more than there are


def test_report_gives_the_random_draws_useful_rate():
    places = [Place("GPU301", "a/b", "x.py", 0, i) for i in range(1, 5)]
    drawn = [*places[:3], Place("GPU301", "a/b", "gone.py", 0, 1)]
    sample = [
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "1",
            "code": "GPU301",
            "verdict": "useful",
            "why": "r",
            "snippet": "",
        },
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "2",
            "code": "GPU301",
            "verdict": "noise",
            "why": "toy",
            "snippet": "",
        },
    ]
    text = report(places, sample, {"GPU301": "default"}, draws=[("draw.csv", drawn), ("other.csv", drawn[:1])])
    assert (
        "Simple random sample of the default set (draw.csv): 4 findings drawn, 3 still reported, 2 checked, "
        "1 useful: 50% (1 not checked yet)."
    ) in text
    assert "(other.csv): 1 findings drawn, 1 still reported, 1 checked, 1 useful: 100%." in text


def test_a_draw_of_rules_that_left_the_default_set_also_gives_the_rate_of_todays_default_rules():
    places = [
        Place("GPU301", "a/b", "x.py", 0, 1),
        Place("GPU307", "a/b", "x.py", 0, 2),
        Place("GPU307", "a/b", "x.py", 0, 3),
    ]
    sample = [
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "1",
            "code": "GPU301",
            "verdict": "noise",
            "why": "toy",
            "snippet": "",
        },
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "2",
            "code": "GPU307",
            "verdict": "useful",
            "why": "r",
            "snippet": "",
        },
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": "3",
            "code": "GPU307",
            "verdict": "noise",
            "why": "toy",
            "snippet": "",
        },
    ]
    text = report(places, sample, {"GPU301": "preview", "GPU307": "default"}, draws=[("draw.csv", places)])
    assert (
        "(draw.csv): 3 findings drawn, 3 still reported, 3 checked, 1 useful: 33%; of the 2 checked of rules "
        "in today's default set, 1 useful: 50% (looking back: the tiers were set knowing these verdicts)."
    ) in text
    same = report(places, sample, {"GPU301": "default", "GPU307": "default"}, draws=[("draw.csv", places)])
    assert "today's default set" not in same


COMMITTED_DRAWS = sorted(usefulness.DEFAULT_LABELS.glob(usefulness.RANDOM_DRAWS))


@pytest.mark.skipif(not COMMITTED_DRAWS, reason="no committed random draw")
@pytest.mark.parametrize("path", COMMITTED_DRAWS, ids=[path.name for path in COMMITTED_DRAWS])
def test_committed_random_draws_are_well_formed_and_not_labels(path):
    drawn = read_places(path)
    assert len(drawn) >= 150 and drawn == sorted(drawn) and len(set(drawn)) == len(drawn)
    assert path not in labels_module.label_files([labels_module.DEFAULT_LABELS])


def test_a_default_rules_preview_behaviour_is_kept_out_of_the_default_set():
    places = [Place("GPU308", "a/b", "x.py", 0, i) for i in range(1, 5)]
    default_mode = places[:2]  # lines 3 and 4 are reported only with --preview
    only = preview_behaviour(places, default_mode, {"GPU308": "default"})
    assert only == set(places[2:])
    assert preview_behaviour(places, [], {"GPU308": "preview"}) == set()  # a preview rule is preview anyway
    sample = [
        {
            "repo": "a/b",
            "path": "x.py",
            "cell": "",
            "line": str(line),
            "code": "GPU308",
            "verdict": verdict,
            "why": "r",
            "snippet": "",
        }
        for line, verdict in ((1, "useful"), (2, "useful"), (3, "noise"), (4, "noise"))
    ]
    text = report(places, sample, {"GPU308": "default"}, draws=[("draw.csv", places)], preview_only=only)
    assert "| GPU308 | default | 2 | 2 | 2 | 0 | 0 | 100% |" in text
    assert "| GPU308 (preview behaviour) | preview | 2 | 2 | 0 | 2 | 0 | 0% |" in text
    assert "Default set (1 rules): 2 findings, 2 sampled, 2 useful" in text
    assert "- GPU308 (preview behaviour) (2): r; e.g. `a/b/x.py:3`" in text
    assert "of the 2 checked of rules in today's default set, 2 useful: 100%" in text
    findings = {place: "m" for place in places}
    assert set(draw_random(findings, {"GPU308"}, seed=1, size=10, preview_only=only)) == set(default_mode)
