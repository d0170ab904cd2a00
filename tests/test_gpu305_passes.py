"""GPU305 outside preview mode leaves a loader the code reads on one pass only (a test
split predicted once after training): every loop over it runs once, at a script's top
level or in a function the file calls once from there. Preview mode reports those too."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source

from .rule_helpers import lint_in_preview_mode

HEAD = """\
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
images = datasets.ImageFolder("images", transform=transforms.ToTensor())
"""


def _lines(body: str, preview: bool = False) -> list[int]:
    source = HEAD + textwrap.dedent(body)
    found = (lint_in_preview_mode if preview else lint_source)(source)
    return [d.start.line - HEAD.count("\n") for d in found if d.code == "GPU305"]


MANY_PASSES = {
    "epoch-loop": """\
        loader = DataLoader(images, batch_size=32)
        for epoch in range(5):
            for x, y in loader:
                x = x.to(device)
        """,
    "while-loop": """\
        loader = DataLoader(images, batch_size=32)
        step = 0
        while step < 1000:
            for x, y in loader:
                x = x.to(device)
                step += 1
        """,
    "epochs-bound-to-a-name": """\
        loader = DataLoader(images, batch_size=32)
        epochs = 3
        for epoch in range(epochs):
            for x, y in loader:
                x = x.to(device)
        """,
    "handed-to-a-function-called-per-epoch": """\
        loader = DataLoader(images, batch_size=32)

        def train_epoch(model, batches):
            for x, y in batches:
                model(x.to(device))

        for epoch in range(10):
            train_epoch(model, loader)
        """,
    "made-in-a-function-called-per-epoch": """\
        def validate(model):
            loader = DataLoader(images, batch_size=32)
            for x, y in loader:
                model(x.to(device))

        for epoch in range(10):
            validate(model)
        """,
    "a-function-that-loops-over-its-parameter-per-epoch": """\
        loader = DataLoader(images, batch_size=32)

        def fit(model, batches, epochs):
            for epoch in range(epochs):
                for x, y in batches:
                    model(x.to(device))

        fit(model, loader, 10)
        """,
    "a-function-nobody-in-the-file-calls": """\
        def evaluate(model):
            loader = DataLoader(images, batch_size=32)
            for x, y in loader:
                model(x.to(device))
        """,
    "handed-to-a-function-the-file-does-not-show": """\
        from trainer import fit

        loader = DataLoader(images, batch_size=32)
        fit(model, loader)
        for x, y in loader:
            x = x.to(device)
        """,
    "read-once-and-in-an-epoch-loop": """\
        loader = DataLoader(images, batch_size=32)
        for x, y in loader:
            x = x.to(device)
        for epoch in range(5):
            for x, y in loader:
                x = x.to(device)
        """,
    "a-progress-bar-read-per-epoch": """\
        from tqdm import tqdm

        loader = DataLoader(images, batch_size=32)
        bar = tqdm(loader)
        for epoch in range(3):
            for x, y in bar:
                x = x.to(device)
        """,
    "epochs-counted-from-one": """\
        loader = DataLoader(images, batch_size=32)
        n_epochs = 2
        for epoch in range(1, n_epochs + 1):
            for x, y in loader:
                x = x.to(device)
        """,
    "a-method": """\
        class Trainer:
            def evaluate(self, model):
                loader = DataLoader(images, batch_size=32)
                for x, y in loader:
                    model(x.to(device))


        Trainer().evaluate(model)
        """,
}


@pytest.mark.parametrize("body", MANY_PASSES.values(), ids=MANY_PASSES)
def test_a_loader_read_on_many_passes_or_out_of_view_is_flagged(body):
    line = (
        textwrap.dedent(body)
        .splitlines()
        .index(next(s for s in textwrap.dedent(body).splitlines() if "DataLoader(" in s))
        + 1
    )
    assert _lines(body) == [line]
    assert _lines(body, preview=True) == [line]


ONE_PASS = {
    "a-test-split-after-training": """\
        test_loader = DataLoader(images, batch_size=32)
        predictions = []
        for x, _ in test_loader:
            predictions.append(model(x.to(device)).argmax(1))
        """,
    "one-epoch": """\
        loader = DataLoader(images, batch_size=32)
        for epoch in range(1):
            for x, y in loader:
                x = x.to(device)
        """,
    "epochs-bound-to-one": """\
        loader = DataLoader(images, batch_size=32)
        n_epochs = 1
        for epoch in range(n_epochs):
            for x, y in loader:
                x = x.to(device)
        """,
    "handed-once-to-a-function-that-loops-once": """\
        test_loader = DataLoader(images, batch_size=32)

        def evaluate(model, batches):
            correct = 0
            for x, y in batches:
                correct += (model(x.to(device)).argmax(1) == y.to(device)).sum()
            return correct

        print(evaluate(model, batches=test_loader))
        """,
    "made-in-a-function-called-once": """\
        def predict(model):
            loader = DataLoader(images, batch_size=32)
            return [model(x.to(device)) for x, _ in loader]

        outputs = predict(model)
        """,
    "one-epoch-counted-from-one": """\
        loader = DataLoader(images, batch_size=32)
        n_epochs = 1
        for epoch in range(1, n_epochs + 1):
            for x, y in loader:
                x = x.to(device)
        """,
    "looked-at-and-measured-then-read-once": """\
        test_loader = DataLoader(images, batch_size=32)
        first, _ = next(iter(test_loader))
        print(len(test_loader), len(test_loader.dataset))
        for x, _ in test_loader:
            x = x.to(device)
        """,
    "through-a-progress-bar-bound-to-a-name": """\
        from tqdm import tqdm

        test_loader = DataLoader(images, batch_size=32)
        bar = tqdm(test_loader, total=len(test_loader))
        for step, (x, _) in enumerate(bar):
            x = x.to(device)
        """,
    "a-comprehension": """\
        loader = DataLoader(images, batch_size=32)
        outputs = [model(x.to(device)) for x, _ in loader]
        """,
    "not-bound-to-a-name": """\
        for x, _ in DataLoader(images, batch_size=32):
            x = x.to(device)
        """,
}


@pytest.mark.parametrize("body", ONE_PASS.values(), ids=ONE_PASS)
def test_a_loader_read_on_one_pass_is_reported_in_preview_mode_only(body):
    assert _lines(body) == []
    assert len(_lines(body, preview=True)) == 1


def test_a_function_called_twice_at_the_top_level_reads_each_of_its_loaders_once():
    body = """\
        def predict(model, dataset):
            loader = DataLoader(dataset, batch_size=32)
            return [model(x.to(device)) for x, _ in loader]

        valid = predict(model, images)
        test = predict(model, images)
        """
    assert _lines(body) == []
    per_fold = body.replace("valid = predict", "for fold in range(5):\n            valid = predict")
    assert _lines(per_fold) == [2]


PEEK = """\
    test_loader = DataLoader(images, batch_size=32)
    batches = iter(test_loader)
    first, _ = next(batches)
    second, _ = next(batches)
    print(model(first.to(device)).shape, second.shape)
    """


def test_a_loader_looked_at_through_an_iterator_is_left_alone():
    assert _lines(PEEK) == []
    assert _lines(PEEK, preview=True) == []


def test_an_iterator_read_once_per_step_reads_the_loader_through():
    body = """\
        loader = DataLoader(images, batch_size=32)
        for epoch in range(10):
            batches = iter(loader)
            for step in range(len(loader)):
                x, _ = next(batches)
                model(x.to(device))
        """
    assert _lines(body) == [1]
