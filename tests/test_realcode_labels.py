"""The committed real-code labels are well-formed, and the recall matcher pairs findings
with labels by file, cell, rule and line span (on a tiny corpus made here)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from benchmarks.realcode import labels as labels_module
from benchmarks.realcode.labels import HEADER, Label, LabelError, check_corpus, load
from benchmarks.realcode.recall import Finding, main, match

LABEL_FILES = sorted(
    file for file in labels_module.DEFAULT_LABELS.glob("*.csv") if not labels_module.is_other_table(file)
)


#: The label sets measured on code gpulint was not tuned on: the blind sets and the graph set.
OTHER_SETS = sorted(
    folder
    for folder in (
        labels_module.DEFAULT_LABELS.parent / name / "labels"
        for name in ("blind", "blind2", "blind3", "graphs", "graph_blind")
    )
)


@pytest.mark.parametrize("folder", OTHER_SETS, ids=[folder.parent.name for folder in OTHER_SETS])
def test_every_other_label_set_is_well_formed(folder):
    files = sorted(folder.glob("*.csv"))
    assert files, f"{folder} holds no labels"
    labels = load(files)  # header, verdicts, sources, known codes, order, duplicates
    assert {label.repo.replace("/", "+") + ".csv" for label in labels} == {file.name for file in files}


@pytest.mark.skipif(not LABEL_FILES, reason="no committed label files yet")
def test_committed_labels_are_well_formed():
    labels = load(LABEL_FILES)  # header, verdicts, sources, known codes, order, duplicates
    assert labels
    for file in LABEL_FILES:
        rows = list(csv.reader(file.read_text(encoding="utf-8").splitlines()))
        assert tuple(rows[0]) == HEADER, file
        keys = [(r[4], r[0], r[1], int(r[2] or 0), int(r[3])) for r in rows[1:]]
        assert keys == sorted(keys), f"{file.name} is not sorted"
        assert len(set(keys)) == len(keys), f"{file.name} has duplicate rows"
        assert {r[5] for r in rows[1:]} <= {"instance", "not"}


def _write_labels(path: Path, rows: list[list[object]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return path


def test_load_reports_every_problem(tmp_path):
    bad = _write_labels(
        tmp_path / "bad.csv",
        [
            ["o/r", "b.py", "", "3", "GPU301", "maybe", "miner", "x", "s"],
            ["o/r", "a.py", "", "2", "GPU999", "instance", "miner", "x", "s"],
            ["o/r", "a.ipynb", "", "2", "GPU301", "instance", "miner", "x", "s"],
        ],
    )
    with pytest.raises(LabelError) as error:
        load([bad])
    message = str(error.value)
    assert "verdict 'maybe'" in message
    assert "unknown rule code 'GPU999'" in message
    assert "the cell is missing" in message
    assert "not sorted" in message


def test_load_rejects_duplicates_and_a_wrong_header(tmp_path):
    row = ["o/r", "a.py", "", "2", "GPU301", "instance", "miner", "x", "s"]
    with pytest.raises(LabelError, match="labelled at"):
        load([_write_labels(tmp_path / "dup.csv", [row, row])])
    (tmp_path / "head.csv").write_text("repo,path\n", encoding="utf-8")
    with pytest.raises(LabelError, match="header"):
        load([tmp_path / "head.csv"])


def test_match_uses_the_finding_span_cell_and_code():
    def label(line, verdict, cell=None, path="a.py", code="GPU304"):
        return Label("o/r", path, cell, line, code, verdict, "miner", "why", "")

    labels = [label(5, "instance"), label(9, "instance"), label(12, "not"), label(3, "instance", 2, "n.ipynb")]
    findings = [
        Finding("o/r", "a.py", None, "GPU304", 4, 6),  # spans line 5
        Finding("o/r", "a.py", None, "GPU301", 9, 9),  # another rule: no match for line 9
        Finding("o/r", "a.py", None, "GPU304", 12, 12),  # a `not` flagged
        Finding("o/r", "n.ipynb", 3, "GPU304", 3, 3),  # another cell
        Finding("o/r", "a.py", None, "GPU304", 20, 20),  # no label there
    ]
    result = match(labels, findings)
    tally = result.tallies["GPU304"]
    assert (tally.instances, tally.found, tally.nots, tally.flagged, tally.unlabelled) == (3, 1, 1, 1, 2)
    assert [(m.path, m.line) for m in result.missed] == [("a.py", 9), ("n.ipynb", 3)]
    assert [m.line for m in result.flagged] == [12]


SCRIPT = """import torch
def build():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    ramp = torch.arange(
        10
    ).to(device)
    kept = torch.arange(10, device=device)
