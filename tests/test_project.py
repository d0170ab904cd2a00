"""Values taken from the project's own modules (`gpulint.project`): helpers that place
their argument on the device, devices and models set up in another module, classes of
the project; resolution as Python would import them; and the cache entry of a file that
imports a module, which stays valid only while that module does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gpulint.engine import module_facts
from gpulint.project import MAX_MODULE_BYTES, resolve
from gpulint.registry import rule_by_key
from gpulint.runner import lint_source

from .conftest import write

#: A training loop that reads a loss computed by a model the file does not place itself.
LOOP = """\
for xb, yb in loader:
    out = model(xb)
    loss = out.sum()
    print(loss.item())
"""


def _codes(project: Path, *paths: str, cli) -> list[tuple[str, int]]:
    run = cli("check", *paths, "--select", "GPU307", "--preview", "--output-format", "json", "--no-cache")
    return sorted((d["code"], d["location"]["row"]) for d in json.loads(run.stdout))


@pytest.fixture
def repository(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


HELPERS = {
    "to_cuda": "import torch\n\ndef to_cuda(x):\n    if torch.cuda.is_available():\n        x = x.cuda()\n    return x\n",
    "to_device": "def to_device(x, device):\n    return x.to(device)\n",
    "build": "import torch.nn as nn\n\ndef build():\n    return nn.Linear(4, 1).cuda()\n",
}


@pytest.mark.parametrize(
    "module, setup",
    [
        ("to_cuda", "from helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n"),
        ("to_cuda", "import helpers\nmodel = helpers.to_cuda(nn.Linear(4, 1))\n"),
        ("to_cuda", "from helpers import *\nmodel = to_cuda(nn.Linear(4, 1))\n"),
        ("to_cuda", "from helpers import to_cuda as place\nmodel = place(nn.Linear(4, 1))\n"),
        ("to_device", "from helpers import to_device\nmodel = to_device(nn.Linear(4, 1), 'cuda')\n"),
        ("build", "from helpers import build\nmodel = build()\n"),
    ],
)
def test_a_model_placed_by_a_helper_of_the_project_is_on_the_device(repository, cli, module, setup):
    write(repository / "helpers.py", HELPERS[module])
    write(repository / "train.py", "import torch.nn as nn\n" + setup + LOOP)
    assert _codes(repository, "train.py", cli=cli) == [("GPU307", 1 + setup.count("\n") + 4)]


@pytest.mark.parametrize(
    "helper",
    [
        "def to_cpu(x):\n    return x.cpu()\n",  # the host
        "def to_cuda(x):\n    return x\n",  # a name that says cuda, a body that does not move
        "def to_cuda(x):\n    return x.to('cpu')\n",
        "def keep(x, y):\n    y.cuda()\n    return x\n",  # moves another argument, returns this one
    ],
)
def test_a_helper_that_does_not_place_its_argument_places_nothing(repository, cli, helper):
    name = helper.split("(")[0][4:]
    write(repository / "helpers.py", "import torch\n\n" + helper)
    write(
        repository / "train.py",
        f"import torch.nn as nn\nfrom helpers import {name}\nmodel = {name}(nn.Linear(4, 1), 0)\n" + LOOP,
    )
    assert _codes(repository, "train.py", cli=cli) == []


def test_a_device_and_a_model_class_from_other_modules_of_a_package(repository, cli):
    write(repository / "pkg" / "__init__.py", "")
    write(
        repository / "pkg" / "config.py",
        "import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n",
    )
    write(
        repository / "pkg" / "models.py",
        "import torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n",
    )
    # the files name torch: a file that names no library is never walked, whatever it imports
    write(
        repository / "pkg" / "train.py",
        "import torch\nfrom .config import device\nfrom . import models\nmodel = models.Net().to(device)\n" + LOOP,
    )
    write(repository / "pkg" / "host.py", "import torch\nfrom . import models\nmodel = models.Net()\n" + LOOP)
    assert _codes(repository, "pkg", cli=cli) == [("GPU307", 8)]


@pytest.mark.parametrize("given", ["absolute", "relative"])
def test_a_module_outside_the_project_is_never_read(tmp_path, cli, monkeypatch, given):
    """Without a repository, only the file's own folder is searched: a `helpers.py` in a
    folder above is not the project's, however the file is named on the command line."""
    write(tmp_path / "helpers.py", HELPERS["to_cuda"])
    train = write(
        tmp_path / "work" / "train.py",
        "import torch.nn as nn\nfrom helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP,
    )
    monkeypatch.chdir(tmp_path / "work")
    assert _codes(tmp_path, str(train) if given == "absolute" else "train.py", cli=cli) == []


