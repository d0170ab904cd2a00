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
    [f"datasets.{name}" for name in (
        "load_dataset", "load_from_disk", "concatenate_datasets", "interleave_datasets")]
    + [f"datasets.{owner}.{name}" for owner in ("Dataset", "arrow_dataset.Dataset") for name in (
        "from_dict", "from_list", "from_pandas", "from_polars", "from_generator", "from_csv", "from_json",
        "from_parquet", "from_text", "from_sql", "from_file", "from_buffer", "load_from_disk")]
    + ["datasets.Dataset", "datasets.DatasetDict", "datasets.DatasetDict.load_from_disk", "datasets.DatasetDict.from_csv", "datasets.DatasetDict.from_json",
       "datasets.DatasetDict.from_parquet", "datasets.DatasetDict.from_text"]
)
#: Methods of a Hugging Face dataset (or `DatasetDict`) that return one whose items cost what
#: the receiver's do: `.map(...)` runs its function once over the whole dataset, not when an
#: item is loaded; the others select, reorder, rename or reformat columns.
HF_SAME_COST = frozenset(
    """map filter with_format remove_columns rename_column rename_columns select select_columns shuffle sort
    flatten flatten_indices cast cast_column train_test_split shard add_column add_item take skip
    class_encode_column align_labels_with_mapping unique_by""".split()
)
#: Methods that make a Hugging Face dataset run a function on every item when it is loaded
#: (`with_transform` returns such a dataset, `set_transform` changes its receiver).
HF_ON_ACCESS = frozenset({"with_transform", "set_transform"})

#: torch datasets whose items are slices of tensors they hold.
TORCH_IN_MEMORY = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
#: torch wrappers whose items are the items of the dataset they are given first.
TORCH_VIEWS = frozenset(
    {"torch.utils.data.Subset", "torch.utils.data.dataset.Subset", "torch.utils.data.random_split",
     "torch.utils.data.dataset.random_split", "torch.utils.data.ConcatDataset",
     "torch.utils.data.dataset.ConcatDataset"}
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
