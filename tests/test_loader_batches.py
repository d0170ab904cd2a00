"""A loop over a loader that hands out a few batches runs a few times: a benchmark's test
split of two graphs, MNIST's test set in batches of 1,000. gpulint counts the batches where
the file shows the dataset (one whose size its library documents, or a slice of one) and a
`batch_size` known at least some number (a literal, a name or parameter holding one, a
script option's literal default), following the loader through names bound once and through the
arguments every call of the loop's function passes. The host-copy rules (GPU301, GPU307, GPU308) are the ones that ask."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source
from gpulint.config import Config

from .rule_helpers import HOST_COPIES, lint_in_preview_mode

PREVIEW = Config(preview=True)
HEADER = """\
import torch
from torch.utils.data import DataLoader
from torchvision import datasets
from tqdm import tqdm
from torch_geometric.datasets import PPI, MoleculeNet, TUDataset, ZINC
from torch_geometric.loader import DataLoader as GraphLoader

device = torch.device("cuda")
model = torch.nn.Linear(4, 4).to(device)
"""


def _flagged(body: str) -> list[str]:
    """The lines of the host copies reported, in preview mode (where GPU308 reports the
    totals of loops that only evaluate, as these do)."""
    source = HEADER + textwrap.dedent(body)
    lines = source.splitlines()
    return [lines[d.start.line - 1].strip() for d in lint_source(source, config=PREVIEW) if d.code in HOST_COPIES]


EVALUATE = textwrap.dedent("""\
    def test(loader):
        correct = 0
        for data in loader:
            correct += int((model(data.x.to(device)) > 0).sum())
        return correct

    for epoch in range(100):
        test(val_loader)
        test(test_loader)
    """)
SYNC = "correct += int((model(data.x.to(device)) > 0).sum())"


def test_a_two_graph_split_read_through_a_function_parameter_is_a_few_batches():
    loaders = textwrap.dedent("""\
        val_loader = GraphLoader(PPI("data", split="val"), batch_size=2)
        test_loader = GraphLoader(PPI("data", split="test"), batch_size=2)
        """)
    assert _flagged(loaders + EVALUATE) == []
    # the training split, one graph at a time: 20 batches
    assert _flagged(
        loaders.replace('split="test"', 'split="train"').replace("batch_size=2)\n", "batch_size=1)\n", 2) + EVALUATE
    ) == [SYNC]


@pytest.mark.parametrize(
    "test_loader",
    [
        "GraphLoader(TUDataset('data', name='REDDIT-BINARY'), batch_size=32)",  # 63 batches
        "GraphLoader(TUDataset('data', name=args_name), batch_size=2)",  # a dataset by a name not written
        "GraphLoader(MyGraphs(), batch_size=2)",  # a dataset of its own
        "GraphLoader(PPI('data', split='val'), sampler=sampler)",  # batches a sampler draws
        "GraphLoader(PPI('data', split='val'), batch_size=size)",  # a batch size not written
    ],
)
def test_a_call_that_passes_a_loader_of_unknown_or_many_batches_keeps_the_finding(test_loader):
    loaders = f"val_loader = GraphLoader(PPI('data', split='val'), batch_size=2)\ntest_loader = {test_loader}\n"
    assert _flagged(loaders + EVALUATE) == [SYNC]


def test_a_function_handed_on_as_a_value_has_callers_out_of_view():
    body = """\
        val_loader = GraphLoader(PPI("data", split="val"), batch_size=2)
        test_loader = val_loader

        def test(loader):
            correct = 0
            for data in loader:
                correct += int((model(data.x.to(device)) > 0).sum())
            return correct

        run_every_epoch(test)
        test(val_loader)
        """
    assert _flagged(body) == [SYNC]


def test_a_sliced_dataset_read_as_a_global_is_at_most_the_dataset():
    body = """\
        dataset = MoleculeNet("data", name="ESOL").shuffle()
        N = len(dataset) // 10
        train_loader = GraphLoader(dataset[2 * N:], batch_size=200, shuffle=True)

        def train():
            total = 0.0
            for data in train_loader:
                loss = model(data.x.to(device)).sum()
                total += float(loss)
            return total
        """
    assert _flagged(body) == []  # at most 1,128 molecules: 6 batches
    assert _flagged(body.replace("batch_size=200", "batch_size=32")) == ["total += float(loss)"]  # 36


@pytest.mark.parametrize("wrap", ["{}", "enumerate({})", "tqdm({})"])
def test_mnist_test_set_in_batches_of_a_thousand_is_ten_batches(wrap):
    body = f"""\
        test_loader = DataLoader(datasets.MNIST("data", train=False), batch_size=1000)
        for item in {wrap.format("test_loader")}:
            print(model(item[0].to(device)).sum().item())
        """
    assert _flagged(body) == []
    assert _flagged(body.replace("train=False", "train=True")) == [  # 60 batches of 1,000
        "print(model(item[0].to(device)).sum().item())"
    ]


def test_a_split_not_written_out_is_at_most_the_largest_part():
    body = """\
        loader = GraphLoader(ZINC("data", subset=True, split=which), batch_size=1024)
        for data in loader:
            print(model(data.x.to(device)).sum().item())
        """
    assert _flagged(body) == []  # at most ZINC's 10,000-graph subset: 10 batches
    assert _flagged(body.replace("subset=True", "subset=False")) == ["print(model(data.x.to(device)).sum().item())"]


def test_a_loader_rebound_in_the_function_is_not_followed():
    body = """\
        small = GraphLoader(PPI("data", split="val"), batch_size=2)

        def evaluate(loader):
            if loader is None:
                loader = make_loader()
            for data in loader:
                print(model(data.x.to(device)).sum().item())

        evaluate(small)
        """
    assert _flagged(body) == ["print(model(data.x.to(device)).sum().item())"]


def test_a_slice_bounded_by_a_share_of_the_datasets_length_is_at_most_that_share():
    loaders = textwrap.dedent("""\
        dataset = TUDataset("data", name="PROTEINS", pre_filter=keep).shuffle()
        n = (len(dataset) + 9) // 10
        test_loader = GraphLoader(dataset[:n], batch_size=20)
        val_loader = GraphLoader(dataset[n:2 * n], batch_size=20)
        train_loader = GraphLoader(dataset[2 * n:], batch_size=20)
        """)
    assert _flagged(loaders + EVALUATE) == []  # at most 112 and 224 graphs: 6 and 12 batches
    # the rest of the dataset is bounded by the dataset only: up to 56 batches
    assert _flagged(loaders + EVALUATE.replace("test(val_loader)", "test(train_loader)")) == [SYNC]
    # a difference is not bounded by bounds on its terms
    assert _flagged(loaders.replace("dataset[:n]", "dataset[:len(dataset) - n]") + EVALUATE) == [SYNC]


GPU305_HEAD = """\
import torch
from torch.utils.data import DataLoader
from torchvision import datasets