@pytest.mark.parametrize("where", ["root", "scripts"])
def test_the_search_goes_up_from_the_file_whatever_the_current_folder(repository, cli, monkeypatch, where):
    """`scripts/train.py` importing the root's `helpers.py` finds it whether gpulint runs
    from the root or from `scripts/` (where the file is named `train.py`)."""
    write(repository / "helpers.py", HELPERS["to_cuda"])
    write(
        repository / "scripts" / "train.py",
        "import torch.nn as nn\nfrom helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP,
    )
    if where == "scripts":
        monkeypatch.chdir(repository / "scripts")
    name = "train.py" if where == "scripts" else "scripts/train.py"
    assert _codes(repository, name, cli=cli) == [("GPU307", 7)]


def test_a_relative_import_never_reaches_above_the_repository(tmp_path, cli, monkeypatch):
    top = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    write(tmp_path / "outside.py", HELPERS["to_cuda"])
    write(top / "pkg" / "__init__.py", "")
    write(
        top / "pkg" / "train.py",
        "import torch.nn as nn\nfrom ..outside import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP,
    )
    monkeypatch.chdir(top)
    assert _codes(top, "pkg/train.py", cli=cli) == []


def test_a_star_import_takes_the_names_all_lists(repository, cli):
    write(repository / "helpers.py", "__all__ = ['other']\n" + HELPERS["to_cuda"] + "\nother = 1\n")
    write(
        repository / "train.py",
        "import torch.nn as nn\nfrom helpers import *\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP,
    )
    assert _codes(repository, "train.py", cli=cli) == []


def test_a_source_that_is_no_file_follows_no_import(repository, monkeypatch):
    write(repository / "helpers.py", HELPERS["to_cuda"])
    source = "import torch.nn as nn\nfrom helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP
    assert [d.code for d in lint_source(source, rules=[rule_by_key("GPU307")])] == []


def test_a_notebook_follows_the_modules_beside_it(repository, cli):
    write(repository / "helpers.py", HELPERS["to_cuda"])
    cells = ["import torch.nn as nn\nfrom helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))", LOOP]
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    write(repository / "train.ipynb", json.dumps(notebook))
    run = cli("check", "train.ipynb", "--select", "GPU307", "--preview", "--output-format", "json", "--no-cache")
    assert [d["code"] for d in json.loads(run.stdout)] == ["GPU307"]


def test_the_cache_serves_a_file_only_while_the_modules_it_imports_stay_the_same(repository, cli, cache_dir):
    write(repository / "helpers.py", HELPERS["to_cuda"])
    write(
        repository / "train.py",
        "import torch.nn as nn\nfrom helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP,
    )

    def found() -> int:
        run = cli("check", "train.py", "--select", "GPU307", "--preview", "--output-format", "json")
        return len(json.loads(run.stdout))

    assert found() == found() == 1  # the second served from the cache
    write(repository / "helpers.py", "def to_cuda(x):\n    return x\n")
    assert found() == 0
    write(repository / "helpers.py", HELPERS["to_cuda"])
    assert found() == 1
    (repository / "helpers.py").unlink()
    assert found() == 0
    write(repository / "helpers" / "__init__.py", HELPERS["to_cuda"])  # the same module, as a package
    assert found() == 1
    # too large to analyse, then small again: each state is recorded
    write(repository / "helpers" / "__init__.py", HELPERS["to_cuda"] + "#" * (MAX_MODULE_BYTES + 1) + "\n")
    assert found() == 0
    write(repository / "helpers" / "__init__.py", HELPERS["to_cuda"])
    assert found() == 1


