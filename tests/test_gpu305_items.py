"""GPU305 asks for evidence that loading an item costs something: library datasets that
decode or transform items, per-item transforms, dataset classes of the file that do work.
Datasets of rows already in memory, and datasets nothing in the file describes, are left
alone."""

from __future__ import annotations

import textwrap

import pytest

from .rule_helpers import lint_in_preview_mode

HEAD = textwrap.dedent("""\
    import torch
    import torch_geometric.transforms as T
    from datasets import Dataset, load_dataset, load_from_disk
    from torch.utils.data import ConcatDataset, DataLoader, Subset, TensorDataset, random_split
    from torch_geometric.datasets import TUDataset
    from torchvision import datasets, transforms

    device = torch.device("cuda")
    """)
FEED = "for batch in loader:\n    batch = batch.to(device)\n"


def _flagged(body: str) -> bool:
    source = HEAD + textwrap.dedent(body) + FEED
    return any(d.code == "GPU305" for d in lint_in_preview_mode(source))


WORK = {
    "torchvision": "loader = DataLoader(datasets.CIFAR10('data', download=True), batch_size=64)\n",
    "image-folder-split": """\
        images = datasets.ImageFolder('train', transform=transforms.ToTensor())
        train, valid = random_split(images, [0.9, 0.1])
        loader = DataLoader(train, batch_size=64)
        """,
    "transform-keyword": "loader = DataLoader(TUDataset('data', 'MUTAG', transform=T.NormalizeFeatures())[:100])\n",
    "hf-with-transform": "loader = DataLoader(load_dataset('beans')['train'].with_transform(augment), batch_size=8)\n",
    "hf-set-transform": """\
        beans = load_dataset('beans', split='train')
        beans.set_transform(augment)
        loader = DataLoader(beans, batch_size=8)
        """,
    "pyg-transform-set-later": """\
        graphs = TUDataset('data', 'MUTAG')
        graphs.transform = T.NormalizeFeatures()
        loader = DataLoader(graphs)
        """,
    "concat-with-one-decoding": """\
        both = ConcatDataset([TensorDataset(torch.zeros(4, 2)), datasets.MNIST('data')])
        loader = DataLoader(both)
        """,
    "file-class-that-reads": """\
        class Files(torch.utils.data.Dataset):
            def __init__(self, paths):
                self.paths = paths

            def __len__(self):
                return len(self.paths)

            def __getitem__(self, index):
                return torch.load(self.paths[index])


        loader = DataLoader(Subset(Files(paths), range(10)), batch_size=4)
        """,
    "parameter-given-by-every-call": """\
        def make(dataset):
            return DataLoader(dataset, batch_size=32)


        loader = make(datasets.MNIST('data', transform=transforms.ToTensor()))
        """,
    "returned-by-a-function": """\
        def build():
            return datasets.FashionMNIST('data', transform=transforms.ToTensor())


        loader = DataLoader(build(), batch_size=32)
        """,
    "class-made-by-its-class-method": """\
        class Rows(torch.utils.data.Dataset):
            def __init__(self, frame):
                self.frame = frame

            @classmethod
            def from_csv(cls, path):
                return cls(read(path))

            def __len__(self):
                return len(self.frame)

            def __getitem__(self, index):
                return transforms.functional.rotate(self.frame[index], 90)


        loader = DataLoader(Rows.from_csv('rows.csv'), batch_size=32)
        """,
    "class-transforming-per-item-then-casting": """\
        class Held(torch.utils.data.Dataset):
            def __init__(self, images):
                self.images = images

            def __len__(self):
                return len(self.images)

            def __getitem__(self, index):
                return transforms.functional.rotate(self.images[index], 90).float()


        loader = DataLoader(Held(images), batch_size=32)
        """,
    "class-slicing-a-tensor-then-transforming": """\
        class Sampler(torch.utils.data.Dataset):
            def __init__(self, data, seq_len):
                self.data, self.seq_len = data, seq_len

            def __getitem__(self, index):
                start = torch.randint(0, self.data.size(0) - self.seq_len - 1, (1,))
                return transforms.functional.rotate(self.data[start : start + self.seq_len], 90)


        loader = DataLoader(Sampler(images, 8), batch_size=4)
        """,
    "comprehension-over-datasets": """\
        train_ds, valid_ds = [datasets.ImageFolder(f) for f in ('train', 'valid')]
        loader, other = [DataLoader(ds, batch_size=8) for ds in (train_ds, valid_ds)]
        """,
}