device = torch.device("cuda")

"""


def _gpu305_lines(body: str) -> list[str]:
    source = GPU305_HEAD + textwrap.dedent(body)
    lines = source.splitlines()
    return [lines[d.start.line - 1].strip() for d in lint_in_preview_mode(source) if d.code == "GPU305"]


def test_gpu305_leaves_a_loader_of_a_few_batches_without_workers():
    body = """\
        loader = DataLoader(datasets.MNIST("data", train=False, transform=to_tensor), batch_size=1000)
        for images, labels in loader:
            images = images.to(device)
        """
    assert _gpu305_lines(body) == []  # 10 batches per pass: workers would start for each
    assert _gpu305_lines(body.replace("train=False", "train=True")) == [
        'loader = DataLoader(datasets.MNIST("data", train=True, transform=to_tensor), batch_size=1000)'
    ]


@pytest.mark.parametrize(
    ("setup", "size", "few"),
    [
        ("batch = 1000\n", "batch", True),  # a name bound once
        ("batch = 1000\nif wide:\n    batch = 64\n", "batch", False),  # the smallest value counts
        # a script option's literal default, its dest spelled with dashes
        (
            "import argparse\nparser = argparse.ArgumentParser()\n"
            "parser.add_argument('--val-batch-size', type=int, default=1000)\nargs = parser.parse_args()\n",
            "args.val_batch_size",
            True,
        ),
        (
            "import argparse\nparser = argparse.ArgumentParser()\n"
            "parser.add_argument('--size', dest='val_size', type=int, default=50)\nargs = parser.parse_args()\n",
            "args.val_size",
            False,
        ),
        ("args = load_options()\n", "args.val_batch_size", False),  # no parser the file shows
    ],
)
def test_gpu305_follows_a_batch_size_through_names_and_script_options(setup, size, few):
    body = setup + textwrap.dedent(f"""\
        loader = DataLoader(datasets.MNIST("data", train=False, transform=to_tensor), batch_size={size})
        for images, labels in loader:
            images = images.to(device)
        """)
    assert (_gpu305_lines(body) == []) is few


def test_gpu305_follows_a_batch_size_through_the_parameters_of_two_functions():
    body = """\
        import argparse


        def loaders(val_batch_size):
            return DataLoader(datasets.MNIST("data", train=False, transform=to_tensor), batch_size=val_batch_size)


        def run(val_batch_size):
            for images, labels in loaders(val_batch_size):
                images = images.to(device)


        parser = argparse.ArgumentParser()
        parser.add_argument("--val_batch_size", type=int, default=1000)
        args = parser.parse_args()
        run(args.val_batch_size)
        """
    assert _gpu305_lines(body) == []  # 10 batches of 1,000 per pass
    assert len(_gpu305_lines(body.replace("default=1000", "default=64"))) == 1


@pytest.mark.parametrize(
    ("call", "few"),
    [
        ("main(args)", True),  # the parsed options handed on
        ("main(load_options())", False),  # near-miss: other options under the same name
    ],
)
def test_gpu305_follows_the_parsed_options_into_a_function_only_when_handed_them(call, few):
    body = f"""\
        import argparse


        def main(args):
            loader = DataLoader(datasets.MNIST("data", train=False, transform=to_tensor), batch_size=args.size)
            for images, labels in loader:
                images = images.to(device)


        parser = argparse.ArgumentParser()
        parser.add_argument("--size", type=int, default=1000)
        args = parser.parse_args()
        {call}
        """
    assert (_gpu305_lines(body) == []) is few


def test_gpu305_counts_rearranging_a_tensor_held_in_memory_as_a_lookup():
    body = """\
        class Reversed(torch.utils.data.Dataset):
            def __init__(self, size):
                self.data = torch.randint(10, size=(size, 16))

            def __len__(self):
                return len(self.data)

            def __getitem__(self, index):
                row = self.data[index]
                return row, torch.flip(row, dims=(0,))


        for x, y in DataLoader(Reversed(50_000), batch_size=128):
            x, y = x.to(device), y.to(device)
        """
    assert _gpu305_lines(body) == []
    assert _gpu305_lines(body.replace("torch.flip(row, dims=(0,))", "torch.load(f'labels/{index}.pt')")) == [
        "for x, y in DataLoader(Reversed(50_000), batch_size=128):"
    ]


def test_gpu305_counts_a_synthetic_dataset_made_with_torch_factories_as_cheap():
    body = """\
        class RandomTokens(torch.utils.data.Dataset):
            def __len__(self):
                return 100_000

            def __getitem__(self, index):
                ids = torch.randint(0, 50_000, (512,), dtype=torch.long)
                return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


        for batch in DataLoader(RandomTokens(), batch_size=8):
            ids = batch["input_ids"].to(device)
        """
    assert _gpu305_lines(body) == []
    assert _gpu305_lines(body.replace("torch.ones_like(ids)", "tokenizer(texts[index])")) == [
        "for batch in DataLoader(RandomTokens(), batch_size=8):"
    ]


def test_a_name_rebound_at_the_top_level_holds_its_last_value_before_the_read():
    loaders = textwrap.dedent("""\
        dataset = TUDataset("data", name="PROTEINS")
        dataset = dataset.shuffle()
        n = (len(dataset) + 9) // 10
        val_loader = GraphLoader(dataset[:n], batch_size=20)
        test_loader = GraphLoader(dataset[n:2 * n], batch_size=20)
        """)
    assert _flagged(loaders + EVALUATE) == []
    # rebound in a branch: which dataset it holds depends on the path
    branched = loaders.replace("dataset = dataset.shuffle()", "if big:\n    dataset = TUDataset('data', name=other)")
    assert _flagged(branched + EVALUATE) == [SYNC]
    # rebound after the loaders are made: the loaders keep the first dataset
    assert _flagged(loaders + "dataset = TUDataset('data', name=other)\n" + EVALUATE) == []


STEPPED = """\
from torch_geometric.loader import GraphSAINTRandomWalkSampler, RandomNodeLoader

