"""Functions that the project's other files run over and over (`gpulint.callers`): a
helper called in an importer's batch loop, a class built in a model's `forward`, a method
called on an instance, a callback; the tree searched; and the cache entry of a module,
which stays valid only while the files importing it stay the same."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gpulint import callers

from .conftest import write

LOSSES = """\
import torch


def coral(source, target):
    ones = torch.ones((1, source.size(0))).cuda()
    return (ones @ source - ones @ target).pow(2).sum()


class CausalMask:
    def __init__(self, n):
        self.mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1).cuda()

    def apply(self, scores):
        return scores + torch.zeros(scores.shape).cuda()
"""

#: A training script's head: a model on the device and a loader.
HEAD = """\
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
loader = DataLoader(range(100), batch_size=10)
"""


def _rows(cli, *paths: str) -> list[int]:
    run = cli("check", *paths, "--select", "GPU304", "--preview", "--output-format", "json", "--no-cache")
    return sorted(d["location"]["row"] for d in json.loads(run.stdout) if d["filename"].endswith("losses.py"))


@pytest.fixture
def repository(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(project / "losses.py", LOSSES)
    return project


@pytest.mark.parametrize(
    "script",
    [
        "from losses import coral\nfor x in loader:\n    loss = coral(x.to(device), x.to(device))\n",
        "import losses\nfor x in loader:\n    loss = losses.coral(x.to(device), x.to(device))\n",
        "from losses import coral as distance\nlosses = [distance(x, x) for x in loader]\n",
        "from losses import (\n    CausalMask,\n    coral,\n)\n\ndef step(x):\n    return coral(x, x)\n\n"
        "for x in loader:\n    step(x)\n",
    ],
)
def test_a_helper_an_importer_calls_in_its_batch_loop_runs_per_batch(repository, cli, script):
    write(repository / "train.py", HEAD + script)
    assert _rows(cli, "losses.py") == [5]


@pytest.mark.parametrize(
    "script",
    [
        "from losses import coral\nloss = coral(torch.ones(3, 3), torch.ones(3, 3))\n",  # once, at the top
        "from losses import coral\n\ndef once():\n    return coral(torch.ones(3), torch.ones(3))\n\nonce()\n",
        "import losses\nfor x in loader:\n    other.coral(x, x)\n",  # another object's method
        "from other import coral\nfor x in loader:\n    coral(x, x)\n",  # another module's function
        "for x in loader:\n    coral(x, x)\n",  # a name the file never imports
        "from losses import coral\nfor split in ('train', 'test'):\n    coral(x, x)\n",  # a loop of two
        "from losses import coral\nN = 4\nfor i in range(1, N + 1):\n    coral(x, x)\n",
    ],
)
def test_a_helper_no_importer_runs_repeatedly_is_left_alone(repository, cli, script):
    write(repository / "train.py", HEAD + script)
    assert _rows(cli, "losses.py") == []


def test_a_class_built_in_a_model_forward_runs_its_init_per_batch(repository, cli):
    write(
        repository / "models.py",
        "import torch.nn as nn\nfrom losses import CausalMask\n\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        mask = CausalMask(x.shape[0])\n        return x\n",
    )
    assert _rows(cli, "losses.py") == [11]


def test_a_class_built_in_a_plain_class_method_is_left_alone(repository, cli):
    # `forward` of a class that is no torch module, in a file that imports no torch
    write(
        repository / "models.py",
        "from losses import CausalMask\n\n\nclass Net(Base):\n"
        "    def forward(self, x):\n        mask = CausalMask(x.shape[0])\n        return x\n",
    )
    assert _rows(cli, "losses.py") == []


@pytest.mark.parametrize(
    "script, rows",
    [
        ("from losses import CausalMask\nmask = CausalMask(8)\nfor x in loader:\n    mask.apply(x)\n", [14]),
        ("from losses import CausalMask\nmask = CausalMask(8).cuda()\nfor x in loader:\n    mask.apply(x)\n", [14]),
        ("from losses import CausalMask\nfor x in loader:\n    CausalMask(8)\n", [11]),
        # the name holds something else too: which class's method runs is not known
        (
            "from losses import CausalMask\nmask = CausalMask(8)\nmask = other()\nfor x in loader:\n    mask.apply(x)\n",
            [],
        ),
    ],
)
def test_methods_called_on_an_instance_of_the_module_class_run_as_often_as_the_call(repository, cli, script, rows):
    write(repository / "train.py", HEAD + script)
    assert _rows(cli, "losses.py") == rows


def test_a_function_handed_on_as_a_callback_runs_repeatedly(repository, cli):
    write(repository / "train.py", HEAD + "from losses import coral\nhooks = register(coral)\n")
    assert _rows(cli, "losses.py") == [5]


def test_files_outside_the_repository_are_not_searched(tmp_path, cli, monkeypatch):
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    write(top / "lib" / "losses.py", LOSSES)
    write(tmp_path / "train.py", HEAD + "from repo.lib.losses import coral\nfor x in loader:\n    coral(x, x)\n")
    monkeypatch.chdir(top)
    assert _rows(cli, "lib/losses.py") == []
    write(top / "train.py", HEAD + "from lib.losses import coral\nfor x in loader:\n    coral(x, x)\n")
    assert _rows(cli, "lib/losses.py") == [5]


def test_a_tree_too_large_to_search_gives_no_callers(repository, cli, monkeypatch):
    write(repository / "train.py", HEAD + "from losses import coral\nfor x in loader:\n    coral(x, x)\n")
    monkeypatch.setattr(callers, "MAX_FILES", 1)
    assert _rows(cli, "losses.py") == []


def test_an_importer_that_does_not_parse_tells_nothing(repository, cli):
    write(repository / "train.py", "from losses import coral\nfor x in loader:\n    coral(x, x\n")
    write(repository / "venv" / "pyvenv.cfg", "")
    write(repository / "venv" / "lib" / "use.py", HEAD + "from losses import coral\nfor x in l:\n    coral(x, x)\n")
    assert _rows(cli, "losses.py") == []


def test_the_cache_serves_a_module_only_while_the_files_importing_it_stay_the_same(repository, cli, cache_dir):
    def found() -> int:
        run = cli("check", "losses.py", "--select", "GPU304", "--preview", "--output-format", "json")
        return len(json.loads(run.stdout))

    assert found() == found() == 0
    write(repository / "train.py", HEAD + "from losses import coral\nfor x in loader:\n    coral(x, x)\n")
    assert found() == found() == 1  # an importer came; the second run served from the cache
    write(repository / "train.py", HEAD + "from losses import coral\ncoral(1, 2)\n")
    assert found() == 0  # it changed
    write(repository / "train.py", HEAD + "from losses import coral\nfor x in loader:\n    coral(x, x)\n")
    assert found() == 1
    (repository / "train.py").unlink()
    assert found() == 0  # it went


MASKS = """\
import torch


