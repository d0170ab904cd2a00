"""What gpulint knows about the libraries that make datasets for a torch `DataLoader`: which
calls make datasets whose items are rows already in memory (a worker process has nothing to
prepare), and which make datasets that read, decode or transform each item when it is
loaded. Qualified names, as `TypeEnv.qualname` spells them; nothing here imports a library.
"""

from __future__ import annotations

#: Hugging Face `datasets` calls that make an Arrow-backed dataset (or a dict of them): an
#: item is a row read from memory-mapped columns, tokenized or otherwise prepared once by
#: `.map(...)` beforehand.
HF_DATASET_MAKERS = frozenset(
    [f"datasets.{name}" for name in ("load_dataset", "load_from_disk", "concatenate_datasets", "interleave_datasets")]
    + [
        f"datasets.{owner}.{name}"
        for owner in ("Dataset", "arrow_dataset.Dataset")
        for name in (
            "from_dict",
            "from_list",
            "from_pandas",
            "from_polars",
            "from_generator",
            "from_csv",
            "from_json",
            "from_parquet",
            "from_text",
            "from_sql",
            "from_file",
            "from_buffer",
            "load_from_disk",
        )
    ]
    + [
        "datasets.Dataset",
        "datasets.DatasetDict",
        "datasets.DatasetDict.load_from_disk",
        "datasets.DatasetDict.from_csv",
        "datasets.DatasetDict.from_json",
        "datasets.DatasetDict.from_parquet",
        "datasets.DatasetDict.from_text",
    ]
)
#: Methods of a Hugging Face dataset (or `DatasetDict`) that return one whose items cost what
#: the receiver's do: `.map(...)` runs its function once over the whole dataset, not when an
#: item is loaded; the others select, reorder, rename or reformat columns.
HF_SAME_COST = frozenset(
    [
        "map",
        "filter",
        "with_format",
        "remove_columns",
        "rename_column",
        "rename_columns",
        "select",
        "select_columns",
        "shuffle",
        "sort",
        "flatten",
        "flatten_indices",
        "cast",
        "cast_column",
        "train_test_split",
        "shard",
        "add_column",
        "add_item",
        "take",
        "skip",
        "class_encode_column",
        "align_labels_with_mapping",
        "unique_by",
    ]
)
#: Methods that make a Hugging Face dataset run a function on every item when it is loaded
#: (`with_transform` returns such a dataset, `set_transform` changes its receiver).
HF_ON_ACCESS = frozenset({"with_transform", "set_transform"})

#: torch datasets whose items are slices of tensors they hold.
TORCH_IN_MEMORY = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
#: torch wrappers whose items are the items of the dataset they are given first.
TORCH_VIEWS = frozenset(
    {
        "torch.utils.data.Subset",
        "torch.utils.data.dataset.Subset",
        "torch.utils.data.random_split",
        "torch.utils.data.dataset.random_split",
        "torch.utils.data.ConcatDataset",
        "torch.utils.data.dataset.ConcatDataset",
    }
)

#: torchvision's datasets (`MNIST`, `CIFAR10`, `ImageFolder`, `CelebA`...) turn every item
#: into an image (decoded from a file, or from bytes in memory) and run their `transform`.
TORCHVISION_DATASETS = "torchvision.datasets."
#: PyTorch Geometric's datasets are in-memory (`InMemoryDataset`: an item is a slice of the
#: collated tensors) unless given a `transform`, which runs on every item when it is loaded.
PYG_DATASETS = "torch_geometric.datasets."
PYG_IN_MEMORY_BASES = frozenset({"torch_geometric.data.InMemoryDataset"})
#: Keywords that give a dataset a function run on every item it loads.
TRANSFORM_KEYWORDS = frozenset({"transform", "transforms", "target_transform"})

#: torch's `DataLoader`, and PyTorch Geometric's loaders: subclasses of it that take its
#: options, `num_workers` and `pin_memory` included, as keyword arguments (`**kwargs` handed
#: to `torch.utils.data.DataLoader.__init__`); `torch_geometric.data.*` are deprecated aliases.
TORCH_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
PYG_LOADERS = frozenset(
    [
        f"torch_geometric.loader.{name}"
        for name in (
            "DataLoader",
            "NodeLoader",
            "LinkLoader",
            "NeighborLoader",
            "LinkNeighborLoader",
            "HGTLoader",
            "ClusterLoader",
            "GraphSAINTSampler",
            "GraphSAINTNodeSampler",
            "GraphSAINTEdgeSampler",
            "GraphSAINTRandomWalkSampler",
            "ShaDowKHopSampler",
            "RandomNodeLoader",
            "RandomNodeSampler",
            "ZipLoader",
            "DataListLoader",
            "DenseDataLoader",
            "TemporalDataLoader",
            "NeighborSampler",
        )
    ]
    + [
        f"torch_geometric.data.{name}"
        for name in (
            "DataLoader",
            "DataListLoader",
            "DenseDataLoader",
            "NeighborSampler",
            "ClusterLoader",
            "GraphSAINTSampler",
            "GraphSAINTNodeSampler",
            "GraphSAINTEdgeSampler",
            "GraphSAINTRandomWalkSampler",
            "ShaDowKHopSampler",
            "RandomNodeSampler",
        )
    ]
)
#: Loaders that hand out the items of the dataset they are given first, `batch_size` at a
#: time (1 when not given): as many batches as the dataset has items over `batch_size`.
BATCHING_LOADERS = TORCH_LOADERS | {
    f"torch_geometric.{package}.{name}"
    for package in ("loader", "data")
    for name in ("DataLoader", "DataListLoader", "DenseDataLoader")
}
#: Loaders that hand out a number of batches per pass their arguments say, whatever the graph:
#: the position and keyword of that number and its default. PyTorch Geometric's GraphSAINT
#: samplers run `num_steps` iterations per epoch (default 1), `RandomNodeLoader` one per part.
STEPPED_LOADERS = {
    f"torch_geometric.{package}.{name}": steps
    for package in ("loader", "data")
    for name, steps in (
        ("GraphSAINTSampler", (2, "num_steps", 1)),
        ("GraphSAINTNodeSampler", (2, "num_steps", 1)),
        ("GraphSAINTEdgeSampler", (2, "num_steps", 1)),
        ("GraphSAINTRandomWalkSampler", (3, "num_steps", 1)),
        ("RandomNodeLoader", (1, "num_parts", None)),
        ("RandomNodeSampler", (1, "num_parts", None)),
    )
}