CHEAP = {
    "class-method-that-may-make-something-else": """\
        class Rows(torch.utils.data.Dataset):
            def __init__(self, frame):
                self.frame = frame

            @classmethod
            def from_csv(cls, path):
                return load(path)  # not an instance made by `cls`: unknown

            def __getitem__(self, index):
                return transforms.functional.rotate(self.frame[index], 90)


        loader = DataLoader(Rows.from_csv('rows.csv'), batch_size=32)
        """,
    "class-putting-items-on-the-device": """\
        class OnDevice(torch.utils.data.Dataset):
            def __init__(self, features, labels):
                self.features, self.labels = features, labels

            def __len__(self):
                return len(self.labels)

            def __getitem__(self, index):  # workers cannot: CUDA does not survive a fork
                label = torch.tensor(self.labels[index]).to(device)
                return transforms.functional.rotate(self.features[index], 90), label


        loader = DataLoader(OnDevice(features, labels), batch_size=32)
        """,
    "hf-pre-tokenized": """\
        raw = load_dataset('glue', 'mrpc')
        tokenized = raw.map(tokenize, batched=True)
        tokenized = tokenized.remove_columns(['sentence1', 'sentence2']).with_format('torch')
        loader = DataLoader(tokenized['train'], batch_size=8, collate_fn=collator)
        """,
    "hf-from-disk": "loader = DataLoader(load_from_disk('tokenized').select(range(1000)), batch_size=8)\n",
    "hf-from-dict": "loader = DataLoader(Dataset.from_dict({'x': rows}).with_format('torch'), batch_size=8)\n",
    "tensor-dataset": "loader = DataLoader(TensorDataset(torch.zeros(100, 3), torch.ones(100)), batch_size=8)\n",
    "list-of-tensors": "loader = DataLoader([torch.zeros(3) for _ in range(100)], batch_size=8)\n",
    "pyg-in-memory": """\
        graphs = TUDataset('data', 'PROTEINS', pre_transform=T.ToSparseTensor()).shuffle()
        loader = DataLoader(graphs[:100], batch_size=32)
        """,
    "pyg-transform-none": "loader = DataLoader(TUDataset('data', 'PROTEINS', transform=None))\n",
    "rebound-through-map": """\
        rows = load_dataset('imdb', split='train')
        rows = rows.map(tokenize)
        rows = rows.filter(keep)
        loader = DataLoader(rows, batch_size=8)
        """,
    # nothing in the file says what the items are: no finding without evidence
    "unknown-parameter": """\
        def make(dataset):
            return DataLoader(dataset, batch_size=32)


        loader = make(shared.dataset)
        """,
    "imported-class": "loader = DataLoader(elsewhere.Records('data'), batch_size=32)\n",
    "class-holding-images-cast-per-item": """\
        class Held(torch.utils.data.Dataset):
            def __init__(self, images, labels):
                self.images, self.labels = [torchvision.io.read_image(p) for p in images], labels

            def __len__(self):
                return len(self.images)

            def __getitem__(self, index):
                return self.images[index].float(), self.labels[index]


        loader = DataLoader(Held(paths, labels), batch_size=32)
        """,
    "parameter-never-passed": """\
        def make(dataset):
            return DataLoader(dataset, batch_size=32)
        """,
    "class-slicing-a-tensor-it-holds": """\
        class Sampler(torch.utils.data.Dataset):
            def __init__(self, data, seq_len):
                self.data, self.seq_len = data, seq_len

            def __len__(self):
                return self.data.size(0) // self.seq_len

            def __getitem__(self, index):
                start = torch.randint(0, self.data.size(0) - self.seq_len - 1, (1,))
                return self.data[start : start + self.seq_len + 1].long()


        loader = DataLoader(Sampler(torch.from_numpy(tokens), 1024), batch_size=4)
        """,
    "class-casting-with-a-dtype": """\
        class Tokenized(torch.utils.data.Dataset):
            def __init__(self, rows):
                self.rows = rows

            def __len__(self):
                return len(self.rows)

            def __getitem__(self, i):
                ids = self.rows[i]["input_ids"].type(torch.int64)
                return ids, self.rows[i]["labels"].to(torch.long)


        loader = DataLoader(Tokenized(rows), batch_size=32)
        """,
}


@pytest.mark.parametrize("body", list(WORK.values()), ids=list(WORK))
def test_items_that_cost_work_are_flagged(body):
    assert _flagged(body)


@pytest.mark.parametrize("body", list(CHEAP.values()), ids=list(CHEAP))
def test_items_in_memory_or_unknown_are_left_alone(body):
    assert not _flagged(body)


def test_one_call_passing_a_decoding_dataset_is_evidence_enough():
    """The loader loads decoded images on one path at least; the other caller's dataset is
    unknown, which does not make the images cheap."""
    body = """\
        def make(dataset):
            return DataLoader(dataset, batch_size=32)


        loader = make(datasets.MNIST('data'))
        other = make(shared.dataset)
        """
    assert _flagged(body)


def test_the_evidence_is_library_calls_not_names():
    """A class of the file named like a library's dataset is judged by its `__getitem__`."""
    body = """\
        class ImageFolder(torch.utils.data.Dataset):
            def __init__(self, rows):
                self.rows = rows

            def __getitem__(self, index):
                return self.rows[index]


        loader = DataLoader(ImageFolder(rows), batch_size=8)
        """
    assert not _flagged(body)


def test_a_tuple_returned_by_a_function_is_unpacked_element_by_element():
    """`dataset, model = load()`: the dataset is the first element returned, not the tuple."""
    body = """\
        def load(flag):
            return ({flag}, torch.nn.Linear(2, 1))


        dataset, model = load(1)
        loader = DataLoader(dataset, batch_size=8)
        """
    assert _flagged(body.replace("{flag}", "datasets.MNIST('data')"))
    assert not _flagged(body.replace("{flag}", "TensorDataset(torch.zeros(4, 2))"))
    assert not _flagged(body.replace("{flag}", "shared.records"))
