"""GPU305 dataloader-without-workers."""

from __future__ import annotations

import ast

from gpulint.datasets_api import (
    PYG_LOADERS,
    TORCH_LOADERS,
)
from gpulint.rule_api import (
    argument,
    NESTED_SCOPES,
    DEVICE_TRIGGERS,
    DEVICE,
    FEW_BATCHES,
    HOST,
    PROGRESS_BARS,
    Applicability,
    assigned_value,
    base_name,
    breaks_off_within,
    Example,
    is_device_resident,
    ItemCost,
    loader_item_cost,
    literal_int,
    loader_batches,
    move_target,
    moves_to_a_device,
    Rule,
    RuleContext,
    runs_once,
    scope_outside_loops,
    Tier,
    Ty,
    WORK,
)

from gpulint.torch_api import (
    IGNITE_SUPERVISED_ENGINES,
    LIGHTNING_LOADER_HOOKS,
    LIGHTNING_LOADER_KEYWORDS,
    LIGHTNING_MODULES,
    LIGHTNING_TRAINER_METHODS,
    LIGHTNING_TRAINERS,
    names_the_host,
    unwrapped,
)

from ._common import bound_by_loop, opened_autocast, placed_argument
from gpulint.plans.dataloader_without_workers import WORKERS, Loader, LoaderCall

_SETUP = """\
import torch
from torch.utils.data import TensorDataset
dataset = TensorDataset(torch.from_numpy(rng.standard_normal((N, 3))))
"""