loader = {loader}


def train():
    total = 0.0
    for data in loader:
        loss = model(data.x.to(device)).sum()
        total += loss.item()
    return total
"""


@pytest.mark.parametrize(
    ("loader", "few"),
    [
        ("GraphSAINTRandomWalkSampler(data, batch_size=6000, walk_length=2, num_steps=5)", True),
        ("GraphSAINTRandomWalkSampler(data, 6000, 2, 5)", True),
        ("GraphSAINTRandomWalkSampler(data, batch_size=6000, walk_length=2)", True),  # one step by default
        ("RandomNodeLoader(data, num_parts=10, shuffle=True)", True),
        ("GraphSAINTRandomWalkSampler(data, batch_size=6000, walk_length=2, num_steps=100)", False),
        ("GraphSAINTRandomWalkSampler(data, batch_size=6000, walk_length=2, num_steps=steps)", False),
        ("GraphSAINTRandomWalkSampler(data, batch_size=6000, walk_length=2, **options)", False),
        ("RandomNodeLoader(data, num_parts=200)", False),
    ],
)
def test_a_sampler_that_says_how_many_batches_it_hands_out(loader, few):
    """A GraphSAINT sampler runs `num_steps` iterations per epoch, `RandomNodeLoader` one per
    part: at most 16 is a few iterations, whatever the graph."""
    assert _flagged(STEPPED.format(loader=loader)) == ([] if few else ["total += loss.item()"])


def test_a_part_of_random_split_has_the_length_given():
    source = textwrap.dedent("""\
        from torchvision.datasets import FashionMNIST
        from torch.utils.data import random_split
        train_set, val_set = random_split(FashionMNIST("d", train=True), [50000, 10000])
        head, rest = random_split(datasets.MNIST("d", train=False), [0.05, 0.95])
        """)
    loop = "for x, y in {}:\n    print(model(x.to(device)).sum().item())\n"
    read = "print(model(x.to(device)).sum().item())"
    assert _flagged(source + loop.format("DataLoader(val_set, batch_size=1024)")) == []  # 10 batches
    assert _flagged(source + loop.format("DataLoader(train_set, batch_size=1024)")) == [read]  # 49
    assert _flagged(source + loop.format("DataLoader(head, batch_size=100)")) == []  # 500 of MNIST's 10,000 test images
    assert _flagged(source + loop.format("DataLoader(rest, batch_size=100)")) == [read]
    # lengths not written out, or the part rebound: not known
    assert _flagged(
        source.replace("[50000, 10000]", "lengths") + loop.format("DataLoader(val_set, batch_size=1024)")
    ) == [read]
    assert _flagged(
        source + "val_set = FashionMNIST('d', train=True)\n" + loop.format("DataLoader(val_set, batch_size=1024)")
    ) == [read]