def test_resolution_goes_up_to_the_repository_root_and_no_further(tmp_path):
    top = tmp_path / "repo"
    write(top / "lib" / "utils.py", "")
    write(top / "src" / "deep" / "train.py", "")
    write(tmp_path / "outside.py", "")
    (top / ".git").mkdir()
    folder = top / "src" / "deep"
    assert resolve("lib.utils", folder, top) == top / "lib" / "utils.py"
    assert resolve("outside", folder, top) is None
    assert resolve("..", folder, top) is None  # `src` is no package
    write(top / "src" / "__init__.py", "")
    assert resolve("..", folder, top) == top / "src" / "__init__.py"
    assert resolve("torch", folder, top) is None
    assert resolve("...outside", folder, top) is None  # above the root


def test_module_facts_say_what_each_top_level_name_is():
    facts = module_facts(
        b"import torch\nimport torch.nn as nn\n"
        b"device = torch.device('cuda')\n"
        b"class Net(nn.Module):\n    pass\n"
        b"def to_cuda(x):\n    return x.cuda()\n"
        b"def to_cpu(x):\n    return x.cpu()\n",
        "helpers.py",
    ).names
    assert facts["device"].ty.kind == "device" and facts["device"].ty.place == "device"
    assert facts["Net"].ty.kind == "class" and facts["Net"].ty.lib == "torch"
    assert facts["to_cuda"].function and facts["to_cuda"].places == 0
    assert facts["to_cpu"].function and facts["to_cpu"].places is None
    assert module_facts(b"def broken(:\n", "broken.py").names == {}


TRAINER = """\
import torch

def train(net, train_data, valid_data, epochs):
    for epoch in range(epochs):
        for i, (im, label) in enumerate(train_data):
            if torch.cuda.is_available():
                im, label = im.cuda(), label.cuda()
            net(im)
        for im, label in valid_data:
            net(im)
"""

LOADERS = """\
import torch
from torchvision import transforms
from torchvision.datasets import CIFAR10
from utils import train

train_set = CIFAR10("data", train=True, transform=transforms.ToTensor())
train_data = torch.utils.data.DataLoader(train_set, batch_size=64)
valid_set = CIFAR10("data", train=False, transform=transforms.ToTensor())
valid_data = torch.utils.data.DataLoader(valid_set, batch_size=64)
train(net, train_data, valid_data, 20)
"""


def test_a_loader_handed_to_a_project_function_that_feeds_a_device_with_it(repository, cli):
    """Only the loader whose parameter the project's loop moves to the device: the other
    one is read on the host there."""
    write(repository / "utils.py", TRAINER)
    write(repository / "train.py", LOADERS)
    run = cli("check", "train.py", "--select", "GPU305", "--preview", "--output-format", "json", "--no-cache")
    assert [(d["code"], d["location"]["row"]) for d in json.loads(run.stdout)] == [("GPU305", 7)]


@pytest.mark.parametrize(
    ("spelled", "call"),
    [("import utils", "utils.train"), ("import utils as train_utils", "train_utils.train")],
)
def test_a_loader_handed_to_a_project_function_by_its_module_feeds_a_device(repository, cli, spelled, call):
    """Called through the module (`utils.train(net, train_data, ...)`), the function is the
    same: a call by attribute that no loader rule names."""
    write(repository / "utils.py", TRAINER)
    write(
        repository / "train.py", LOADERS.replace("from utils import train", spelled).replace("train(net", f"{call}(net")
    )
    run = cli("check", "train.py", "--select", "GPU305", "--preview", "--output-format", "json", "--no-cache")
    assert [(d["code"], d["location"]["row"]) for d in json.loads(run.stdout)] == [("GPU305", 7)]