class Mask:
    def __init__(self, n, device="cpu"):
        self.m = torch.ones(n, n).to(device)


def positions(n, device):
    return torch.arange(n).to(device)
"""

#: A model whose `forward` (run per batch) builds the mask and the positions on the
#: device of its input.
MODEL = """\
import torch.nn as nn
from masks import Mask, positions


class Net(nn.Module):
    def forward(self, x):
        mask = Mask(x.shape[0], {device})
        p = positions(x.shape[1], device={device})
        return x
"""


def _mask_rows(cli) -> list[int]:
    run = cli("check", "masks.py", "--select", "GPU304", "--preview", "--output-format", "json", "--no-cache")
    return sorted(d["location"]["row"] for d in json.loads(run.stdout))


def test_parameters_take_the_types_the_importers_pass(repository, cli):
    write(repository / "masks.py", MASKS)
    write(repository / "models.py", MODEL.format(device="x.device"))
    assert _mask_rows(cli) == [6, 10]  # moved to the device an importer gives
    write(repository / "models.py", MODEL.format(device='"cpu"'))
    assert _mask_rows(cli) == []  # moved to the host an importer gives: no copy


def test_a_call_that_unpacks_its_arguments_hides_what_each_parameter_gets(repository, cli):
    write(repository / "masks.py", MASKS)
    host = MODEL.format(device='"cpu"')
    write(repository / "models.py", host)
    assert _mask_rows(cli) == []
    write(repository / "models.py", host.replace('positions(x.shape[1], device="cpu")', "positions(*args)"))
    assert _mask_rows(cli) == [10]  # what `positions` is given is not known


def test_the_module_own_call_sites_come_before_its_importers(repository, cli):
    # the module calls `positions` itself with the host: its own sites say what it gets
    write(repository / "masks.py", MASKS + '\n\nHOST = positions(4, "cpu")\n')
    write(repository / "models.py", MODEL.format(device="x.device"))
    assert _mask_rows(cli) == [6]


@pytest.mark.parametrize(
    "script",
    [
        # a parameter, a local def and an assignment of the same name: the importer's own
        "from losses import coral\n\ndef evaluate(coral, loader):\n    for x in loader:\n        coral(x, x)\n",
        "from losses import coral\n\ndef coral(a, b):\n    return a\n\nfor x in loader:\n    coral(x, x)\n",
        "import losses\nlosses = []\nfor x in loader:\n    losses.coral(x, x)\n",
        # imported from two modules: which one a call means is not known
        "def f():\n    from losses import coral\n\ndef g():\n    from other import coral\n    for x in loader:\n"
        "        coral(x, x)\n",
        # a class handed on as a value is not built
        "from losses import CausalMask\nchecks = [isinstance(m, CausalMask) for m in loader]\n",
        # an instance name also bound by a loop: which class's method runs is not known
        "from losses import CausalMask\nmask = CausalMask(8)\nfor mask in loader:\n    mask.apply(mask)\n",
    ],
)
def test_names_the_importer_binds_to_something_else_are_its_own(repository, cli, script):
    write(repository / "train.py", HEAD + script)
    assert _rows(cli, "losses.py") == []


def test_a_chained_call_gives_the_site_of_the_call_it_is_made_on(repository, cli):
    write(repository / "masks.py", MASKS)
    host = MODEL.format(device='"cpu"').replace('device="cpu")', 'device="cpu").float()')
    write(repository / "models.py", host.replace('Mask(x.shape[0], "cpu")', 'Mask(x.shape[0], "cpu").m.float()'))
    assert _mask_rows(cli) == []


def test_the_cache_follows_what_the_importers_import(repository, cli, cache_dir):
    write(repository / "masks.py", MASKS)
    write(repository / "config.py", 'DEVICE = "cpu"\n')
    model = MODEL.format(device="DEVICE").replace("from masks import", "from config import DEVICE\nfrom masks import")
    write(repository / "models.py", model)

    def found() -> int:
        run = cli("check", "masks.py", "--select", "GPU304", "--preview", "--output-format", "json")
        return len(json.loads(run.stdout))

    assert found() == found() == 0
    write(repository / "config.py", 'import torch\nDEVICE = torch.device("cuda")\n')
    assert found() == 2


def test_each_run_looks_for_the_importers_again(repository, cli):
    write(repository / "train.py", HEAD + "from losses import coral\nfor x in loader:\n    coral(x, x)\n")
    (repository / "losses.py").unlink()
    assert _rows(cli, "train.py") == []  # the module is not there yet
    write(repository / "losses.py", LOSSES)
    assert _rows(cli, "losses.py") == [5]


def test_test_files_nested_repositories_and_other_folders_are_no_importers(repository, cli):
    loop = HEAD + "from losses import coral\nfor x in loader:\n    coral(x, x)\n"
    write(repository / "test_losses.py", loop)  # pytest's loops run no production batch
    write(repository / "tests" / "conftest.py", loop)
    write(repository / "vendor" / "other" / "train.py", loop)  # a repository of its own
    (repository / "vendor" / "other" / ".git").mkdir()
    assert _rows(cli, "losses.py") == []


def test_without_a_repository_only_the_module_folder_is_searched(project, cli):
    write(project / "lib" / "losses.py", LOSSES)
    write(project / "train.py", HEAD + "from lib.losses import coral\nfor x in loader:\n    coral(x, x)\n")
    assert _rows(cli, "lib/losses.py") == []
    write(project / "lib" / "train.py", HEAD + "from losses import coral\nfor x in loader:\n    coral(x, x)\n")
    assert _rows(cli, "lib/losses.py") == [5]


def test_an_importer_nested_too_deeply_tells_nothing(repository, cli):
    write(repository / "train.py", "from losses import coral\nx = a" + ".b" * 1000 + "()\n")
    run = cli("check", "losses.py", "--select", "GPU304", "--preview", "--no-cache")
    assert run.code == 0, run.stderr


def test_the_language_server_looks_for_the_importers_on_every_lint(repository):
    from gpulint.lsp.server import lint_document
    from gpulint.lsp.settings import Settings

    settings = Settings(select=("GPU304",), preview=True)
    losses = repository / "losses.py"

    def codes() -> list[str]:
        return [d.code for d in lint_document(losses.read_text(), 1, losses.as_uri(), settings).diagnostics]

    assert codes() == []
    write(repository / "train.py", HEAD + "from losses import coral\nfor x in loader:\n    coral(x, x)\n")
    assert codes() == ["GPU304"]  # an importer written since the last lint


METRICS = """\
import matplotlib.pyplot as plt
import numpy as np
import torch