class DataloaderWithoutWorkers(Rule):
    """
    ## What it does
    Flags a `torch.utils.data.DataLoader(...)` with no `num_workers` (or `num_workers=0`) in
    a file that moves the batches of a loop to a device, when the code shows that its items
    cost something to load: decoded images, a per-item `transform=`, a dataset class whose
    `__getitem__` reads, decodes, tokenizes or transforms.

    ## Evidence
    Flags a `torch.utils.data.DataLoader(...)` with no `num_workers` (or `num_workers=0`,
    also through a name bound to 0 on every path) in a file that moves the batches of a loop
    to a device (`x.to(device)`, `x.cuda()`, `x.type(torch.cuda.FloatTensor)`, also of the
    legacy `Variable(x)` wrapper, or handed to a helper that returns it on the device:
    `to_cuda(x)` of a project module, or a function of the file such as `def to_var(x): if
    cuda: x = x.cuda(); return Variable(x)` (`docs/evidence.md`), inside a loop, with a
    device that is not a literal `"cpu"`: a device string, a name bound to one,
    `accelerator.device`, a rank from `int(os.environ["LOCAL_RANK"])`, a device the file
    does not show such as a parameter or `self.device`, not a dtype...) or iterates a loader that accelerate's `prepare` or
    Lightning Fabric's `setup_dataloaders` put on the device. A loader Lightning's trainer
    takes counts too: returned by a LightningModule's (or LightningDataModule's)
    `train_dataloader` and the other loader hooks, or handed to a `Trainer`'s `fit`,
    `validate`, `test` or `predict` (one made in the file, with an accelerator that is not a
    literal `"cpu"`): the trainer moves each batch to its accelerator. A file that makes an
    Ignite engine with a device that is not a literal `"cpu"`
    (`create_supervised_trainer(model, optimizer, loss, device=device)`, or the evaluator)
    counts as moving its batches to the device: the engine moves each batch it runs. So does a loader handed
    to a function of a project module the file imports that loops over that parameter putting
    its batches on a device (`utils.train(net, train_data)`, with `for x, y in data: x =
    x.cuda()` in `utils.py`).

    Subclasses of torch's `DataLoader` count too: PyTorch Geometric's loaders
    (`torch_geometric.loader.DataLoader`, `NeighborLoader`, `LinkNeighborLoader`,
    `ClusterLoader`, `GraphSAINT*Sampler`... and the deprecated `torch_geometric.data`
    aliases), which hand `num_workers` on to it, and classes of the file that subclass
    `torch.utils.data.DataLoader` (or such a class) and either keep its `__init__` or define
    one that takes `num_workers` or `**kwargs`. For these, only a `num_workers=` keyword
    counts as given: their positional parameters are their own.

    Only a loader whose items the code shows cost something to load is flagged: a dataset of
    torchvision (`ImageFolder`, `CIFAR10`, `CelebA`...: each item is decoded into an image),
    any dataset given `transform=` (PyTorch Geometric's included), a Hugging Face dataset
    given a per-item transform (`with_transform`, `set_transform`), and an instance of a
    dataset class of the file whose `__getitem__` calls anything but a few builtins, tensor
    rearrangements like `torch.flip` and factories like `torch.randint` (it reads, decodes,
    tokenizes or transforms), also made by a class method of that class that returns
    `cls(...)` (`Dataset.load_dataset_and_make_vectorizer(path)`). The evidence is followed through assignments,
    `Subset`/`random_split`/`ConcatDataset`, slices and subscripts (`dataset[3000:]`,
    `tokenized["train"]`), what the file's functions return, and what every call of the
    file's function passes for a parameter.

    A loader is not flagged when its items are rows already in memory: a Hugging Face
    `datasets` dataset (`load_dataset(...)`, `load_from_disk(...)`, `Dataset.from_*`, and
    what `.map(...)`, `.with_format(...)`, `.remove_columns(...)`, `.select(...)`... make of
    it: `.map` runs once over the whole dataset, not per item), a `TensorDataset`, a list or
    tuple, a `range`, a PyTorch Geometric dataset without `transform=` (in memory: an item
    is a slice of tensors it holds), a dataset class of the file whose `__getitem__` only
    looks items up (converting a stored tensor's dtype at most, `self.images[i].float()`) or
    makes them with torch factories (synthetic data). Nor when nothing shows what the
    dataset is (a parameter no call of the file gives, a class imported from another
    module): on the real-code corpus those loaders were over in-memory data (pre-tokenized
    datasets, toy tensors, in-memory graphs, prompt lists) in every case checked, so the
    rule asks for evidence of work.

    A loader known to hand out at most 16 batches per pass is not flagged (a benchmark's
    small split, with a `batch_size` known at least some number: a literal, a name or the
    parameters every call fills with one, or a script option's literal default, `args.x`
    with `parser.add_argument("--x", type=int, default=1000)`; see
    `gpulint.size_evidence.loader_batches`):
    workers started for every pass would cost about what they save. Nor is a loader bound to
    a name its binding never reaches a read of (defined and never read, or bound again
    before any read: a script's or a notebook's later cells read the new loader), or read
    only for a look at a few batches: by `next(iter(loader))` (or `it = iter(loader)` and
    a few `next(it)` outside any loop the `iter` is not in), or by loops that all break off
    after at most 16 batches by a counter (`if i == 2: break`, see `gpulint.early_exit`).
    A loader given workers is not flagged, with or without `pin_memory`; nor is a loader
    whose options come from `**kwargs`, nor one whose `collate_fn` builds batches on the
    device, nor one over a dataset class of the file whose `__getitem__` puts items on the
    device (`.cuda()`, `.to(device)`: worker processes cannot, CUDA does not survive a
    fork), nor one only read on the host while another loader of the file feeds the
    device, nor one in a file that never feeds a device.

    Nor, outside preview mode, is a loader the code shows is read on one pass only: each
    loop over it runs once (no loop around it other than one of a single iteration such as
    `range(1)`, at a script's or a notebook's top level, or in a function the file calls
    once from there), or it is handed once to a function of the file that loops over it
    once (`evaluate(model, test_loader)` after training). A test split predicted once is
    read in one pass: workers would start for it alone. A loader read in an epoch loop,
    in a function the file calls in a loop, by a Lightning trainer, or by code the file does
    not show (a function nobody in the file calls, a method) is flagged.

    ## Why is this bad?
    Without workers the main process loads, decodes and collates every batch itself, while
    the GPU waits; then the copy to the device comes from pageable memory, which cannot
    overlap with compute. Worker processes prepare the next batches while the GPU runs this
    one, and `pin_memory=True` lets `.to(device, non_blocking=True)` copy asynchronously.
    When an item is only a row looked up in memory there is nothing for a worker to
    overlap: starting the workers and sending each batch back through shared memory costs
    more than the lookups they take over.

    The speedup measured below is of a workload of its own, not of the example: each item
    a 64-by-64 image decoded from raw bytes and augmented with NumPy, each batch run through
    a convolution (`gpulint.benchmarks.transfers.dataloader_without_workers`). On a CPU too,
    the workers prepare the next batches while the main process runs the model; over a few
    batches, starting them costs more than they save.

    ## Fix safety
    The fix adds `num_workers=4` (or replaces `num_workers=0`, or the name bound to 0,
    whose other uses stay as they are) and `pin_memory=True` (unless `pin_memory` is given). It is unsafe: worker processes need a dataset that can
    be pickled where processes are spawned (Windows, macOS) and an
    `if __name__ == "__main__":` guard there; an `IterableDataset` that does not split its
    data by worker yields every item once per worker; random augmentations draw from each
    worker's own seed; state the dataset records while it loads items (counters, caches)
    stays in the workers. Choose the number of workers for the machine (4 is a common start).
    For a class of the file with an `__init__` of its own the change is only shown: what
    that `__init__` does with `num_workers` and `pin_memory` is up to it.
    """

    code = "GPU305"
    libraries = DEVICE_TRIGGERS
    name = "dataloader-without-workers"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 188 of 269 sampled findings useful (70%, below the bar): 103 of 149 in the first "
        "six tier samples; 85 of 120 in the seventh and eighth, drawn with loaders read on one pass left to "
        "preview mode, whose noise is tiny or in-memory data sets and loaders read for a few batches; the blind "
        "sets' labels: 109 of 113"
    )
    preview_behaviour = (
        "reports loaders the code reads on one pass only (a test split predicted once after training, "
        "a single epoch at a script's top level)"
    )
    message = "`DataLoader` without `num_workers` feeding a device: batches are prepared in the main process while the device waits"
    #: The message for a loader given `num_workers=0` (the same as none, but said).
    message_for_zero = "`DataLoader` with `num_workers=0` feeding a device: batches are prepared in the main process while the device waits"
    nodes = (ast.Call, ast.For, ast.AsyncFor)
    calls = frozenset(
        {"to", "cuda", "type", *LIGHTNING_TRAINER_METHODS}
        | {name.rsplit(".", 1)[1] for name in (*TORCH_LOADERS, *PYG_LOADERS)}
    )
    fix = Applicability.UNSAFE
    suggestion = f"pass `num_workers={WORKERS}` (or as many as the machine has cores to spare) and `pin_memory=True`"

    flagged = (
        Example(
            source='''\
import json

import torch
from torch.utils.data import DataLoader, Dataset

device = "cuda" if torch.cuda.is_available() else "cpu"


class JsonRows(Dataset):
    """One JSON-encoded row per item, decoded when the item is loaded."""

    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, index):
        return torch.tensor(json.loads(self.lines[index]))


def column_sums(lines):
    loader = DataLoader(JsonRows(lines), batch_size=16)
    sums = []
    for features in loader:
        sums.append(features.to(device).sum(dim=0))
    return [s.tolist() for s in sums]
''',
            fixed='''\
import json

import torch
from torch.utils.data import DataLoader, Dataset

device = "cuda" if torch.cuda.is_available() else "cpu"


class JsonRows(Dataset):
    """One JSON-encoded row per item, decoded when the item is loaded."""

    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, index):
        return torch.tensor(json.loads(self.lines[index]))


def column_sums(lines):
    loader = DataLoader(JsonRows(lines), batch_size=16, num_workers=4, pin_memory=True)
    sums = []
    for features in loader:
        sums.append(features.to(device).sum(dim=0))
    return [s.tolist() for s in sums]
''',
            requires=("torch",),
            setup="import json\nlines = [json.dumps(row) for row in rng.standard_normal((N, 3)).tolist()]",
            call="column_sums(lines)",
        ),
        Example(
            source='''\
import torch
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Chains(torch.utils.data.Dataset):
    """A path graph over each array's rows, built when the item is loaded."""

    def __init__(self, arrays):
        self.arrays = arrays

    def __len__(self):
        return len(self.arrays)

    def __getitem__(self, index):
        x = torch.from_numpy(self.arrays[index])
        steps = torch.arange(len(x) - 1)
        return Data(x=x, edge_index=torch.stack([steps, steps + 1]))


def node_counts(arrays):
    counts = []
    for data in DataLoader(Chains(arrays), batch_size=4):
        data = data.to(device)
        counts.append(data.num_nodes)
    return counts
''',
            fixed='''\
import torch
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Chains(torch.utils.data.Dataset):
    """A path graph over each array's rows, built when the item is loaded."""

    def __init__(self, arrays):
        self.arrays = arrays

    def __len__(self):
        return len(self.arrays)

    def __getitem__(self, index):
        x = torch.from_numpy(self.arrays[index])
        steps = torch.arange(len(x) - 1)
        return Data(x=x, edge_index=torch.stack([steps, steps + 1]))


def node_counts(arrays):
    counts = []
    for data in DataLoader(Chains(arrays), batch_size=4, num_workers=4, pin_memory=True):
        data = data.to(device)
        counts.append(data.num_nodes)
    return counts
''',
            requires=("torch", "torch_geometric"),
            setup="arrays = [rng.standard_normal((3, 2)) for _ in range(N)]",
            call="node_counts(arrays)",
        ),
        Example(
            source="""\
import torch
from datasets import Dataset
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"


def doubled_sums(rows):
    dataset = Dataset.from_dict({"x": rows})
    dataset.set_transform(lambda batch: {"x": [torch.tensor(x) * 2 for x in batch["x"]]})
    sums = []
    for batch in DataLoader(dataset, batch_size=16):
        sums.append(batch["x"].to(device).sum(dim=0))
    return [s.tolist() for s in sums]
""",
            fixed="""\
import torch
from datasets import Dataset
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"


def doubled_sums(rows):
    dataset = Dataset.from_dict({"x": rows})
    dataset.set_transform(lambda batch: {"x": [torch.tensor(x) * 2 for x in batch["x"]]})
    sums = []
    for batch in DataLoader(dataset, batch_size=16, num_workers=4, pin_memory=True):
        sums.append(batch["x"].to(device).sum(dim=0))
    return [s.tolist() for s in sums]
""",
            requires=("torch", "datasets"),
            setup="rows = rng.standard_normal((N, 3)).tolist()",
            call="doubled_sums(rows)",
        ),
    )
    ok = (
        Example(
            """\
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder


def train(model, optimizer, transform, epochs):
    accelerator = Accelerator()
    loader = DataLoader(ImageFolder("images", transform=transform), batch_size=32)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for _ in range(epochs):
        for images, labels in loader:
            with torch.cpu.amp.autocast(dtype=torch.bfloat16):  # a script that trains on the CPU
                loss = torch.nn.functional.cross_entropy(model(images), labels)
            accelerator.backward(loss)
            optimizer.step()
""",
            reason="A script that trains on the CPU (`torch.cpu.amp.autocast`).",
        ),
        Example(
            """\
import json

import torch
from torch.utils.data import DataLoader, Dataset

device = "cuda"


class JsonRows(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, index):
        return torch.tensor(json.loads(self.lines[index]))


def train(model, lines, epochs):
    preview = DataLoader(JsonRows(lines), batch_size=16)
    first = next(iter(preview))  # one batch, to look at: workers would start for it alone
    print(first.shape)
    for _ in range(epochs):
        for rows in DataLoader(JsonRows(lines), batch_size=16, num_workers=4):
            model(rows.to(device))
""",
            reason="A loader read for one batch only (`next(iter(loader))`).",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

device = "cuda"
test_set = datasets.ImageFolder("test", transform=transforms.ToTensor())
model = torch.load("model.pt").to(device)

predictions = []
for images, _ in DataLoader(test_set, batch_size=64):  # one pass, once: workers would start for it alone
    predictions.append(model(images.to(device)).argmax(1))
""",
            reason="A loader read on one pass only, such as a test split predicted once (reported in preview mode).",
        ),
        Example(
            '''\
import torch
from torch.utils.data import DataLoader, Dataset

device = "cuda"


class Encoded(Dataset):
    """Token ids computed once, up front; an item only wraps them as tensors."""

    def __init__(self, encodings, labels):
        self.encodings, self.labels = encodings, labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        item = {key: torch.tensor(values[index]) for key, values in self.encodings.items()}
        item["labels"] = torch.tensor(self.labels[index])
        return item


def train(model, encodings, labels):
    for batch in DataLoader(Encoded(encodings, labels), batch_size=16, shuffle=True):
        model(**{key: value.to(device) for key, value in batch.items()})
''',
            reason="A dataset whose items only wrap precomputed values as tensors.",
        ),
        Example(
            """\
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding

device = "cuda"


def train(model, tokenizer):
    raw = load_dataset("glue", "mrpc")
    tokenized = raw.map(lambda rows: tokenizer(rows["sentence1"], truncation=True), batched=True)
    tokenized = tokenized.remove_columns(["sentence1", "sentence2", "idx"]).with_format("torch")
    loader = DataLoader(tokenized["train"], batch_size=8, collate_fn=DataCollatorWithPadding(tokenizer))
    for batch in loader:  # rows tokenized once by `.map`: only padding is left per batch
        model(**{k: v.to(device) for k, v in batch.items()})
""",
            reason="A Hugging Face dataset tokenized once by `.map`: only padding is left per batch.",
        ),
        Example(
            """\
import torch
from torch_geometric.datasets import TUDataset
from torch_geometric.loader import DataLoader

device = torch.device("cuda")
dataset = TUDataset("data", name="PROTEINS").shuffle()  # in memory, no per-item transform
for data in DataLoader(dataset[:100], batch_size=32):
    data = data.to(device)
""",
            reason="An in-memory graph dataset with no per-item transform.",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split

device = "cuda"


def batches(features, labels):
    train, valid = random_split(TensorDataset(features, labels), [0.8, 0.2])
    for x, y in DataLoader(train, batch_size=64):
        yield x.to(device), y.to(device)
""",
            reason="A `TensorDataset` split: items are slices of tensors already in memory.",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader

device = "cuda"


def batches(dataset):  # nothing in the file shows what loading an item costs
    for x in DataLoader(dataset, batch_size=16):
        yield x.to(device)
""",
            reason="A dataset of unknown kind: nothing shows what loading an item costs.",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader


class WorkerLoader(DataLoader):
    def __init__(self, dataset, batch_size=1, num_workers=4):
        super().__init__(dataset, batch_size, num_workers=num_workers, pin_memory=True)


def batches(dataset):
    for x in WorkerLoader(dataset, batch_size=16):
        yield x.to("cuda", non_blocking=True)
""",
            reason="A `DataLoader` subclass that passes its own `num_workers` (4 by default) to torch's.",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader

device = "cuda"


def batches(dataset):
    loader = DataLoader(dataset, batch_size=16, num_workers=4)
    for x in loader:
        yield x.to(device, non_blocking=True)
""",
            reason="A loader that sets `num_workers`.",
        ),
        Example(
            """\
from torch.utils.data import DataLoader


def mean_length(dataset):
    loader = DataLoader(dataset, batch_size=16)
    return sum(len(batch) for batch in loader) / len(dataset)
""",
            reason="A loader whose batches never reach a device.",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader


def evaluate(dataset, options):
    loader = DataLoader(dataset, **options)
    for x in loader:
        x = x.to("cuda")
""",
            reason="Options passed as `**options`, which may set `num_workers`.",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader


def on_cpu(dataset):
    loader = DataLoader(dataset, batch_size=8)
    for x in loader:
        x = x.to("cpu")
""",
            reason="Batches moved to the CPU, not to an accelerator.",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")


def train(events, model):
    events = events.to(device)
    train_part, test_part = events.train_test_split(0.2)
    for batch in DataLoader(train_part, batch_size=200):
        model(batch.to(device))
""",
            reason="A dataset of unknown kind (a parameter) split by its own method: nothing shows what an item costs.",
        ),
        Example(
            """\
import torch
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10
from torchvision.transforms import ToTensor


def on_device(items):
    return torch.stack([image for image, _ in items]).to("cuda")


def batches():
    dataset = CIFAR10("data", transform=ToTensor())
    for x in DataLoader(dataset, batch_size=64, collate_fn=on_device):
        yield x.to("cuda")
""",
            reason="A `collate_fn` that builds batches on the device, which worker processes cannot do.",
        ),
    )

    def __init__(self) -> None:
        #: The file's loaders without workers, and the name each is bound to (if any).
        #: The reads of the name each is bound to that its binding reaches (None: the name is
        #: not known to be read only there).
        self.candidates: list[tuple[ast.Call, Loader, str | None, list[ast.Name] | None, bool]] = []
        #: The `for` loops over each name, and those that put their batches on a device.
        self.iterations: dict[str, list[ast.AST]] = {}
        self.feeding: set[ast.AST] = set()
        #: Moves of a batch whose device only the call's own spelling may show.
        self.undecided: list[tuple[ast.Call, list[ast.AST]]] = []
        #: What loading an item of a dataset costs (made at the file's first loader).
        self.items: ItemCost | None = None
        #: Names handed to a Lightning trainer that places their batches (`_given_to_lightning`).
        self.lightning: set[str] = set()
        #: Names handed to a function of a project module that loops over them putting each
        #: batch on a device (`utils.train(net, train_loader)`: `project.Exported.feeds`).
        self.handed_to_project: set[str] = set()
        #: The file makes an Ignite engine that moves each batch to a device (`_ignite_engine`).
        self.engine_feeds = False

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not isinstance(node, ast.Call):
            self._loop(node, ctx)  # type: ignore[arg-type]
            return
        if ctx.loops:
            self._note_move(node, ctx)
        self._note_trainers(node, ctx)
        self._note_handed(node, ctx)
        loader = self._loader(node.func, ctx)
        if loader is None:
            return
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            return
        workers = next((k.value for k in node.keywords if k.arg == "num_workers"), None)
        if workers is None and loader.position is not None and len(node.args) > loader.position:
            workers = node.args[loader.position]
        if workers is not None and not _zero(workers, ctx):
            return
        if _collates_on_a_device(node, ctx) or _dataset_on_device(node, ctx):
            return
        dataset = _dataset_argument(node)
        if dataset is None:
            return
        if self.items is None:
            self.items = ItemCost(ctx)
        if loader_item_cost(dataset, ctx, self.items) != WORK:
            return  # items cost nothing to load, or nothing shows they cost anything
        batches = loader_batches(node, ctx)
        if batches is not None and batches <= FEW_BATCHES:
            return  # workers started for each pass would cost about what they save
        statement = ctx.statement
        bound = reads = None
        lightning = _given_to_lightning(node, ctx)
        if (
            isinstance(statement, ast.Assign)
            and statement.value is node
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            bound = statement.targets[0].id
            reads, hidden = _binding_reads(bound, statement, ctx)
            if reads is not None:
                if reads and all(
                    _first_batch(read, ctx) or _previewed(read, ctx) or _peeked_through_an_iterator(read, ctx)
                    for read in reads
                ):
                    return  # read only for a look at a few batches
                if not reads and not hidden:
                    return  # never read
                if hidden:
                    reads = None  # what else reads it, and through which loops, is out of view
        self.candidates.append((node, loader, bound, reads, lightning))

    def _note_handed(self, call: ast.Call, ctx: RuleContext) -> None:
        """Names `call` hands to a project function that loops over them feeding a device."""
        trainer = ctx.project_function(call)
        for position in trainer.feeds if trainer is not None else ():
            given = call.args[position] if position < len(call.args) else None
            if isinstance(given, ast.Name):
                self.handed_to_project.add(given.id)

    def _note_move(self, call: ast.Call, ctx: RuleContext) -> None:
        """`x.to(d)` / `x.cuda()` of a batch `x` an enclosing loop binds (or of a legacy
        `Variable(x)`), or of a helper that returns it placed there (`placed_argument`): those loops feed a
        device when the evidence says `d` is one (`accelerator.device`, a rank from
        `int(os.environ["LOCAL_RANK"])`, a parameter every call site gives a device); when
        it cannot tell, the call is kept for `finish` to read (`device=`, `non_blocking=`, a
        device string, a name the file binds to a device expression)."""
        func = call.func
        placed = placed_argument(call, ctx) if isinstance(func, ast.Name) else None
        if placed is not None:  # `images = flatten(images)`, a helper returning it on the device
            self.feeding.update(_loops_binding(base_name(placed), ctx))
            return
        if not (isinstance(func, ast.Attribute) and func.attr in ("to", "cuda", "type")):
            return
        moved = func.value
        inner = unwrapped(moved, ctx.qualname(moved.func)) if isinstance(moved, ast.Call) else None
        loops = _loops_binding(base_name(inner if inner is not None else moved), ctx)
        if not loops:
            return
        if func.attr == "type":  # `x.type(torch.cuda.FloatTensor)`, or a name bound to that class
            converted = ctx.env.type_of(call)
            if converted is not None and converted.place == DEVICE:
                self.feeding.update(loops)
            return
        if func.attr == "cuda" or move_target(call, ctx.env) == DEVICE:
            self.feeding.update(loops)
        else:
            self.undecided.append((call, loops))

    def _loop(self, loop: ast.For | ast.AsyncFor, ctx: RuleContext) -> None:
        """Note which name a `for` loop iterates (through `enumerate` and progress bars); a
        loop over a loader that accelerate's `prepare` put on the device feeds it."""
        iterable = ctx.env.enumerated(loop.iter) or loop.iter
        if _placed_batches(ctx.type_of(iterable)) and not _starts_under_host_autocast(loop.body, ctx):
            self.feeding.add(loop)
        while isinstance(iterable, ast.Call) and ctx.qualname(iterable.func) in PROGRESS_BARS and iterable.args:
            iterable = iterable.args[0]
        if isinstance(iterable, ast.Name):
            self.iterations.setdefault(iterable.id, []).append(loop)

    def finish(self, ctx: RuleContext) -> None:
        """A loader bound to a name the file loops over is reported when one of those loops
        puts its batches on a device (a loader only read on the host, say prompts for a
        sampling pass, is left alone); any other loader when some loop of the file does. The
        loops are those over the reads its binding reaches, when they are known."""
        if not self.candidates:
            return
        if self.undecided:
            device_names = _device_names(ctx)
            for call, loops in self.undecided:
                if _device_argument(call, device_names):
                    self.feeding.update(loops)
        for node, loader, bound, reads, lightning in self.candidates:
            lightning = lightning or bound in self.lightning
            if reads is not None:
                loops = [_iterated_by(read, ctx) for read in reads]
                if not all(loops):
                    loops = []  # handed on (to a function, a wrapper): its loops are out of view
            else:
                loops = self.iterations.get(bound, []) if bound is not None else []
            if lightning:
                fed = True
            elif loops:
                fed = any(loop in self.feeding for loop in loops)
            else:
                fed = (
                    bool(self.feeding)
                    or self.engine_feeds
                    or bound in self.handed_to_project
                    or _handed_to_project(reads, ctx)
                )
            if fed and (lightning or self.preview_mode or not _one_pass(node, bound, reads, ctx)):
                ctx.report(node, _message(node, loader), context=_loader_call(node, loader))

    def _note_trainers(self, node: ast.Call, ctx: RuleContext) -> None:
        """Loaders handed to a Lightning trainer that places their batches, and an Ignite
        engine that moves the batches it runs to a device."""
        if isinstance(node.func, ast.Attribute) and node.func.attr in LIGHTNING_TRAINER_METHODS:
            for given in (*node.args, *(k.value for k in node.keywords)):
                if isinstance(given, ast.Name) and _given_to_lightning(given, ctx):
                    self.lightning.add(given.id)
        if not self.engine_feeds and _ignite_engine(node, ctx):
            self.engine_feeds = True

    def _loader(self, func: ast.expr, ctx: RuleContext) -> Loader | None:
        """How `func`, when it makes a `DataLoader`, takes `num_workers`; None when it is
        not a loader or may not accept `num_workers`."""
        name = ctx.qualname(func)
        if name in TORCH_LOADERS:
            return TORCH_LOADER
        if name in PYG_LOADERS:
            return KEYWORD_LOADER
        if isinstance(func, ast.Name):
            ty = ctx.env.lookup(func.id)
            if ty is not None and ty.kind == "class":
                return ctx.semantic.remember("loader classes", ctx.tree, lambda: _file_loaders(ctx)).get(func.id)
        return None


def _handed_to_project(reads: list[ast.Name] | None, ctx: RuleContext) -> bool:
    """One of the loader's reads is handed to a function of a project module that loops over
    that parameter putting each batch on a device (`utils.train(net, train_loader)`): a call
    by attribute the rule is not shown while the walk goes (it is shown only the methods it
    names), so it is looked up here."""
    for read in reads or ():
        call = ctx.parent(read)
        if not isinstance(call, ast.Call) or read not in call.args:
            continue
        trainer = ctx.project_function(call)
        if trainer is not None and call.args.index(read) in trainer.feeds:
            return True
    return False


#: torch's own: `DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, ...)`.
TORCH_LOADER = Loader(5, True)
#: PyTorch Geometric's: `**kwargs` handed to torch's `DataLoader`.
KEYWORD_LOADER = Loader(None, True)


def _zero(workers: ast.expr, ctx: RuleContext) -> bool:
    """`num_workers=0`, or a name whose one reaching assignment binds it to 0
    (`workers = 0` then `num_workers=workers`)."""
    if isinstance(workers, ast.Name):
        statement = ctx.reaching_assignment(workers.id)
        return statement is not None and literal_int(assigned_value(statement, workers.id)) == 0
    return literal_int(workers) == 0


def _message(call: ast.Call, loader: Loader) -> str | None:
    """The message for a loader given `num_workers=0` (None: the rule's own)."""
    given = next((k.value for k in call.keywords if k.arg == "num_workers"), None)
    if given is None and loader.position is not None and len(call.args) > loader.position:
        given = call.args[loader.position]
    return DataloaderWithoutWorkers.message_for_zero if given is not None else None


def _loader_call(call: ast.Call, loader: Loader) -> LoaderCall:
    by_position = loader.position is not None and len(call.args) > loader.position
    rewritable = loader.fixable and not by_position
    return LoaderCall(
        applicability=Applicability.UNSAFE if rewritable else Applicability.DISPLAY, call=call, loader=loader
    )


def _file_loaders(ctx: RuleContext) -> dict[str, Loader]:
    """The file's classes that subclass a `DataLoader` (directly or through one another).
    One that keeps its base's `__init__` takes `num_workers` as its base does; one with an
    `__init__` of its own counts when that takes `**kwargs` or a `num_workers` defaulting
    to 0 (what it does with them is its own business: the fix is only a suggestion)."""
    classes = list(ctx.semantic.classes)
    loaders: dict[str, Loader] = {}
    changed = True
    while changed:
        changed = False
        for node in classes:
            if node.name in loaders:
                continue
            inherited = next(
                (found for found in (_base_loader(base, ctx, loaders) for base in node.bases) if found is not None),
                None,
            )
            if inherited is None:
                continue
            own = _own_init(node, inherited)
            if own is not None:
                loaders[node.name] = own
                changed = True
    return loaders


def _base_loader(base: ast.expr, ctx: RuleContext, loaders: dict[str, Loader]) -> Loader | None:
    name = ctx.qualname(base)
    if name in TORCH_LOADERS:
        return TORCH_LOADER
    if name in PYG_LOADERS:
        return KEYWORD_LOADER
    return loaders.get(base.id) if isinstance(base, ast.Name) else None


def _own_init(node: ast.ClassDef, inherited: Loader) -> Loader | None:
    """How the class takes `num_workers`: as its base does when it keeps the base's
    `__init__`; through its own `__init__` when that takes `**kwargs` or a `num_workers`
    defaulting to 0 (not fixable: what it does with them is its own business); None when
    its `__init__` takes neither, or a `num_workers` with another default."""
    init = next(
        (s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None
    )
    if init is None:
        return inherited
    arguments = init.args
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
    defaults = dict(zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=False))
    defaults.update(
        (a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=False) if d is not None
    )
    if "num_workers" not in positional and all(a.arg != "num_workers" for a in arguments.kwonlyargs):
        return Loader(None, False) if arguments.kwarg is not None else None
    default = defaults.get("num_workers")
    if not (isinstance(default, ast.Constant) and default.value == 0):
        return None
    index = positional.index("num_workers") if "num_workers" in positional else 0
    return Loader(index - 1 if index > 0 else None, False)  # `self` is not passed


def _placed_batches(ty: Ty | None) -> bool:
    """Iterating a value of this type yields batches already on a device (a loader that
    accelerate's `prepare` placed)."""
    return ty is not None and ty.lib == "torch" and ty.kind == "placed" and ty.place == DEVICE


def _loops_binding(name: str | None, ctx: RuleContext) -> list[ast.AST]:
    """The innermost enclosing loop that binds `name`, and the loops around it: a batch's
    fields moved in a comprehension (`{k: v.to(d) for k, v in batch.items()}`) feed the
    loop over batches."""
    if name is None:
        return []
    for index in range(len(ctx.loops) - 1, -1, -1):
        if name in bound_by_loop(ctx.loops[index], ctx):
            return ctx.loops[: index + 1]
    return []


def _dataset_on_device(call: ast.Call, ctx: RuleContext) -> bool:
    """The loader's dataset is already on the device (`data = data.to(device)`, then split
    with `data.train_val_test_split(...)`): its batches are slices of device memory, which
    worker processes cannot prepare any faster (nor share with the main process)."""
    dataset = _dataset_argument(call)
    if dataset is None:
        return False
    if is_device_resident(ctx.type_of(dataset)):
        return True
    if not isinstance(dataset, ast.Name):
        return False
    bindings = ctx.bindings(dataset.id)
    return bool(bindings) and all(
        isinstance(binding, ast.Assign) and _derived_on_device(binding.value, ctx) for binding in bindings
    )


def _starts_under_host_autocast(body: list[ast.stmt], ctx: RuleContext) -> bool:
    """The loop body starts with `with torch.cpu.amp.autocast():` (or `torch.autocast("cpu")`):
    the script computes its batches on the host, wherever accelerate placed the loader."""
    return bool(body) and opened_autocast(body[0], ctx.env) == HOST


def _binding_reads(
    name: str, statement: ast.stmt, ctx: RuleContext, scope: ast.AST | None = None
) -> tuple[list[ast.Name] | None, bool]:
    """The reads of `name` its binding by `statement` reaches, in `scope` (the current
    statement's by default): `LocalScope.reads_reached`."""
    return ctx.semantic.local(scope if scope is not None else ctx.scope).reads_reached(name, statement)


def _given_to_lightning(load: ast.expr, ctx: RuleContext) -> bool:
    """A loader Lightning feeds to its device: passed to a `Trainer`'s `fit`, `validate`,
    `test` or `predict` (one made in the file with an accelerator that is not a literal
    "cpu"), or returned by a LightningModule's or LightningDataModule's `train_dataloader`
    and the other loader hooks. The trainer moves each batch to its accelerator."""
    parent = ctx.parent(load)
    if isinstance(parent, ast.Return):
        function = ctx.enclosing_function
        facts = ctx.semantic.functions.get(function) if function is not None else None
        return (
            facts is not None
            and facts.owner is not None
            and facts.node.name in LIGHTNING_LOADER_HOOKS
            and any((ctx.qualname(base) or "").startswith(LIGHTNING_MODULES) for base in facts.owner.bases)
        )
    if isinstance(parent, ast.keyword):
        if parent.arg not in LIGHTNING_LOADER_KEYWORDS:
            return False
        parent = ctx.parent(parent)
    if not (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr in LIGHTNING_TRAINER_METHODS
        and isinstance(parent.func.value, ast.Name)
        and parent.func.value is not load
    ):
        return False
    bindings = ctx.bindings(parent.func.value.id)  # the trainer, bound once in the current scope
    made = bindings[0] if len(bindings) == 1 else None
    value = made.value if isinstance(made, ast.Assign) else None
    if not (isinstance(value, ast.Call) and ctx.qualname(value.func) in LIGHTNING_TRAINERS):
        return False
    accelerator = next((k.value for k in value.keywords if k.arg == "accelerator"), None)
    return accelerator is None or not names_the_host(accelerator)


def _ignite_engine(call: ast.Call, ctx: RuleContext) -> bool:
    """`create_supervised_trainer(model, optimizer, loss, device=device)` (or the evaluator)
    given a device that is not a literal "cpu": the engine moves each batch of the loaders
    it runs to that device, as a loop of the file doing `x.to(device)` would."""
    position = IGNITE_SUPERVISED_ENGINES.get(ctx.qualname(call.func) or "")
    if position is None:
        return False
    device = argument(call, "device", position)
    return (
        device is not None
        and not names_the_host(device)
        and not (isinstance(device, ast.Constant) and device.value is None)
    )


def _first_batch(load: ast.Name, ctx: RuleContext) -> bool:
    """`next(iter(load))`."""
    call = ctx.parent(load)
    outer = ctx.parent(call) if call is not None else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "iter"
        and len(call.args) == 1
        and call.args[0] is load
        and isinstance(outer, ast.Call)
        and isinstance(outer.func, ast.Name)
        and outer.func.id == "next"
        and outer.args[:1] == [call]
    )