def test_a_loader_handed_to_a_project_function_that_keeps_it_on_the_host(repository, cli):
    write(repository / "utils.py", TRAINER.replace("im.cuda(), label.cuda()", "im.float(), label.long()"))
    write(repository / "train.py", LOADERS)
    run = cli("check", "train.py", "--select", "GPU305", "--preview", "--output-format", "json", "--no-cache")
    assert json.loads(run.stdout) == []


def test_a_plain_class_of_the_project_leaves_its_instances_unknown(repository, cli):
    """A project class that is no torch module makes instances the file knows nothing of, as
    if its module were not read: `trainer.device` is still some device."""
    write(
        repository / "trainer.py",
        "import torch\n\nclass Trainer:\n    def __init__(self, model):\n        self.device = 'cuda'\n",
    )
    write(
        repository / "run.py",
        "import torch\nfrom trainer import Trainer\nnet = make()\ntrainer = Trainer(net)\nfor x, y in loader:\n"
        "    x = x.to(trainer.device)\n    print(net(x).sum().item())\n",
    )
    assert _codes(repository, "run.py", cli=cli) == [("GPU307", 7)]


def test_generate_of_a_project_model_class_is_not_a_transformers_generation(repository, cli):
    """The `generate` of the project's own module class runs the project's code, which need
    not wait for the device per token: copies after it are still per-batch copies."""
    write(
        repository / "model.py",
        "import torch.nn as nn\n\nclass GPT(nn.Module):\n    def generate(self, idx, n):\n        return idx\n",
    )
    write(
        repository / "run.py",
        "import torch\nfrom model import GPT\nmodel = GPT(config).to('cuda')\n"
        "for x, y in loader:\n    x = x.to('cuda')\n    out = model.generate(x, 5)\n    ok = (out == y.to('cuda')).cpu()\n"
        "    print(ok.sum())\n",
    )
    run = cli("check", "run.py", "--select", "GPU301", "--preview", "--output-format", "json", "--no-cache")
    assert [(d["code"], d["location"]["row"]) for d in json.loads(run.stdout)] == [("GPU301", 7)]


def test_the_editor_and_the_plugins_follow_the_imports_of_the_file_they_are_given(repository):
    """An open document (the language server's `lint_source`) and a file flake8 or pylint
    hand over (`hosted.findings`) are the file on disk: they see its project's modules."""
    from gpulint.hosted import findings

    write(repository / "helpers.py", HELPERS["to_cuda"])
    source = "import torch.nn as nn\nfrom helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP
    train = write(repository / "train.py", source)
    assert [d.code for d in lint_source(source, str(train), rules=[rule_by_key("GPU307")])] == ["GPU307"]
    assert [d.code for d in lint_source(source, "<stdin>", rules=[rule_by_key("GPU307")])] == []
    write(repository / "pyproject.toml", '[tool.gpulint]\npreview = true\nselect = ["GPU307"]\n')
    assert [d.code for d in findings(source, str(train))[0]] == ["GPU307"]
    (repository / "helpers.py").unlink()
    assert [d.code for d in findings(source, str(train))[0]] == []