for step in range(3):
    build()
"""
CELL = "import torch\ndef build():\n    mask = torch.ones(3).cuda()\nfor step in range(3):\n    build()\n"


def test_recall_end_to_end_on_a_tiny_corpus(tmp_path, capsys):
    corpus = tmp_path / "corpus" / "own+repo"
    (corpus / "src").mkdir(parents=True)
    (corpus / "src" / "a.py").write_text(SCRIPT, encoding="utf-8")
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["# title"], "metadata": {}},
            {"cell_type": "code", "source": CELL, "metadata": {}, "outputs": [], "execution_count": None},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (corpus / "nb.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    csv_path = _write_labels(
        tmp_path / "transfers.csv",
        [
            [
                "own/repo",
                "nb.ipynb",
                "2",
                "3",
                "GPU304",
                "instance",
                "miner",
                "ones moved",
                "mask = torch.ones(3).cuda()",
            ],
            [
                "own/repo",
                "src/a.py",
                "",
                "5",
                "GPU304",
                "instance",
                "miner",
                "arange moved, line inside the span",
                "10",
            ],
            ["own/repo", "src/a.py", "", "7", "GPU304", "not", "miner", "made on the device", "kept ="],
        ],
    )
    out = tmp_path / "recall.md"
    assert main(["--labels", str(csv_path), "--corpus", str(tmp_path / "corpus"), "--output", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "| GPU304 | 2 | 2 | 1.00 | 2/2 | 1.00 | 1 | 0 | 0 |" in text
    assert "## Missed instances (0)" in text


def test_bad_input_exits_2(tmp_path, capsys):
    csv_path = _write_labels(
        tmp_path / "t.csv",
        [
            ["own/repo", "missing.py", "", "1", "GPU304", "instance", "miner", "x", ""],
        ],
    )
    (tmp_path / "corpus").mkdir()
    assert main(["--labels", str(csv_path), "--corpus", str(tmp_path / "corpus")]) == 2
    assert "has no file missing.py" in capsys.readouterr().err
    assert main(["--labels", str(tmp_path / "nothing.csv")]) == 2


def test_check_corpus_finds_a_wrong_line(tmp_path):
    (tmp_path / "own+repo").mkdir()
    (tmp_path / "own+repo" / "a.py").write_text("x = 1\n", encoding="utf-8")
    wrong = Label("own/repo", "a.py", None, 1, "GPU304", "not", "miner", "why", "y = 2")
    with pytest.raises(LabelError, match="does not hold the snippet"):
        check_corpus([wrong], tmp_path)


def test_miner_driver_numbers_cells_like_gpulint(tmp_path):
    from benchmarks.realcode.miners import mine
    from benchmarks.realcode.miners.transfers import MINERS

    repo = tmp_path / "own+repo"
    repo.mkdir()
    (repo / "a.py").write_text("for b in loader:\n    parts.append(b.to(device).sum().cpu())\n", encoding="utf-8")
    cells = [
        {"cell_type": "markdown", "source": "# notes", "metadata": {}},
        {
            "cell_type": "code",
            "source": "%%time\nfor b in loader:\n    !echo hi\n    x = b.cpu()\n",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
        },
        {
            "cell_type": "code",
            "source": "%%bash\nfor b in x; do echo; done\n",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
        },
        {"cell_type": "code", "source": "def broken(:\n", "metadata": {}, "outputs": [], "execution_count": None},
    ]
    (repo / "n.ipynb").write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8"
    )
    found = [(c.path, c.cell, c.line) for c in mine(tmp_path, {"GPU301": MINERS["GPU301"]})]
    assert found == [("a.py", None, 2), ("n.ipynb", 2, 4)]


def test_a_repository_named_anywhere_in_the_benchmarks_is_used(tmp_path):
    from benchmarks.realcode.unused import main, mentions

    (tmp_path / "tiers").mkdir()
    (tmp_path / "tiers" / "usefulness.md").write_text("Looked at and left out: Owner/Seen-Repo.\n")
    assert mentions("owner/seen-repo", (tmp_path,)) == [tmp_path / "tiers" / "usefulness.md"]
    assert mentions("owner/other", (tmp_path,)) == []
    assert main(["pytorch/examples"]) == 1  # in repos.toml
    assert main(["not a name"]) == 2