def _peeked_through_an_iterator(load: ast.Name, ctx: RuleContext) -> bool:
    """`it = iter(load)`, then at most `FEW_BATCHES` calls `next(it)`, none in a loop that
    does not also run the `iter(...)` (one batch each): a look at a few batches. A
    `next(it)` per step of a loop reads the loader through."""
    call = ctx.parent(load)
    statement = ctx.parent(call) if call is not None else None
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "iter"
        and call.args == [load]
        and isinstance(statement, ast.Assign)
        and statement.value is call
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return False
    reads, hidden = _binding_reads(statement.targets[0].id, statement, ctx, _scope_of(statement, ctx))
    if not reads or hidden or len(reads) > FEW_BATCHES:
        return False
    around = _loops_around(statement, ctx)
    return all(_next_of(read, ctx) and _loops_around(read, ctx) == around for read in reads)


def _next_of(load: ast.Name, ctx: RuleContext) -> bool:
    call = ctx.parent(load)
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "next"
        and call.args[:1] == [load]
    )


def _loops_around(node: ast.AST, ctx: RuleContext) -> list[ast.AST]:
    """The loops and comprehensions around `node` in its scope, innermost first."""
    found: list[ast.AST] = []
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.Module, *NESTED_SCOPES)):
        if isinstance(
            parent, (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        ):
            found.append(parent)
        parent = ctx.parent(parent)
    return found


def _previewed(load: ast.Name, ctx: RuleContext) -> bool:
    """`load` is what a `for` loop iterates, and the loop's body breaks it off after at most
    `FEW_BATCHES` iterations."""
    loop = _iterated_by(load, ctx)
    return isinstance(loop, (ast.For, ast.AsyncFor)) and breaks_off_within(loop, ctx, FEW_BATCHES)


def _one_pass(call: ast.Call, bound: str | None, reads: list[ast.Name] | None, ctx: RuleContext) -> bool:
    """The code shows the loader is read on one pass over its data, once per run: every read
    its binding reaches (or the loop over the call itself, for a loader not bound to a name)
    is a loop that runs once (`gpulint.repetition.runs_once`: outside any loop, at the
    top level of a script or in a function the file calls once from there), a progress bar
    bound to a name read so, a function of the file the loader is handed to once that loops
    over it once, or a read that loads at most one batch (`len(loader)`, `loader.dataset`,
    `next(iter(loader))`). A test split predicted once after training: the workers would
    start for one pass."""
    if reads is None:
        return bound is None and _loop_runs_once(_iterated_by(call, ctx), ctx)
    return bool(reads) and all(_read_on_one_pass(read, ctx) for read in reads)


def _read_on_one_pass(read: ast.Name, ctx: RuleContext, function: ast.AST | None = None) -> bool:
    """`read` loads the loader's batches on one pass at most: run once in the program, or,
    given `function`, once per call of that function."""
    if _loads_no_pass(read, ctx):
        return True
    loop = _iterated_by(read, ctx)
    if loop is not None:
        return _loop_runs_once(loop, ctx, function)
    bar = _progress_bar_bound(read, ctx)
    if bar is not None:
        name, statement = bar
        reads, hidden = _binding_reads(name, statement, ctx, _scope_of(statement, ctx))
        return bool(reads) and not hidden and all(_read_on_one_pass(r, ctx, function) for r in reads)
    if function is not None:
        return False
    received = _received_as(read, ctx)
    if received is None or not runs_once(read, ctx.semantic):
        return False
    callee, parameter = received
    loads = ctx.semantic.uses(callee).loads.get(parameter, [])
    return bool(loads) and all(_read_on_one_pass(load, ctx, callee) for load in loads)


#: Attributes of a loader read without loading a batch.
_LOADER_FACTS = frozenset({"dataset", "batch_size", "sampler", "batch_sampler", "drop_last"})


def _loads_no_pass(read: ast.Name, ctx: RuleContext) -> bool:
    """`len(loader)`, `loader.dataset` and the like, or `next(iter(loader))`: at most one
    batch is loaded."""
    parent = ctx.parent(read)
    if isinstance(parent, ast.Attribute) and parent.attr in _LOADER_FACTS:
        return True
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len":
        return parent.args == [read]
    return _first_batch(read, ctx) or _peeked_through_an_iterator(read, ctx)


def _progress_bar_bound(read: ast.Name, ctx: RuleContext) -> tuple[str, ast.Assign] | None:
    """`bar = tqdm(loader, ...)`: the name the progress bar is bound to, and the binding."""
    call = ctx.parent(read)
    if not (isinstance(call, ast.Call) and call.args[:1] == [read] and ctx.qualname(call.func) in PROGRESS_BARS):
        return None
    statement = ctx.parent(call)
    if (
        isinstance(statement, ast.Assign)
        and statement.value is call
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return statement.targets[0].id, statement
    return None


def _scope_of(node: ast.AST, ctx: RuleContext) -> ast.AST:
    scope = ctx.parent(node)
    while scope is not None and not isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        scope = ctx.parent(scope)
    return scope if scope is not None else ctx.tree


def _loop_runs_once(loop: ast.AST | None, ctx: RuleContext, function: ast.AST | None = None) -> bool:
    """The loop runs once per run of the program (`runs_once`), or, given `function`, once
    per call of it (no loop around it in the function)."""
    if loop is None:
        return False
    start = ctx.parent(loop) if isinstance(loop, ast.comprehension) else loop  # the comprehension's expression
    if start is None:
        return False
    if function is not None:
        return scope_outside_loops(start, ctx.semantic) is function
    return runs_once(start, ctx.semantic)


def _received_as(read: ast.Name, ctx: RuleContext) -> tuple[ast.AST, str] | None:
    """The module-level function of the file a call hands `read` to, and the parameter
    that receives it (`evaluate(model, test_loader)`)."""
    call = ctx.parent(read)
    if isinstance(call, ast.keyword):
        call = ctx.parent(call)
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return None
    resolved = ctx.semantic.resolve([ctx.tree], call.func.id)
    if resolved is None or len(resolved[0]) != 1 or resolved[1]:
        return None
    [facts] = resolved[0]
    if facts.owner is not None or facts.scope is not ctx.tree:
        return None
    if read in call.args:
        position = call.args.index(read)
        if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
            return None
        names = facts.positional()
        return (facts.node, names[position]) if position < len(names) else None
    keyword = next((k.arg for k in call.keywords if k.value is read), None)
    return (facts.node, keyword) if keyword is not None else None


def _iterated_by(load: ast.expr, ctx: RuleContext) -> ast.AST | None:
    """The `for` loop or comprehension that iterates `load` (as it is, or through `enumerate`
    or a progress bar), if one does."""
    node: ast.AST = load
    parent = ctx.parent(node)
    while (
        isinstance(parent, ast.Call)
        and parent.args[:1] == [node]
        and (ctx.env.enumerated(parent) is not None or ctx.qualname(parent.func) in PROGRESS_BARS)
    ):
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return parent
    return None


def _dataset_argument(call: ast.Call) -> ast.expr | None:
    return call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "dataset"), None)