@pytest.mark.parametrize(
    "call, flagged",
    [
        ("to_cuda(torch.randn(x.shape[0], 8))", True),
        ("to_cuda(Variable(torch.zeros(x.shape[0], 1)))", True),
        ("to_cuda(torch.randn(x.shape[0], 8, device='cuda'))", False),  # already on the device
        ("to_cuda(torch.tensor(rows))", False),  # data: the copy is its only way there
        ("keep(torch.randn(x.shape[0], 8))", False),  # a helper that places nothing
    ],
)
def test_a_factory_handed_to_a_placing_helper_is_made_on_the_host(repository, cli, call, flagged):
    write(repository / "helpers.py", HELPERS["to_cuda"] + "\n\ndef keep(x):\n    return x\n")
    write(
        repository / "train.py",
        "import torch\nfrom torch.autograd import Variable\nfrom helpers import *\n"
        f"for x, y in loader:\n    z = {call}\n    print(z)\n",
    )
    run = cli("check", "train.py", "--select", "GPU304", "--preview", "--output-format", "json", "--no-cache")
    found = json.loads(run.stdout)
    assert [(d["code"], d["location"]["row"]) for d in found] == ([("GPU304", 5)] if flagged else [])
    assert all(d["fix"] is None or not d["fix"]["edits"] for d in found)  # the rewrite is shown, never written


def test_a_helper_a_module_imports_from_further_modules_is_unknown_there(repository, cli):
    """One level deep: `loss.py`'s `to_cpu` comes from a module of its own imports, so what
    `compute_loss` returns through it is unknown, not a device value (a relative import is a
    name of code elsewhere, like a library's, not a module or loss handed around)."""
    write(repository / "pkg" / "__init__.py", "")
    write(repository / "pkg" / "utils.py", "def to_cpu(t):\n    return t.detach().cpu()\n")
    write(
        repository / "pkg" / "loss.py",
        "import torch\nfrom .utils import to_cpu\n\ndef compute_loss(p):\n    loss = p.cuda().sum()\n"
        "    return loss, to_cpu(torch.stack([loss, loss]))\n",
    )
    write(
        repository / "pkg" / "train.py",
        "import torch\nfrom pkg.loss import compute_loss\nfor x, y in loader:\n"
        "    loss, parts = compute_loss(x)\n    print(float(parts[0]))\n    print(loss.item())\n",
    )
    assert _codes(repository, "pkg/train.py", cli=cli) == [("GPU307", 6)]


#: A helper module that fits the estimator it is handed and predicts with it; it imports
#: nothing (a plain `.fit(` is enough for its facts to be read).
FIT_PREDICT = """\
def train_predict(classifier, train_features, train_labels, test_features):
    classifier.fit(train_features, train_labels)
    return classifier.predict(test_features)
"""

TEXTS = """\
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
import helpers

reviews = pd.read_csv("reviews.csv")
train, test = reviews[:35000], reviews[35000:]
vect = TfidfVectorizer()
train_features = vect.fit_transform(train.text)
test_features = vect.transform(test.text)
lr = LogisticRegression()
predicted = helpers.train_predict({call})
"""


@pytest.mark.parametrize(
    ("call", "flagged"),
    [
        ("lr, train_features, train.label, test_features", True),
        ("classifier=lr, train_features=train_features, train_labels=train.label, test_features=test_features", True),
        ("lr, train_features, train.label, vect.transform(test.text)", True),
        # near-misses: the test data is not the transformer's output, nor the handed model an estimator
        ("lr, train_features, train.label, test.text", False),
        ("vect, train_features, train.label, test_features", False),
    ],
)
def test_a_chain_fitted_and_used_in_a_project_helper(repository, cli, call, flagged):
    write(repository / "helpers.py", FIT_PREDICT)
    write(repository / "train.py", TEXTS.format(call=call))
    run = cli("check", "train.py", "--select", "GPU401", "--output-format", "json", "--no-cache")
    found = [(d["code"], d["location"]["row"]) for d in json.loads(run.stdout)]
    assert found == ([("GPU401", 9)] if flagged else [])


def test_a_helper_that_predicts_on_what_it_fitted_is_no_chain(repository, cli):
    write(repository / "helpers.py", FIT_PREDICT.replace("predict(test_features)", "predict(train_features)"))
    write(repository / "train.py", TEXTS.format(call="lr, train_features, train.label, test_features"))
    run = cli("check", "train.py", "--select", "GPU401", "--output-format", "json", "--no-cache")
    assert json.loads(run.stdout) == []


