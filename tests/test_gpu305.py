"""GPU305 dataloader-without-workers: only loaders in code that feeds a device."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import Applicability

from .rule_helpers import fix_in_preview_mode, lint_in_preview_mode

#: A dataset whose items are decoded when they are loaded: the evidence the rule needs.
IMAGES = "from torchvision.datasets import ImageFolder\n\ndataset = data = ImageFolder('images')\n"
HEAD = "import torch\nfrom torch.utils.data import DataLoader\n" + IMAGES + "\n"
FEED = "\nfor x in loader:\n    x = x.to(device)\n"


def _found(source: str):
    return [d for d in lint_in_preview_mode(source) if d.code == "GPU305"]


@pytest.mark.parametrize(
    ("device", "flagged"),
    [
        ('device = "cuda"\n', True),
        ('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n', True),
        ('device = "cpu"\n', False),
        ('device = torch.device("cpu")\n', False),  # the host, however it is spelt
        ('device = torch.device("cuda")\n', True),
        ("device = torch.float16\n", False),  # a dtype conversion, not a device
    ],
)
def test_only_a_loop_that_feeds_a_device_counts(device, flagged):
    source = HEAD + device + "loader = DataLoader(data, batch_size=2)\n" + FEED
    assert bool(_found(source)) is flagged


def test_cuda_and_non_blocking_copies_feed_a_device():
    for move in ("x.cuda()", "x.to(dev, non_blocking=True)", "x['a'].to(device=dev)"):
        source = HEAD + f"loader = DataLoader(data)\nfor x in loader:\n    y = {move}\n"
        assert len(_found(source)) == 1, move


def test_a_device_parameter_annotated_as_such_counts():
    source = HEAD + textwrap.dedent("""\
        def train(dataset, device: torch.device):
            loader = DataLoader(dataset, batch_size=8)
            for x, y in loader:
                x, y = x.to(device), y.to(device)


        train(dataset, where)
        """)
    assert len(_found(source)) == 1


def test_zero_workers_are_replaced_and_pin_memory_kept():
    source = HEAD + 'device = "cuda"\nloader = DataLoader(data, num_workers=0, pin_memory=False)\n' + FEED
    [diagnostic] = _found(source)
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    assert fix_in_preview_mode(source) == source
    assert "DataLoader(data, num_workers=4, pin_memory=False)" in fix_in_preview_mode(source, unsafe_fixes=True)


@pytest.mark.parametrize(
    "call",
    [
        "DataLoader(data, 2, False, None, None, 3)",  # workers by position
        "DataLoader(data, num_workers=n)",  # decided at run time
        "DataLoader(*args)",
    ],
)
def test_loaders_that_may_have_workers_are_silent(call):
    assert _found(HEAD + f'device = "cuda"\nn = 2\nloader = {call}\n' + FEED) == []


# -- the keywords go in without disturbing the call's layout ------------------------------

LOOP = 'device = "cuda"\n{loader}\nfor x in loader:\n    x = x.to(device)\n'


@pytest.mark.parametrize(
    ("loader", "fixed"),
    [
        (
            "loader = DataLoader(data, batch_size=2)",
            "loader = DataLoader(data, batch_size=2, num_workers=4, pin_memory=True)",
        ),
        (
            "loader = DataLoader(\n    data,\n    batch_size=2,\n)",
            "loader = DataLoader(\n    data,\n    batch_size=2,\n    num_workers=4,\n    pin_memory=True,\n)",
        ),
        (
            "loader = DataLoader(\n    data,\n    batch_size=2\n)",
            "loader = DataLoader(\n    data,\n    batch_size=2,\n    num_workers=4,\n    pin_memory=True\n)",
        ),
        (
            "loader = DataLoader(\n    data,\n    batch_size=2,  # small batches\n)",
            "loader = DataLoader(\n    data,\n    batch_size=2,  # small batches\n    num_workers=4,\n"
            "    pin_memory=True,\n)",
        ),
        (
            "loader = DataLoader(\n    data,\n    batch_size=2  # small batches\n)",
            "loader = DataLoader(\n    data,\n    batch_size=2,  # small batches\n    num_workers=4,\n    pin_memory=True\n)",
        ),
        (
            "loader = DataLoader(data,\n                    batch_size=2)",
            "loader = DataLoader(data,\n                    batch_size=2,\n                    num_workers=4,\n"
            "                    pin_memory=True)",
        ),
        (
            "loader = DataLoader(\n        data, batch_size=2)",
            "loader = DataLoader(\n        data, batch_size=2,\n        num_workers=4,\n        pin_memory=True)",
        ),
        (
            "loader = DataLoader(\n    data,\n    num_workers=0,\n)",
            "loader = DataLoader(\n    data,\n    num_workers=4,\n    pin_memory=True,\n)",
        ),
        (
            "loader = DataLoader(data, batch_size=2,\n)",
            "loader = DataLoader(data, batch_size=2, num_workers=4, pin_memory=True,\n)",
        ),
    ],
    ids=[
        "one-line",
        "trailing-comma",
        "no-trailing-comma",
        "comment",
        "comment-no-comma",
        "aligned",
        "hanging",
        "zero-workers",
        "closing-below",
    ],
)
def test_the_keywords_follow_the_calls_layout(loader, fixed):
    source = HEAD + LOOP.format(loader=loader)
    result = fix_in_preview_mode(source, unsafe_fixes=True)
    assert result == HEAD + LOOP.format(loader=fixed)
    assert fix_in_preview_mode(result, unsafe_fixes=True) == result
    assert _found(result) == []


def _add(code: str, keywords=(("k", "1"), ("m", "True"))) -> str | None:
    """`code` with `keywords` added to its first call by the shared helper (None: declined)."""
    import ast

    from gpulint.fixers._arguments import add_keywords
    from gpulint.fixing import Decline, FixContext, apply_edits
    from gpulint.source import Source

    source = Source.from_text(code)
    tree = ast.parse(code)
    call = next(node for node in ast.walk(tree) if isinstance(node, ast.Call))
    edits = add_keywords(FixContext(source, tree), call, list(keywords))
    return None if isinstance(edits, Decline) else apply_edits(source, edits)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("f()\n", "f(k=1, m=True)\n"),
        ("f(**options)\n", "f(**options, k=1, m=True)\n"),
        ("f(\n    a,\n    **options,\n)\n", "f(\n    a,\n    **options,\n    k=1,\n    m=True,\n)\n"),
        ("f(a, (b),)\n", "f(a, (b), k=1, m=True,)\n"),
        ("f(\n\ta,\n\tb,\n)\n", "f(\n\ta,\n\tb,\n\tk=1,\n\tm=True,\n)\n"),
        ("f(\r\n    a,\r\n)\r\n", "f(\r\n    a,\r\n    k=1,\r\n    m=True,\r\n)\r\n"),
        (
            "x = [f(\n        a,\n        g(\n            1,\n        ),\n    )]\n",
            "x = [f(\n        a,\n        g(\n            1,\n        ),\n        k=1,\n        m=True,\n    )]\n",
        ),
        ("f('é',\n  b)\n", "f('é',\n  b,\n  k=1,\n  m=True)\n"),
        ("f(x for x in y)\n", None),  # `f(x for x in y, k=1)` does not parse
    ],
)
def test_the_argument_helper_on_other_layouts(code, expected):
    assert _add(code) == expected


# -- subclasses of torch's DataLoader ------------------------------------------------------

PYG = (
    "import torch\nimport torch_geometric\nfrom torch_geometric.loader import DataLoader, NeighborLoader\n\n"
    'device = "cuda"\n'
    "dataset = torch_geometric.datasets.QM9('data', transform=normalize)\n"
    "data = dataset[0]\n"
)


@pytest.mark.parametrize(
    "call",
    [
        "DataLoader(dataset, batch_size=32, shuffle=True)",
        "NeighborLoader(data, num_neighbors=[10, 10], batch_size=128)",
        "torch_geometric.data.DataLoader(dataset, batch_size=32)",  # the deprecated alias
        "torch_geometric.loader.LinkNeighborLoader(data, num_neighbors=[5], num_workers=0)",
    ],
)
def test_pytorch_geometric_loaders_are_flagged_and_fixed(call):
    source = PYG + f"loader = {call}\n" + FEED
    [diagnostic] = _found(source)
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    fixed = fix_in_preview_mode(source, unsafe_fixes=True)
    assert "num_workers=4" in fixed and "pin_memory=True" in fixed
    assert _found(fixed) == []


@pytest.mark.parametrize(
    "call",
    [
        "DataLoader(dataset, batch_size=32, num_workers=4)",
        "NeighborLoader(data, num_neighbors=[10], **options)",
        "torch_geometric.loader.PrefetchLoader(inner, device=device)",  # a wrapper, not a DataLoader
    ],
)
def test_pytorch_geometric_near_misses(call):
    assert _found(PYG + f"loader = {call}\n" + FEED) == []


def test_pytorch_geometric_loaders_need_a_device_too():
    source = PYG.replace('device = "cuda"', 'device = "cpu"') + "loader = DataLoader(dataset, batch_size=8)\n" + FEED
    assert _found(source) == []


def test_positional_arguments_of_a_pytorch_geometric_loader_are_its_own():
    # PyG's DataLoader(dataset, batch_size, shuffle, follow_batch, exclude_keys, **kwargs)
    source = PYG + "loader = DataLoader(dataset, 32, True, None, ['x'])\n" + FEED
    assert len(_found(source)) == 1


SUBCLASSES = HEAD + textwrap.dedent("""\
    device = "cuda"


    class Plain(DataLoader):
        pass


    class Deeper(Plain):
        pass


    class Forwarding(DataLoader):
        def __init__(self, dataset, **kwargs):
            super().__init__(dataset, **kwargs)


    class Optional(DataLoader):
        def __init__(self, dataset, batch_size=1, num_workers=0):
            super().__init__(dataset, batch_size, num_workers=num_workers)


    class Fast(DataLoader):
        def __init__(self, dataset, num_workers=8):
            super().__init__(dataset, num_workers=num_workers)


    class Closed(DataLoader):
        def __init__(self, dataset):
            super().__init__(dataset, num_workers=2)


    class Unrelated:
        pass


    """)


@pytest.mark.parametrize(
    ("call", "applicability"),
    [
        ("Plain(dataset, batch_size=8)", Applicability.UNSAFE),  # torch's own `__init__`
        ("Deeper(dataset)", Applicability.UNSAFE),
        ("Forwarding(dataset, batch_size=8)", Applicability.DISPLAY),  # its own `__init__` decides
        ("Optional(dataset, 8)", Applicability.DISPLAY),
        ("Optional(dataset, 8, 0)", Applicability.DISPLAY),
    ],
)
def test_the_files_own_subclasses_are_flagged(call, applicability):
    [diagnostic] = _found(SUBCLASSES + f"loader = {call}\n" + FEED)
    assert diagnostic.fix.applicability is applicability


@pytest.mark.parametrize(
    "call",
    [
        "Plain(dataset, 8, False, None, None, 2)",  # torch's positions
        "Fast(dataset)",  # workers by default
        "Closed(dataset)",  # no way to pass them
        "Optional(dataset, 8, 2)",
        "Unrelated()",
    ],
)
def test_subclass_near_misses(call):
    assert _found(SUBCLASSES + f"loader = {call}\n" + FEED) == []


# -- the device evidence comes from the walk ----------------------------------------------

_FED_BY_EVIDENCE = {
    "accelerate-prepare": """
        from accelerate import Accelerator
        from torch.utils.data import DataLoader

        accelerator = Accelerator()
        loader = DataLoader(dataset, batch_size=32)  # GPU305
        model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
        for batch in loader:
            loss = model(**batch).loss
    """,
    "accelerator-device": """
        from accelerate import Accelerator
        from torch.utils.data import DataLoader

        accelerator = Accelerator()
        loader = DataLoader(dataset, batch_size=32)  # GPU305
        for batch in loader:
            batch = batch.to(accelerator.device)
    """,
    "local-rank": """
        import os
        from torch.utils.data import DataLoader

        rank = int(os.environ["LOCAL_RANK"])
        loader = DataLoader(dataset, batch_size=32)  # GPU305
        for features, labels in loader:
            features, labels = features.to(rank), labels.to(rank)
    """,
    "device-from-call-sites": """
        import torch
        from torch.utils.data import DataLoader

        def train(model, loader, where):
            for features in loader:
                model(features.to(where))

        train(model, DataLoader(dataset, batch_size=32), torch.device("cuda"))  # GPU305
    """,
}

_NOT_FED = {
    "collate-on-the-device": """
        from functools import partial
        import torch
        from torch.utils.data import DataLoader

        device = torch.device("cuda")
        collate = partial(pad_batch, device=device)
        loader = DataLoader(dataset, batch_size=8, collate_fn=collate)
        for inputs, targets in loader:
            loss = model(inputs.to(device))
    """,
    "collate-function-moving-to-the-device": """
        import torch
        from torch.utils.data import DataLoader

        device = torch.device("cuda")

        def collate(items):
            return torch.stack(items).to(device)

        loader = DataLoader(dataset, batch_size=8, collate_fn=collate)
        for batch in loader:
            loss = model(batch.to(device))
    """,
    "loader-read-on-the-host-beside-one-that-feeds": """
        import torch
        from torch.utils.data import DataLoader

        device = torch.device("cuda")
        train = DataLoader(dataset, batch_size=8, num_workers=4)
        prompts = DataLoader(prompt_dataset, batch_size=8)
        for batch in train:
            batch = batch.to(device)
        for prompt in prompts:
            print(prompt)
    """,
    "cpu-from-call-sites": """
        import torch
        from torch.utils.data import DataLoader

        def train(model, loader, where):
            for features in loader:
                model(features.to(where))

        train(model, DataLoader(dataset, batch_size=32), torch.device("cpu"))
    """,
    "accelerator-on-cpu": """
        from accelerate import Accelerator
        from torch.utils.data import DataLoader

        accelerator = Accelerator(cpu=True)
        loader = DataLoader(dataset, batch_size=32)
        model, loader = accelerator.prepare(model, loader)
        for batch in loader:
            loss = model(**batch).loss
    """,
}


@pytest.mark.parametrize("source", list(_FED_BY_EVIDENCE.values()), ids=list(_FED_BY_EVIDENCE))
def test_the_loop_that_feeds_a_device_is_known_from_evidence(source):
    text = IMAGES + textwrap.dedent(source)
    expected = [n for n, line in enumerate(text.splitlines(), 1) if line.endswith("# GPU305")]
    assert [d.start.line for d in lint_in_preview_mode(text) if d.code == "GPU305"] == expected


@pytest.mark.parametrize("source", list(_NOT_FED.values()), ids=list(_NOT_FED))
def test_a_loop_that_feeds_the_host_is_left_alone(source):
    assert [d for d in lint_in_preview_mode(IMAGES + textwrap.dedent(source)) if d.code == "GPU305"] == []


_DATASET = """
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda")