#: Methods whose result is on the host, whatever their receiver.
_TO_HOST = frozenset({"cpu", "numpy", "tolist", "item"})


def _derived_on_device(value: ast.expr, ctx: RuleContext) -> bool:
    """`value` is read from a device-resident value through attributes, subscripts and method
    calls, none of which brings it to the host."""
    node = value
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Attribute) or node.func.attr in _TO_HOST:
                return False
            node = node.func.value
        else:
            node = node.value
    return node is not value and isinstance(node, ast.Name) and is_device_resident(ctx.env.lookup(node.id))


def _collates_on_a_device(call: ast.Call, ctx: RuleContext) -> bool:
    """The loader's `collate_fn` builds each batch on the device: it is given a device
    (`partial(collate, device=device)`), or it is a function of the file that moves what it
    builds (`.to(...)`, `.cuda()`, `device=`). Worker processes cannot do that (CUDA does
    not survive a fork), so adding workers is not the fix."""
    collate = next((k.value for k in call.keywords if k.arg == "collate_fn"), None)
    if collate is None:
        return False
    if isinstance(collate, ast.Name):
        value = _assigned(collate.id, ctx)
        collate = value if value is not None else collate
    if isinstance(collate, ast.Call) and ctx.qualname(collate.func) == "functools.partial":
        if any(k.arg == "device" for k in collate.keywords):
            return True
        collate = collate.args[0] if collate.args else collate
    if not isinstance(collate, ast.Name):
        return False
    function = ctx.function_named(collate.id)
    return function is not None and moves_to_a_device(function)