@pytest.mark.parametrize(
    "helper",
    [
        # predicts before it fits: what it predicts with is the estimator as handed in
        "def train_predict(classifier, train_features, train_labels, test_features):\n"
        "    old = classifier.predict(test_features)\n"
        "    classifier.fit(train_features, train_labels)\n"
        "    return old\n",
        # fits only sometimes
        "def train_predict(classifier, train_features, train_labels, test_features, refit=False):\n"
        "    if refit:\n"
        "        classifier.fit(train_features, train_labels)\n"
        "    return classifier.predict(test_features)\n",
    ],
)
def test_a_helper_that_may_not_fit_before_it_predicts_is_no_chain(repository, cli, helper):
    write(repository / "helpers.py", helper)
    write(repository / "train.py", TEXTS.format(call="lr, train_features, train.label, test_features"))
    run = cli("check", "train.py", "--select", "GPU401", "--output-format", "json", "--no-cache")
    assert json.loads(run.stdout) == []


@pytest.mark.parametrize(
    "package",
    [
        "from .misc import to_cuda\n",  # a package's `__init__.py` hands the name on
        "from .misc import *\n",
        "try:\n    from .misc import to_cuda\nexcept ImportError:\n    pass\n",
    ],
)
@pytest.mark.parametrize(
    "setup",
    [
        "from helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n",
        "import helpers\nmodel = helpers.to_cuda(nn.Linear(4, 1))\n",
        "from helpers import *\nmodel = to_cuda(nn.Linear(4, 1))\n",
    ],
)
def test_a_name_a_package_hands_on_is_what_its_own_module_says(repository, cli, package, setup):
    write(repository / "helpers" / "misc.py", HELPERS["to_cuda"])
    write(repository / "helpers" / "__init__.py", package)
    write(repository / "train.py", "import torch.nn as nn\n" + setup + LOOP)
    assert _codes(repository, "train.py", cli=cli) == [("GPU307", 1 + setup.count("\n") + 4)]


@pytest.mark.parametrize(
    "package",
    [
        "from .misc import to_cpu as to_cuda\n",  # handed on under another name: the other function
        "def setup():\n    from .misc import to_cuda\n",  # imported in a def: not handed on
        "from .other import to_cuda\n",  # from a module the project does not hold
    ],
)
def test_a_name_a_package_does_not_hand_on_tells_nothing(repository, cli, package):
    write(repository / "helpers" / "misc.py", HELPERS["to_cuda"] + "\n\ndef to_cpu(x):\n    return x.cpu()\n")
    write(repository / "helpers" / "__init__.py", package)
    write(
        repository / "train.py",
        "import torch.nn as nn\nfrom helpers import to_cuda\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP,
    )
    assert _codes(repository, "train.py", cli=cli) == []


def test_the_cache_follows_the_module_a_package_hands_a_name_on_from(repository, cli, cache_dir):
    write(repository / "helpers" / "__init__.py", "from .misc import to_cuda\n")
    write(repository / "helpers" / "misc.py", HELPERS["to_cuda"])
    write(
        repository / "train.py",
        "import torch.nn as nn\nfrom helpers import *\nmodel = to_cuda(nn.Linear(4, 1))\n" + LOOP,
    )

    def found() -> int:
        return len(
            json.loads(cli("check", "train.py", "--select", "GPU307", "--preview", "--output-format", "json").stdout)
        )

    assert found() == found() == 1
    write(repository / "helpers" / "misc.py", "def to_cuda(x):\n    return x\n")
    assert found() == 0
    (repository / "helpers" / "misc.py").unlink()
    write(repository / "helpers" / "misc" / "__init__.py", HELPERS["to_cuda"])  # the same module, as a package
    assert found() == 1