def class_counts(labels):
    counts = labels.cpu().numpy()
    return np.bincount(counts)


def report(loss):
    value = loss.item()
    print(value)


def read_back(loss):
    return loss.item()


def sometimes(labels, verbose):
    if verbose:
        print(labels.cpu().numpy())


def show(images):
    grid = images.cpu().numpy()
    plt.imshow(grid)


class Meter:
    def __init__(self):
        self.total = 0.0

    def add(self, loss):
        self.total += loss.item()
"""

#: Every helper of METRICS, called once per batch of a loop on the device.
PER_BATCH = """\
import metrics
model = torch.nn.Linear(4, 2).to(device)
meter = metrics.Meter()
for x in loader:
    out = model(x.to(device))
    metrics.class_counts(out)
    metrics.report(out.sum())
    metrics.read_back(out.sum())
    metrics.sometimes(out, False)
    metrics.show(out)
    meter.add(out.sum())
"""


def _copies(cli) -> list[tuple[str, int]]:
    run = cli(
        "check", "metrics.py", "--select", "GPU301,GPU307,GPU308", "--preview", "--output-format", "json", "--no-cache"
    )
    return sorted((d["code"], d["location"]["row"]) for d in json.loads(run.stdout))


def test_copies_in_a_helper_an_importer_calls_per_batch_are_per_batch(repository, cli):
    write(repository / "metrics.py", METRICS)
    write(repository / "train.py", HEAD + PER_BATCH)
    # a copy under an `if`, one returned to the caller and one drawn in the same call are left alone
    assert _copies(cli) == [("GPU301", 7), ("GPU307", 12), ("GPU308", 35)]


@pytest.mark.parametrize(
    "script",
    [
        PER_BATCH.replace("for x in loader:", "for x in [next(iter(loader))]:"),  # a loop of one batch
        PER_BATCH.replace("for x in loader:\n", "if True:\n"),  # no loop
        PER_BATCH.replace("import metrics", "import metrics\nmetrics = other"),  # the name is the file's own
        # every hundredth batch only (as a logging interval), or in one branch of a test
        PER_BATCH.replace("    metrics.", "    if step % 100 == 0:\n        metrics.").replace(
            "    meter.", "    if x:\n        meter."
        ),
        PER_BATCH.replace("metrics.class_counts(out)", "ok or metrics.class_counts(out)")
        .replace("metrics.report(out.sum())", "metrics.report(out.sum()) if x else None")
        .replace("meter.add(out.sum())", "try:\n        pass\n    except ValueError:\n        meter.add(out.sum())"),
    ],
)
def test_copies_in_a_helper_no_importer_runs_per_batch_are_left_alone(repository, cli, script):
    write(repository / "metrics.py", METRICS)
    write(repository / "train.py", HEAD + script)
    assert _copies(cli) == []


def test_a_helper_called_under_an_if_in_a_loop_still_runs_repeatedly_for_factories(repository, cli):
    # GPU304 counts code run over and over, also every hundredth batch; the copies to the host
    # count only what runs on every iteration
    write(
        repository / "train.py", HEAD + "from losses import coral\nfor x in loader:\n    if x:\n        coral(x, x)\n"
    )
    assert _rows(cli, "losses.py") == [5]