def _assigned(name: str, ctx: RuleContext) -> ast.expr | None:
    """The value of the one plain assignment of `name` in the current scope, if it has one."""
    bindings = ctx.bindings(name)
    if len(bindings) == 1 and isinstance(bindings[0], ast.Assign) and len(bindings[0].targets) == 1:
        return bindings[0].value
    return None


def _device_argument(call: ast.Call, device_names: set[str]) -> bool:
    if any(k.arg in ("device", "non_blocking") for k in call.keywords):
        return not any(k.arg == "device" and names_the_host(k.value) for k in call.keywords)
    if not call.args:
        return False
    first = call.args[0]
    if isinstance(first, ast.Constant):
        return (
            isinstance(first.value, str)
            and not names_the_host(first)
            and first.value.split(":")[0] in ("cuda", "mps", "xpu", "hip")
        )
    return isinstance(first, ast.Name) and first.id in device_names


def _device_names(ctx: RuleContext) -> set[str]:
    """Names the file binds to a device expression, or parameters annotated `torch.device`."""
    names = set()
    for scope in ctx.semantic.scopes.values():
        for name, nodes in scope.bindings.items():
            for node in nodes:
                if isinstance(node, ast.Assign) and _is_device_expression(node.value):
                    if any(isinstance(target, ast.Name) and target.id == name for target in node.targets):
                        names.add(name)
                elif (
                    isinstance(node, ast.arg)
                    and node.annotation is not None
                    and ast.unparse(node.annotation) in ("torch.device", "device")
                ):
                    names.add(name)
    return names


def _is_device_expression(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.split(":")[0] in ("cuda", "mps", "xpu", "hip")
    if isinstance(node, ast.IfExp):
        return _is_device_expression(node.body) or _is_device_expression(node.orelse)
    if isinstance(node, ast.Call):
        func = node.func
        named = (
            isinstance(func, ast.Attribute)
            and func.attr == "device"
            or isinstance(func, ast.Name)
            and func.id == "device"
        )
        given = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "type"), None)
        # `torch.device("cpu")` is the host; `torch.device(name)` or `torch.device("cuda", rank)` is not known to be
        return named and not (given is not None and _only_cpu(given))
    return isinstance(node, ast.Attribute) and node.attr == "device"


def _only_cpu(node: ast.expr) -> bool:
    """`"cpu"`, or a conditional whose every branch is `"cpu"`."""
    if isinstance(node, ast.IfExp):
        return _only_cpu(node.body) and _only_cpu(node.orelse)
    return names_the_host(node)