class Prompts(Dataset):
    def __init__(self, prompt, count):
        self.prompt, self.count = prompt, count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        return {"prompt": self.prompt, "index": int(index)}


class Images(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        return torch.as_tensor(Image.open(self.paths[index]))


def run(model, paths):
    prompts = Prompts("a cat", 100)
    for batch in DataLoader(prompts, batch_size=4):
        model(batch["prompt"]).to(device)
    for images in DataLoader(Images(paths), batch_size=4):
        model(images.to(device))
"""


def test_a_dataset_whose_items_cost_nothing_needs_no_workers():
    """Items looked up in memory (no call but a few builtins in `__getitem__`): workers cost
    more than they save; a dataset that decodes each item still gets the finding."""
    lines = [d.start.line for d in lint_in_preview_mode(_DATASET) if d.code == "GPU305"]
    assert lines == [_DATASET.splitlines().index("    for images in DataLoader(Images(paths), batch_size=4):") + 1]


def _json_rows_loader(call: str) -> str:
    from gpulint.rules.transfers.dataloader_without_workers import DataloaderWithoutWorkers

    source = DataloaderWithoutWorkers.flagged[0].source
    return source.replace("    loader = DataLoader(JsonRows(lines), batch_size=16)\n", call)


def test_an_explicit_num_workers_0_is_named_as_such():
    source = _json_rows_loader("    loader = DataLoader(JsonRows(lines), batch_size=16, num_workers=0)\n")
    [finding] = [d for d in lint_in_preview_mode(source) if d.code == "GPU305"]
    assert finding.message.startswith("`DataLoader` with `num_workers=0` feeding a device")
    [without] = [
        d
        for d in lint_in_preview_mode(_json_rows_loader("    loader = DataLoader(JsonRows(lines), batch_size=16)\n"))
        if d.code == "GPU305"
    ]
    assert without.message.startswith("`DataLoader` without `num_workers`")


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            "    loader = DataLoader(\n        JsonRows(lines),\n        batch_size=16,\n"
            "        num_workers=0,  # one process while debugging\n    )\n",
            "        num_workers=4,  # one process while debugging\n        pin_memory=True,\n    )\n",
        ),
        (
            "    loader = DataLoader(JsonRows(lines), batch_size=16, num_workers=0)  # debugging\n",
            "    loader = DataLoader(JsonRows(lines), batch_size=16, num_workers=4, pin_memory=True)  # debugging\n",
        ),
    ],
)
def test_the_fix_keeps_comments_on_their_lines(call, expected):
    fixed = fix_in_preview_mode(_json_rows_loader(call), unsafe_fixes=True)
    assert expected in fixed


# -- which binding of the loader's name the loops read ---------------------------------------

_DEVICE = 'device = "cuda"\n'


def test_a_loader_its_binding_never_reaches_a_read_of_is_left_alone():
    never_read = HEAD + _DEVICE + "test_loader = DataLoader(data)\nloader = DataLoader(data)\n" + FEED
    assert [d.start.line for d in _found(never_read)] == [
        never_read.splitlines().index("loader = DataLoader(data)") + 1
    ]
    rebound = HEAD + _DEVICE + "loader = DataLoader(data)\nloader = DataLoader(data, num_workers=2)\n" + FEED
    assert _found(rebound) == []


def test_a_loader_read_on_the_host_and_then_rebound_is_left_alone():
    # the first loader is read for a host statistic; the name's later binding feeds the device
    source = (
        HEAD
        + _DEVICE
        + "loader = DataLoader(data)\nmean = sum(x.sum() for x in loader)\n"
        + "loader = DataLoader(data, num_workers=2)\n"
        + FEED
    )
    assert _found(source) == []


def test_a_loader_read_before_its_name_is_rebound_is_still_flagged():
    # `loader = prepare(loader)` reads the old loader before binding the new one
    source = HEAD + _DEVICE + "loader = DataLoader(data)\nloader = wrap(loader)\n" + FEED
    assert len(_found(source)) == 1
    passed_on = HEAD + _DEVICE + "loader = DataLoader(data)\ntrain(loader)\n" + FEED.replace("loader", "other")
    assert len(_found(passed_on)) == 1


def test_a_loader_read_only_by_a_masked_ipython_line_is_still_flagged():
    # `%time train(loader)` hides its read from the walk: the loader is not "never read"
    from gpulint.config import Config
    from gpulint.notebook import lint_cells

    cells = [
        HEAD + _DEVICE + "loader = DataLoader(data)\n",
        "def train(batches):\n    for x in batches:\n        x = x.to(device)\n",
        "%time train(loader)\n",
    ]
    found = [d for cell in lint_cells(cells, config=Config(preview=True)) for d in cell if d.code == "GPU305"]
    assert [d.cell for d in found] == [1]


def test_a_magic_that_runs_no_code_hides_no_read():
    from gpulint.config import Config
    from gpulint.notebook import lint_cells

    cells = [
        HEAD + _DEVICE + "unread = DataLoader(data)\nloader = DataLoader(data)\n",
        "%matplotlib inline\n!nvidia-smi\n",
        "for x in loader:\n    x = x.to(device)\n",
    ]
    found = [d for cell in lint_cells(cells, config=Config(preview=True)) for d in cell if d.code == "GPU305"]
    assert [(d.cell, d.start.line) for d in found] == [(1, cells[0].count("\n"))]


def test_a_loader_lightning_fabric_puts_on_the_device_counts():
    source = (
        "import lightning as L\nimport torch\nfrom torch.utils.data import DataLoader\n"
        + IMAGES
        + "fabric = L.Fabric(accelerator='cuda')\n"
        "loader = fabric.setup_dataloaders(DataLoader(data, batch_size=32))\n"
        "for x in loader:\n    print(x)\n"
    )
    assert len(_found(source)) == 1
    on_host = source.replace("accelerator='cuda'", "accelerator='cpu'")
    assert _found(on_host) == []


LIGHTNING = (
    "import lightning as L\nfrom torch.utils.data import DataLoader\n"
    + IMAGES
    + "\n\nclass Model(L.LightningModule):\n    pass\n\n\n"
)


@pytest.mark.parametrize(
    "body",
    [
        # a LightningModule's loader hook: the trainer moves each batch to its accelerator
        "class Images(L.LightningModule):\n    def train_dataloader(self):\n"
        "        return DataLoader(data, batch_size=32)\n",
        # handed to a Trainer's fit, by position or by keyword, in a function too
        "loader = DataLoader(data, batch_size=32)\ntrainer = L.Trainer(max_epochs=3)\ntrainer.fit(Model(), loader)\n",
        "def main():\n    loader = DataLoader(data, batch_size=32)\n"
        "    trainer = L.Trainer(accelerator='gpu')\n    trainer.fit(Model(), train_dataloaders=loader)\n",
    ],
    ids=["loader-hook", "fit", "fit-keyword-in-a-function"],
)
def test_loaders_lightning_feeds_to_its_device(body):
    assert len(_found(LIGHTNING + body)) == 1


@pytest.mark.parametrize(
    "body",
    [
        "loader = DataLoader(data, batch_size=32)\ntrainer = L.Trainer(accelerator='cpu')\ntrainer.fit(Model(), loader)\n",
        # a method of that name on a class that is no LightningModule
        "class Source:\n    def train_dataloader(self):\n        return DataLoader(data, batch_size=32)\n",
        # a fit of something that is not a Lightning Trainer
        "loader = DataLoader(data, batch_size=32)\nrunner = make_runner()\nrunner.fit(Model(), loader)\n",
    ],
    ids=["cpu-trainer", "other-class", "other-fit"],
)
def test_loaders_lightning_keeps_on_the_host_or_does_not_get(body):
    assert _found(LIGHTNING + body) == []


IGNITE = (
    "import torch\nfrom ignite.engine import create_supervised_evaluator, create_supervised_trainer\n"
    "from torch.utils.data import DataLoader\n" + IMAGES + "\n\n"
    "def loaders():\n    return DataLoader(data, batch_size=32)\n\n\n"
)


@pytest.mark.parametrize(
    ("engine", "flagged"),
    [
        # an Ignite engine given a device moves each batch of the loaders it runs there
        ("trainer = create_supervised_trainer(model, optimizer, loss, device='cuda')\n", True),
        ("evaluator = create_supervised_evaluator(model, metrics, torch.device('cuda'))\n", True),
        # near-misses: on the host, or no device (the engine moves nothing)
        ("trainer = create_supervised_trainer(model, optimizer, loss, device='cpu')\n", False),
        ("trainer = create_supervised_trainer(model, optimizer, loss)\n", False),
    ],
)
def test_loaders_of_a_file_whose_ignite_engine_places_batches_on_a_device(engine, flagged):
    source = IGNITE + engine + "trainer.run(loaders(), max_epochs=10)\n"
    assert bool(_found(source)) is flagged


def test_a_helper_given_the_host_at_every_call_feeds_no_device():
    """`train(model, device, loader)` called with `device = torch.device("cpu")`: the
    parameter's batches stay on the host."""
    source = HEAD + textwrap.dedent("""\
        def train(model, device, batches):
            for x, y in batches:
                model(x.to(device))


        device = torch.device("cpu")
        loader = DataLoader(data, batch_size=32)
        for epoch in range(3):
            train(model, device, loader)
        """)
    assert _found(source) == []
    assert len(_found(source.replace('torch.device("cpu")', 'torch.device("cuda")'))) == 1