def _parts(position: int, keyword: str, default: object, sizes: dict[object, int]) -> tuple:
    return ((position, keyword, default),), sizes


_MNIST_LIKE = _parts(1, "train", True, {True: 60_000, False: 10_000})
_CIFAR = _parts(1, "train", True, {True: 50_000, False: 10_000})
#: Public benchmark datasets whose number of items their library documents (torchvision's
#: dataset pages, PyTorch Geometric's dataset tables): the class, the arguments that choose
#: the part (position, keyword, default) and the items of each part. A part given by a value
#: the file does not spell out is at most the largest part; a dataset chosen by a name that
#: is not here is of unknown size.
DATASET_SIZES: dict[str, tuple[tuple[tuple[int, str, object], ...], dict[object, int]]] = {
    **{f"torchvision.datasets.{name}": _MNIST_LIKE for name in ("MNIST", "FashionMNIST", "KMNIST")},
    **{f"torchvision.datasets.mnist.{name}": _MNIST_LIKE for name in ("MNIST", "FashionMNIST", "KMNIST")},
    **{f"torchvision.datasets.{path}": _CIFAR for path in ("CIFAR10", "CIFAR100", "cifar.CIFAR10", "cifar.CIFAR100")},
    **{
        f"torchvision.datasets.{path}": _parts(1, "split", "train", {"train": 73_257, "test": 26_032, "extra": 531_131})
        for path in ("SVHN", "svhn.SVHN")
    },
    **{
        f"torch_geometric.datasets.{path}": _parts(1, "split", "train", {"train": 20, "val": 2, "test": 2})
        for path in ("PPI", "ppi.PPI")
    },
    **{
        f"torch_geometric.datasets.{path}": _parts(
            1,
            "name",
            None,
            {
                "ESOL": 1_128,
                "FreeSolv": 642,
                "Lipo": 4_200,
                "PCBA": 437_929,
                "MUV": 93_087,
                "HIV": 41_127,
                "BACE": 1_513,
                "BBBP": 2_039,
                "Tox21": 7_831,
                "ToxCast": 8_575,
                "SIDER": 1_427,
                "ClinTox": 1_478,
            },
        )
        for path in ("MoleculeNet", "molecule_net.MoleculeNet")
    },
    **{
        f"torch_geometric.datasets.{path}": _parts(
            1,
            "name",
            None,
            {
                "MUTAG": 188,
                "PROTEINS": 1_113,
                "ENZYMES": 600,
                "NCI1": 4_110,
                "NCI109": 4_127,
                "DD": 1_178,
                "PTC_MR": 344,
                "IMDB-BINARY": 1_000,
                "IMDB-MULTI": 1_500,
                "REDDIT-BINARY": 2_000,
                "COLLAB": 5_000,
            },
        )
        for path in ("TUDataset", "tu_dataset.TUDataset")
    },
    **{
        f"torch_geometric.datasets.{path}": (
            ((1, "subset", False), (2, "split", "train")),
            {
                (True, "train"): 10_000,
                (True, "val"): 1_000,
                (True, "test"): 1_000,
                (False, "train"): 220_011,
                (False, "val"): 24_445,
                (False, "test"): 5_000,
            },
        )
        for path in ("ZINC", "zinc.ZINC")
    },
    # one graph, whatever its name (Cora, CiteSeer, PubMed)
    **{f"torch_geometric.datasets.{path}": ((), {(): 1}) for path in ("Planetoid", "planetoid.Planetoid")},
}

#: Functions that read an image or a file from storage: milliseconds per call, against the
#: microseconds a row Series costs.
SLOW_READERS = frozenset(
    {
        "torchvision.io.read_image",
        "torchvision.io.decode_image",
        "torchvision.io.read_file",
        "PIL.Image.open",
        "cv2.imread",
        "imageio.imread",
        "imageio.v2.imread",
        "imageio.v3.imread",
        "matplotlib.pyplot.imread",
        "matplotlib.image.imread",
        "skimage.io.imread",
        "tifffile.imread",
        "numpy.load",
        "pandas.read_csv",
        "pandas.read_parquet",
        "librosa.load",
        "soundfile.read",
        "torchaudio.load",
        "mxnet.image.imread",
    }
)
