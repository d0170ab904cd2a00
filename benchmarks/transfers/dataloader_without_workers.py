"""GPU305 dataloader-without-workers: a loader whose items cost CPU work, beside a model step,
against gpulint's rewrite of it.

Workers pay off when preparing an item is work they can do while the main process runs the
model. The rule's examples are too small to show it (a three-number JSON row per item: the
timing would measure only the start of the worker processes), so this benchmark times a
workload of its own: each item is an image decoded from raw bytes and augmented with NumPy
(crop, flip, blur, colour mix, contrast, normalisation), and each batch goes through a
convolution and a linear head, on one core of the main process (see `SETUP`). Before: the
loader as written, which the rule flags. After: the rule's own fix of it (`num_workers=4,
pin_memory=True`). The batches come in the same order (no shuffling, no random
augmentation), so both return the same scores.
"""

from __future__ import annotations

from gpulint.benchmarks.backends import default_backends
from gpulint.benchmarks.harness import Benchmark, BenchmarkError, Case

SOURCE = '''\
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

device = "cuda" if torch.cuda.is_available() else "cpu"


class Augmented(Dataset):
    """64x64 RGB images stored as raw bytes, decoded and augmented when an item is loaded."""

    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        image = np.frombuffer(self.images[index], dtype=np.uint8).reshape(3, 64, 64) / 255.0
        image = image[:, 4:60, 4:60][:, :, ::-1]
        image = sum(image[:, i : i + 54, j : j + 54] for i in range(3) for j in range(3)) / 9
        mix = np.array([[0.9, 0.1, 0.0], [0.05, 0.9, 0.05], [0.0, 0.1, 0.9]])
        image = np.clip(np.einsum("ij,jhw->ihw", mix, image) * 1.2 - 0.1, 0.0, 1.0) ** 0.8
        image = (image - image.mean(axis=(1, 2), keepdims=True)) / image.std(axis=(1, 2), keepdims=True)
        return torch.from_numpy(np.ascontiguousarray(image, dtype=np.float32))


def scores(images, filters, head):
    filters = torch.from_numpy(filters).to(device)
    head = torch.from_numpy(head).to(device)
    loader = DataLoader(Augmented(images), batch_size=32)
    outputs = []
    for batch in loader:
        features = torch.nn.functional.conv2d(batch.to(device), filters, padding=1).relu()
        outputs.append(features.mean(dim=(2, 3)) @ head)
    return torch.cat(outputs).cpu().numpy()
'''

#: N images of 3x64x64 random bytes, the model's weights, and `on_one_core`, which runs the
#: code with one torch thread in the main process: on a GPU the model has a processor of its
#: own, here it gets one core of the CPU and the workers the others. Without it the model's
#: threads would take every core in both versions and contend with the workers for them.
SETUP = """\
import torch

images = [rng.integers(0, 256, 3 * 64 * 64, dtype=np.uint8).tobytes() for _ in range(N)]
filters = rng.standard_normal((32, 3, 3, 3)).astype(np.float32)
head = rng.standard_normal((32, 10)).astype(np.float32)


def on_one_core(function, *args):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return function(*args)
    finally:
        torch.set_num_threads(threads)
"""

CALL = "on_one_core(scores, images, filters, head)"


class LoaderWorkload(Benchmark):
    """The workload above, before and after the rule's fix."""

    def case(self) -> Case:
        from gpulint import fix_text, lint_source, rule_by_key

        rule = rule_by_key(self.code)
        if rule is None:
            raise BenchmarkError(f"{self.code}: no such rule")
        if not any(d.code == rule.code for d in lint_source(SOURCE, rules=[rule])):
            raise BenchmarkError(f"{rule.code} does not flag the benchmark's loader")
        after = fix_text(SOURCE, rules=[rule], unsafe_fixes=True)
        if after == SOURCE:
            raise BenchmarkError(f"{rule.code}: no fix for the benchmark's loader")
        return Case(
            code=rule.code,
            name=rule.name,
            before=SOURCE,
            after=after,
            setup=SETUP,
            call=CALL,
            rewrite="fix",
            requires=("torch",),
            unit=self.unit or "images",
            sizes=self.sizes,
            backends=self.backends or default_backends([SOURCE, after], ("torch",)),
        )


benchmark = LoaderWorkload("GPU305", sizes=(100, 1_000, 10_000))
