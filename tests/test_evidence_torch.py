"""Torch, accelerate and transformers knowledge in the evidence layer, seen through the
transfer rules.

Each case is a small program. A line ending in `# GPU3xx` must carry exactly that finding
and a line ending in `# OK` none; no other line may carry a finding of the transfer family.
Every source of evidence has a flagged case and a near-miss that must stay silent, and the
near-misses include the same shapes with names that suggest a device but no code that says so.
"""

from __future__ import annotations

import ast
import re
import textwrap

import pytest

from gpulint import lint_source
from gpulint.accelerate_api import is_model_class
from gpulint.config import Config
from gpulint.values import OTHER, Ty

from .test_evidence import probe, probe_one

_MARKER = re.compile(r"#\s*(GPU3\d\d|OK)\s*$")

#: Every rule, each with its preview behaviour.
PREVIEW = Config(preview=True)


def _run_repeatedly(source: str) -> str:
    """`source` with each of its top-level functions handed to `map` (a callback, run once per
    item): the cases' functions then run over and over, as GPU304 requires."""
    names = [node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]
    return source + "".join(f"\nmap({name}, range(100))" for name in names) + ("\n" if names else "")


def _check(source: str) -> None:
    source = _run_repeatedly(textwrap.dedent(source))
    expected = set()
    silent = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = _MARKER.search(line)
        if match and match.group(1) == "OK":
            silent.add(number)
        elif match:
            expected.add((number, match.group(1)))
    assert expected or silent, "a case must mark something"
    # in preview mode: GPU308 reports the totals of loops that only evaluate there, and the
    # evidence that places their values is what these cases are about
    found = {
        (d.start.line, d.code) for d in lint_source(source, config=PREVIEW, fixes=False) if d.code.startswith("GPU3")
    }
    assert found == expected
    assert not {line for line, _ in found} & silent


# -- device expressions ----------------------------------------------------------------------

DEVICE_EXPRESSIONS = {
    "module_moved_back_to_the_host": """
        import torch

        device = torch.device("cuda")
        model = torch.nn.Linear(4, 2).to(device)
        for x in batches:
            print(model(x).sum().item())  # GPU307
        model.cpu()
        for x in batches:
            print(model(x).sum().item())  # OK
        model.cuda()
        for x in batches:
            print(model(x).sum().item())  # GPU307
    """,
    "module_moved_back_whatever_is_done_with_the_result": """
        import torch

        device = torch.device("cuda")
        model = torch.nn.Linear(4, 2).to(device)
        model_cpu = model.cpu()
        for x in batches:
            print(model(x).sum().item())  # OK
    """,
    "a_tensor_copied_to_the_host_stays_where_it_was": """
        import torch

        device = torch.device("cuda")
        weights = torch.ones(4, device=device)
        weights_cpu = weights.cpu()
        for x in batches:
            print((weights * x.to(device)).sum().item())  # GPU307
    """,
    "d2l_device_helpers": """
        import torch
        from d2l import torch as d2l

        devices, num_epochs = d2l.try_all_gpus(), 10
        net = torch.nn.Linear(4, 2).to(devices[0])


        def predict(batches):
            preds = [net(x.to(devices[0])).cpu() for x in batches]  # GPU301
            return preds + [net(x.to(d2l.try_gpu())).item() for x in batches]  # GPU307
    """,
    "device_helpers_of_other_libraries": """
        import torch
        from helpers import try_gpu, try_all_gpus

        devices = try_all_gpus()
        net = torch.nn.Linear(4, 2).to(devices[0])


        def predict(batches):  # a device the file does not show is a device all the same
            preds = [net(x.to(devices[0])).cpu() for x in batches]  # GPU301
            return preds + [net(x.to(try_gpu())).item() for x in batches]  # GPU307
    """,
    "named_parameters_of_a_placed_module": """
        import torch

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = torch.nn.Linear(4, 2).to(device)
        host_model = torch.nn.Linear(4, 2)


        def weights(steps):
            for step in range(steps):  # a snapshot per step: the step loop is the one that counts
                placed = {name: p.detach().cpu().numpy() for name, p in model.named_parameters()}  # GPU301
                host = {name: p.detach().cpu().numpy() for name, p in host_model.named_parameters()}  # OK
                names = [name.upper() for name, p in model.named_buffers() if name == "running_mean"]  # OK
            return placed, host, names
    """,
    "device_of_a_value_of_unknown_type": """
        import torch


        def contrastive_loss(scores, loss_fn):
            device = scores.device
            targets = torch.arange(scores.shape[1]).to(device)  # GPU304
            noise = torch.randn(scores.shape).to(scores.device)  # GPU304
            return loss_fn(scores + noise, targets)
    """,
    "dtype_or_tensor_of_a_value_of_unknown_type": """
        import torch


        def shifted(scores, other, dtype=torch.float16, *, kind: torch.dtype = None):
            ones = torch.ones(scores.shape).to(scores.dtype)  # OK
            halves = torch.ones(scores.shape).to(dtype)  # OK
            kinds = torch.ones(scores.shape).to(kind)  # OK
            zeros = torch.zeros(scores.shape).to(other)  # GPU304
            return ones + halves + kinds + zeros
    """,
    "dtype_bound_to_a_name": """
        import torch

        device = torch.float16  # a dtype, whatever the name says


        def masks(sizes):
            return [torch.zeros(n, n).to(device) for n in sizes]  # OK
    """,
    "current_accelerator": """
        import torch

        device = torch.accelerator.current_accelerator()


        def masks(sizes):
            return [torch.zeros(n, n).to(device) for n in sizes]  # GPU304
    """,
    "current_accelerator_type": """
        import torch

        device = torch.accelerator.current_accelerator().type if hasattr(torch, "accelerator") else "cuda"


        def masks(sizes):
            return [torch.zeros(n, n).to(device) for n in sizes]  # GPU304
    """,
    "current_accelerator_of_a_helper": """
        import torch
        from helpers import current_accelerator

        device = current_accelerator()


        def masks(sizes):
            return [torch.zeros(n, n).to(device) for n in sizes]  # GPU304
    """,
    "torch_device_of_a_parameter": """
        import torch


        def ones(n, name):
            device = torch.device(name)
            return torch.ones(n).to(device)  # GPU304
    """,
    "torch_device_cpu": """
        import torch


        def ones(n):
            device = torch.device("cpu")
            return torch.ones(n).to(device)  # OK
    """,
    "tensor_device": """
        import torch


        def like(x, n):
            x = x.cuda()
            return torch.ones(n).to(x.device)  # GPU304
    """,
    "tensor_device_of_unknown_place": """
        import torch


        def like(values, n):
            x = torch.as_tensor(values)
            return torch.ones(n).to(x.device)  # GPU304
    """,
    "tensor_device_on_host_and_dtype": """
        import torch


        def like(x, n):
            host = torch.zeros(3)
            return torch.ones(n).to(host.device), torch.ones(n).to(x.dtype)  # OK
    """,
    "output_device": """
        import torch


        def extra(model, batch, n):
            model = model.cuda()
            out = model(batch)
            return torch.arange(n).to(out.device)  # GPU304
    """,
    "model_device": """
        import torch
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")
        starts = [torch.zeros(1, n, dtype=torch.long).to(model.device) for n in range(3)]  # GPU304
    """,
    "next_parameters_device": """
        import torch


        def scores(model, sizes):
            device = next(model.parameters()).device
            return [torch.ones(n).to(device) for n in sizes]  # GPU304
    """,
    "next_iter_parameters_device": """
        import torch


        def scores(model, sizes):
            device = next(iter(model.parameters())).device
            return [torch.ones(n).to(device) for n in sizes]  # GPU304
    """,
    "next_parameters_dtype": """
        import torch


        def scores(model, sizes):
            dtype = next(model.parameters()).dtype
            return [torch.ones(n).to(dtype) for n in sizes]  # OK
    """,
    "next_parameters_of_a_host_model": """
        import torch

        model = torch.nn.Linear(3, 3).cpu()
        device = next(model.parameters()).device
        ones = torch.ones(3).to(device)  # OK
    """,
    "integer_literal": """
        import torch


        def ones(n):
            return torch.ones(n).to(0)  # GPU304
    """,
    "rank_from_the_environment": """
        import os

        import torch

        local_rank = int(os.environ["LOCAL_RANK"])


        def ones(n):
            return torch.ones(n).to(local_rank)  # GPU304
    """,
    "rank_from_getenv": """
        import os

        import torch

        local_rank = int(os.getenv("LOCAL_RANK", "0"))
        ones = [torch.ones(n).to(local_rank) for n in range(3)]  # GPU304
    """,
    "rank_from_torch_distributed": """
        import torch
        import torch.distributed as dist

        rank = dist.get_rank()


        def totals(batches):
            return [batch.to(rank).sum().item() for batch in batches]  # GPU307
    """,
    "cuda_with_a_rank": """
        import torch


        def totals(batches, rank):
            return [batch.cuda(rank).sum().item() for batch in batches]  # GPU307
    """,
    "rank_of_unknown_origin": """
        import torch
        from helpers import local_rank


        def ones(n):
            rank = local_rank()
            return torch.ones(n).to(rank)  # GPU304
        def others(n):
            return torch.ones(n).to(-1 if n else 0)  # OK
    """,
    "models_and_losses_handed_in": """
        import torch


        def run_epoch(model, loader, optim, criterion, device, metric):
            total = 0.0
            for inputs, labels in loader:
                inputs, labels = inputs.to(device), labels.to(device)
                loss = criterion(model(inputs), labels)
                optim.zero_grad()
                loss.backward()
                optim.step()
                total += loss.item()  # GPU308
                score = metric(torch.ones(3))  # a handed-in callable of host values
                print(score.item(), len(inputs))  # OK
            return total


        def activations(layers, images, device):
            images = images.to(device)
            kept = {}
            for index, layer in enumerate(layers):  # a loop's variable: not a model handed in
                images = layer(images)
                kept[index] = images.cpu().numpy()  # OK
            return kept
    """,
    "backpropagated_loss_of_a_step_on_the_device": """
        import summary
        import torch
        from diffusion import training_losses


        def train(model, loader, optimizer, device, accumulate):
            for batch in loader:
                batch = batch.to(device)
                terms = training_losses(model, batch)  # a function of another package: unknown
                loss = terms["loss"].mean()
                (loss / accumulate).backward()  # a backward pass: `loss` is a tensor, on the device
                optimizer.step()
                print(loss.item())  # GPU307
                # beside the loss, a number
                if accumulate > 1:  # OK
                    optimizer.zero_grad()


        def train_on_the_host(model, loader, optimizer, criterion):
            for inputs, labels in loader:  # nothing the loop reads is on the device
                loss = criterion(model(inputs), labels)
                loss.backward()
                optimizer.step()
                print(loss.item())  # OK


        def train_epoch(model, loader, optimizer, device, options):
            total, count = 0.0, 0
            for batch in loader:
                inputs = batch.to(device)
                loss = model(inputs).mean()
                loss.backward()
                optimizer.step()
                total += options["batch_size"] * loss.item()  # GPU308
                count += options["batch_size"]
            loss = summary.mean(total, count)  # no backward pass follows: whatever it is
            return loss


        def fit(model, loader, optimizer, device, epochs):
            best = float("inf")
            for epoch in range(epochs):
                loss = train_epoch(model, loader, optimizer, device, {"batch_size": 32})
                # a number from the host
                if loss < best:  # OK
                    best = loss


        def train_as_numpy(model, loader, optimizer, device):
            for batch in loader:
                loss = training_losses(model, batch.to(device))["loss"]
                loss.backward()
                optimizer.step()
                # NumPy with no copy shows the host
                print(loss.detach().numpy())  # OK
    """,
    "backpropagated_through_a_helper": """
        from tasks import step


        def backward(loss, optimizer):  # runs the backward pass of what its callers pass
            loss.backward()
            optimizer.step()


        def scaled_backward(loss, optimizer, scale):
            backward(loss * scale, optimizer)  # a helper of a helper


        def train(task, loader, optimizer, device):
            for inputs, targets in loader:
                inputs, targets = inputs.to(device), targets.to(device)
                loss, logs = step(task, inputs, targets)  # unpacked from another package's call
                backward(loss, optimizer)
                print(loss.item())  # GPU307
                # an element beside it, not backpropagated
                print(logs.item())  # OK


        def train_scaled(task, loader, optimizer, device):
            for inputs, targets in loader:
                inputs = inputs.to(device)
                loss = step(task, inputs, targets)
                scaled_backward(loss=loss, optimizer=optimizer, scale=0.5)
                print(loss.item())  # GPU307


        def train_on_the_host(task, loader, optimizer):
            for inputs, targets in loader:  # nothing the loop reads is on the device
                loss, logs = step(task, inputs, targets)
                backward(loss, optimizer)
                print(loss.item())  # OK


        def log_only(task, loader, optimizer, device):
            for inputs, targets in loader:
                inputs = inputs.to(device)
                loss = step(task, inputs, targets)
                report(loss, optimizer)  # a helper that never runs a backward pass
                print(loss.item())  # OK


        def report(value, optimizer):
            print(value)
    """,
    "backpropagated_by_an_accelerator_of_the_instance": """
        from accelerate import Accelerator
        from losses import compute


        class Trainer:
            def __init__(self, model, loader):
                self.accelerator = Accelerator()
                self.model, self.loader = self.accelerator.prepare(model, loader)

            def fit(self):
                for batch in self.loader:
                    loss = compute(self.model, batch)  # the prepared model: on the device
                    self.accelerator.backward(loss)
                    print(loss.item())  # GPU307
    """,
    "backpropagated_at_module_level": """
        import torch
        from models import make

        model = make().cuda()
        loss = model(torch.ones(3, device="cuda")).sum()  # outside any loop and function
        loss.backward()
        # nothing repeats it
        print(loss.item())  # OK
    """,
    "module_output_plus_a_tensor": """
        import torch


        def train(loader, optimizer, device, alpha):
            criterion = torch.nn.CrossEntropyLoss()
            for images, captions in loader:
                images, captions = images.to(device), captions.to(device)
                loss = criterion(images, captions)  # a loss module's output, on the device
                loss += alpha * (1.0 - images.sum(dim=1)).mean()  # a tensor added: still one
                optimizer.step()
                print(loss.item())  # GPU307
    """,
    "trainer_class_of_its_own_module": """
        class Trainer:  # no torch import: the backward pass and `.to(...)` say what it is
            def __init__(self, model, loader, optim, criterion, device):
                self.model, self.loader, self.optim = model, loader, optim
                self.criterion, self.device = criterion, device

            def run_epoch(self):
                total = 0.0
                for batch in self.loader:
                    inputs = batch[0].to(self.device)
                    loss = self.criterion(self.model(inputs), batch[1].to(self.device))
                    self.optim.zero_grad()
                    loss.backward()
                    self.optim.step()
                    total += loss.item()  # GPU308
                return total
    """,
    "training_step_of_another_file": """
        import torch


        class Agent:
            def update(self, values, loss):  # a training step: its callers run it per batch
                noise = torch.randn(values.size())  # GPU304
                if values.is_cuda:
                    noise = noise.cuda()
                (loss + noise.sum()).backward()

            def setup(self, values):  # nothing runs it repeatedly
                base = torch.zeros(values.size())  # OK
                if values.is_cuda:
                    base = base.cuda()
                return base
    """,
    "hook_of_a_bound_method": """
        import torch


        class Statistics:
            def __init__(self, model):
                for module in model.modules():
                    module.register_forward_pre_hook(self.save_input)

            def save_input(self, module, inputs):  # called on every forward pass
                ones = torch.ones(inputs[0].size(0), 1)  # GPU304
                if inputs[0].is_cuda:
                    ones = ones.cuda()
                return ones
    """,
    "mask_made_through_a_torch_function": """
        import torch


        class Decoder(torch.nn.Module):
            def forward(self, target):
                n = target.shape[1]
                return torch.tril(torch.ones((n, n))).bool().to(target.device)  # GPU304
    """,
    "interval_of_one_through_a_name": """
        import torch

        log_interval = 1  # every step
        eval_interval = 100
        device = torch.device("cuda")
        model = torch.nn.Linear(4, 1).to(device)


        def train(loader, optimizer):
            for iter_num, batch in enumerate(loader):
                loss = model(batch.to(device)).mean()
                loss.backward()
                optimizer.step()
                if iter_num % log_interval == 0:
                    print(f"iter {iter_num}: loss {loss.item():.4f}")  # GPU307
                if iter_num % eval_interval == 0:
                    print(loss.item())  # OK
                if iter_num % 1 == 0:
                    print(loss.item())  # GPU307
    """,
    "lightning_fabric": """
        import lightning as L
        import torch


        def get_batch(fabric: L.Fabric, data):
            x = torch.stack([d for d in data])
            y = torch.stack([d for d in data])
            return fabric.to_device((x.pin_memory(), y.pin_memory()))


        @torch.no_grad()
        def validate(fabric: L.Fabric, model: torch.nn.Module, val_data, iters):
            losses = torch.zeros(iters)
            for k in range(iters):
                input_ids, targets = get_batch(fabric, val_data)
                loss = torch.nn.functional.cross_entropy(model(input_ids), targets)
                losses[k] = loss.item()  # GPU307
            return losses.mean()


        def main(batches):
            fabric = L.Fabric(accelerator="cuda", devices=1)
            model, optimizer = fabric.setup(torch.nn.Linear(4, 4), torch.optim.SGD([], lr=0.1))
            for batch in fabric.setup_dataloaders(torch.utils.data.DataLoader(batches)):
                print(model(batch).sum().item())  # GPU307
            local = L.Fabric(accelerator="cpu")
            small = local.setup(torch.nn.Linear(4, 4))
            for batch in batches:
                print(small(local.to_device(batch)).sum().item())  # OK


        def evaluate(choice, batches):  # an accelerator the file does not show
            fabric = L.Fabric(accelerator=choice)
            model = fabric.setup_module(torch.nn.Linear(4, 4))
            total = 0.0
            for batch in batches:
                total += model(batch).sum().item()  # GPU308
            return total
    """,
    "legacy_noise_filled_in_place": """
        import torch
        import torch.nn as nn
        import torch.nn.init as init
        from torch.autograd import Variable


        class VAE(nn.Module):
            def reparametrize(self, mu, logvar):
                std = logvar.mul(0.5).exp_()
                eps = torch.FloatTensor(std.size()).normal_()  # GPU304
                eps = Variable(eps).cuda()
                return eps.mul(std).add_(mu)

            def forward(self, x):
                return self.reparametrize(x, x)


        def train(loader, generator, batch_size, data):
            for image, label in loader:
                z = Variable(init.normal(torch.Tensor(batch_size, 100), mean=0, std=0.1)).cuda()  # GPU304
                made = Variable(torch.FloatTensor(data)).cuda()  # OK
                generator(z + made)
    """,
    "formatted_device": """
        import torch


        def ones(n, rank):
            return torch.ones(n).to(f"cuda:{rank}")  # GPU304
    """,
    "formatted_unknown_or_cpu": """
        import torch


        def ones(n, kind, rank):
            return torch.ones(n).to(f"{kind}:{rank}"), torch.ones(n).to(f"cpu")  # OK
    """,
    "current_device": """
        import torch

        device = torch.cuda.current_device()
        ones = [torch.ones(n).to(device) for n in range(3)]  # GPU304
    """,
    "device_count_is_not_a_device": """
        import torch

        count = torch.cuda.device_count()
        ones = torch.ones(3).to(torch.float16)  # OK
    """,
}


@pytest.mark.parametrize("source", DEVICE_EXPRESSIONS.values(), ids=DEVICE_EXPRESSIONS.keys())
def test_device_expressions(source):
    _check(source)


# -- legacy tensor constructors ----------------------------------------------------------------

LEGACY_CONSTRUCTORS = {
    "tensor_then_moved": """
        import torch
        from matplotlib.colors import to_rgba


        def weights(values, device):  # made from data: copied to the device, `device=` or not
            colour = torch.Tensor(to_rgba("C0")).to(device=device)  # OK
            return torch.Tensor([v * 2 for v in values]).to(device=device), colour  # OK
    """,
    "long_tensor_then_cuda": """
        import torch


        def labels(values):
            return torch.LongTensor(list(values)).cuda()  # OK
    """,
    "argument_that_may_be_a_tensor": """
        import torch


        def labels(values, device):
            return torch.LongTensor(values).cuda(), torch.Tensor(-values).to(device)  # OK
    """,
    "float_tensor_in_a_loop": """
        import torch

        device = "cuda"


        def total(rows):
            result = 0.0
            for row in rows:
                values = torch.FloatTensor(row)
                result += values.to(device).sum().item()  # GPU308
            return result
    """,
    "cuda_float_tensor_is_on_the_device": """
        import torch


        def total(rows):
            result = 0.0
            for row in rows:
                result += torch.cuda.FloatTensor(row).sum().item()  # GPU308
            return result
    """,
    "host_tensors_stay_silent": """
        import torch


        def total(rows):
            result = 0.0
            for row in rows:
                result += torch.FloatTensor(row).sum().item()  # OK
            moved = torch.cuda.FloatTensor(rows).to("cuda")  # OK
            kept = torch.LongTensor(rows).to(torch.float16)  # OK
            return result
    """,
}


@pytest.mark.parametrize("source", LEGACY_CONSTRUCTORS.values(), ids=LEGACY_CONSTRUCTORS.keys())
def test_legacy_constructors(source):
    _check(source)


# -- accelerate --------------------------------------------------------------------------------

ACCELERATE = {
    "prepared_loader_with_a_collate_fn": """
        import torch
        from accelerate import Accelerator
        from torch.utils.data import DataLoader
        from torchvision import datasets

        accelerator = Accelerator()


        def collate(examples):
            batch = {}
            batch["pixels"] = torch.stack([e["pixels"] for e in examples])
            return batch


        def train(root, model, optimizer):
            loader = DataLoader(datasets.ImageFolder(root), batch_size=4, collate_fn=collate)  # GPU305
            model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
            for batch in loader:
                print(batch["pixels"].sum().item())  # GPU307
    """,
    "prepared_loader_and_model": """
        from accelerate import Accelerator

        accelerator = Accelerator()


        def train(model, optimizer, loader):
            model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
            losses = []
            for batch in loader:
                outputs = model(**batch)
                accelerator.backward(outputs.loss)
                losses.append(outputs.loss.item())  # GPU307
            return losses
    """,
    "prepared_batches_are_on_the_device": """
        from accelerate import Accelerator

        accelerator = Accelerator(mixed_precision="fp16")


        def count(loader):
            loader = accelerator.prepare(loader)
            hits = 0
            for inputs, labels in loader:
                hits += (inputs.argmax(-1) == labels).sum().item()  # GPU308
            return hits
    """,
    "fields_of_prepared_batches": """
        from accelerate import Accelerator

        accelerator = Accelerator()


        def train(model, loader):
            model, loader = accelerator.prepare(model, loader)
            for batch in loader:
                if batch["mask"].any():  # GPU306
                    continue
                if batch["step"] is None:  # OK
                    continue
                model(batch)
    """,
    "accelerator_device": """
        import torch
        from accelerate import Accelerator

        accelerator = Accelerator()
        masks = [torch.ones(n, n).to(accelerator.device) for n in range(8)]  # GPU304
    """,
    "gather_and_unwrap": """
        from accelerate import Accelerator

        accelerator = Accelerator()


        def predict(model, loader):
            model, loader = accelerator.prepare(model, loader)
            net = accelerator.unwrap_model(model)
            found = []
            for batch in loader:
                found.extend(accelerator.gather(net(batch).argmax(-1)).cpu())  # GPU301
            return found
    """,
    "cpu_accelerator": """
        import torch
        from accelerate import Accelerator

        accelerator = Accelerator(cpu=True)
        mask = torch.ones(8, 8).to(accelerator.device)  # OK


        def train(model, loader):
            model, loader = accelerator.prepare(model, loader)
            return [model(**batch).loss.item() for batch in loader]  # OK
    """,
    "no_device_placement": """
        from accelerate import Accelerator

        accelerator = Accelerator(device_placement=False)


        def train(model, loader):
            model, loader = accelerator.prepare(model, loader)
            return [model(**batch).loss.item() for batch in loader]  # OK
    """,
    "gather_object_is_python": """
        from accelerate import Accelerator

        accelerator = Accelerator()


        def collect(texts):
            return [len(accelerator.gather_object(text)) for text in texts]  # OK
    """,
    "a_look_alike_without_accelerate": """
        from helpers import Accelerator

        accelerator = Accelerator()


        def train(model, loader):
            model, loader = accelerator.prepare(model, loader)
            return [model(**batch).loss.item() for batch in loader]  # OK
    """,
}


@pytest.mark.parametrize("source", ACCELERATE.values(), ids=ACCELERATE.keys())
def test_accelerate(source):
    _check(source)


# -- transformers ------------------------------------------------------------------------------

TRANSFORMERS = {
    "device_map_places_the_model": """
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="auto")


        def losses(batches):
            return [model(**batch).loss.item() for batch in batches]  # GPU307
    """,
    "device_map_dict": """
        import transformers

        model = transformers.AutoModel.from_pretrained("bert-base-uncased", device_map={"": 0})


        def first_tokens(batches):
            return [model(**batch).last_hidden_state[:, 0].cpu() for batch in batches]  # GPU301
    """,
    "model_moved_after_loading": """
        from transformers import BertForSequenceClassification

        model = BertForSequenceClassification.from_pretrained("bert-base-uncased")
        model.to("cuda")


        def predictions(batches):
            return [model(**batch).logits.argmax(-1).tolist() for batch in batches]  # GPU301
    """,
    "loaded_on_the_host": """
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
        cpu_model = AutoModelForSequenceClassification.from_pretrained("bert", device_map="cpu")
        tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased", device_map="auto")


        def predictions(texts):
            first = [model(**tokenizer(t, return_tensors="pt")).logits.tolist() for t in texts]  # OK
            return first + [cpu_model(**tokenizer(t, return_tensors="pt")).logits.tolist() for t in texts]  # OK
    """,
    "generated_on_the_device": """
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="auto")
        host_model = AutoModelForCausalLM.from_pretrained("gpt2")


        def complete(prompts):
            first = [model.generate(**p, return_dict_in_generate=True).sequences.cpu() for p in prompts]  # GPU301
            return first + [host_model.generate(**prompt).cpu() for prompt in prompts]  # OK
    """,
    "pipeline_on_a_device": """
        import torch
        from transformers import pipeline

        classify = pipeline("text-classification", model="distilbert-base-uncased", device=0)
        prompts = [torch.zeros(1, n, dtype=torch.long).to(classify.device) for n in range(4)]  # GPU304


        def scores(texts):
            return [classify(text)[0]["score"] for text in texts]  # OK
    """,
    "pipeline_model_outputs": """
        from transformers import pipeline

        generate = pipeline("text-generation", model="gpt2", device_map="auto")


        def losses(batches):
            return [generate.model(**batch).loss.item() for batch in batches]  # GPU307
    """,
    "pipeline_on_the_host": """
        import torch
        from transformers import pipeline

        classify = pipeline("text-classification", device=-1)
        prompt = torch.zeros(1, 4, dtype=torch.long).to(classify.device)  # OK


        def losses(batches):
            return [classify.model(**batch).loss.item() for batch in batches]  # OK
    """,
    "diffusion_pipeline_returns_host_data": """
        import json

        import torch
        from diffusers import StableDiffusionPipeline

        pipe = StableDiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5")
        pipe.to("cuda")
        result = pipe("a photo of a cat")
        for image in result["images"]:
            print(json.dumps(image.tolist()))  # OK
    """,
    "diffusion_models_are_torch_modules": """
        from diffusers import UNet2DConditionModel

        unet = UNet2DConditionModel.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder="unet")
        unet.to("cuda")


        def noise_norms(batches):
            return [unet(*batch).sample.norm().item() for batch in batches]  # GPU307
    """,
    "trainer_step_hooks": """
        import torch
        from transformers import Trainer


        class MetricTrainer(Trainer):
            def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
                outputs = model(**inputs)  # the trainer's model and batch: on the device
                loss = outputs.loss
                if (inputs["labels"] != -100).any():  # GPU306
                    loss = loss * 2
                self.history.append(loss.item())  # GPU307
                self._log_rewards(outputs.logits)
                if self.state.global_step % 100 == 0:
                    self.history.append(outputs.logits.mean().item())  # OK
                    self._log_sample(outputs.logits)
                return (loss, outputs) if return_outputs else loss

            def _log_rewards(self, logits):  # called on every step
                rewards = self.accelerator.gather_for_metrics(logits.max(-1).values)
                self.history.append(rewards.mean().item())  # GPU307

            def _log_sample(self, logits):  # called every 100 steps
                self.samples.append(logits[0].argmax().item())  # OK

            def summary(self, logits):  # a method no step calls
                if self.model(logits).any():  # OK
                    return 0.0
                return logits.sum().item()  # OK
    """,
    "trainer_of_the_project": """
        import torch
        from .base import BaseTrainer
        from .utils import Runner


        class PairTrainer(BaseTrainer):  # a project base: the hook's signature shows a trainer
            def compute_loss(self, model, inputs, return_outputs=False):
                rewards = model(**inputs).logits
                margin = torch.zeros(1).to(rewards.device)  # GPU304
                self.log({"accuracy": (rewards > margin).float().mean().item()})  # GPU307
                return rewards.mean()


        class Scorer(Runner):  # a method of that name but another signature: no trainer
            def compute_loss(self, model, inputs):
                rewards = model(**inputs).logits
                self.log({"accuracy": rewards.float().mean().item()})  # OK
                return rewards.mean()
    """,
}


@pytest.mark.parametrize("source", TRANSFORMERS.values(), ids=TRANSFORMERS.keys())
def test_transformers(source):
    _check(source)


# -- functional calls and loss modules ---------------------------------------------------------

FUNCTIONAL = {
    "functional_on_placed_tensors": """
        import torch.nn.functional as F


        def evaluate(model, loader, device):
            model = model.to("cuda")
            total = 0.0
            for data, target in loader:
                data, target = data.to("cuda"), target.to("cuda")
                total += F.nll_loss(model(data), target).item()  # GPU308
            return total
    """,
    "loss_module_on_placed_tensors": """
        from torch import nn

        criterion = nn.CrossEntropyLoss()


        def evaluate(model, loader):
            total = 0.0
            for data, target in loader:
                total += criterion(data.cuda(), target.cuda()).item()  # GPU308
            return total
    """,
    "loss_module_made_and_called_at_once": """
        from torch import nn


        def evaluate(model, loader):
            total = 0.0
            for data, target in loader:
                total += nn.BCELoss()(data.cuda(), target.cuda()).item()  # GPU308
            return total
    """,
    "loss_module_made_and_called_at_once_on_the_host": """
        from torch import nn


        def evaluate(model, loader):
            total = 0.0
            for data, target in loader:
                total += nn.BCELoss()(data.cpu(), target.cpu()).item()  # OK
            return total
    """,
    "parts_of_placed_tensors": """
        import torch


        def margins(model, batches):
            model = model.cuda()
            found = []
            for batch in batches:
                first, second = model(batch).chunk(2)
                values, indices = torch.max(first, dim=1)
                found.append((values - second.topk(1).values).sum().item())  # GPU307
            return found
    """,
    "parts_of_host_tensors": """
        import torch


        def margins(model, batches):
            model = model.cpu()
            found = []
            for batch in batches:
                first, second = model(batch).chunk(2)
                values, indices = torch.max(first, dim=1)
                found.append((values - second.topk(1).values).sum().item())  # OK
            return found
    """,
    "on_the_host": """
        import torch.nn.functional as F
        from torch import nn

        criterion = nn.CrossEntropyLoss()


        def evaluate(loader):
            total = 0.0
            for data, target in loader:
                data, target = data.to("cpu"), target.to("cpu")
                total += F.nll_loss(data, target).item() + criterion(data, target).item()  # OK
            return total
    """,
}


@pytest.mark.parametrize("source", FUNCTIONAL.values(), ids=FUNCTIONAL.keys())
def test_functional_calls_and_loss_modules(source):
    _check(source)


# -- other libraries' data loaders -------------------------------------------------------------

LOADERS = {
    "batches_are_what_the_collate_fn_returns": """
        import torch
        from torch.utils.data import DataLoader

        device = torch.device("cuda")


        def to_device(items):
            batch = {}
            for key in items[0]:
                batch[key] = torch.stack([item[key] for item in items]).to(device)
            return batch


        def on_host(items):
            return torch.stack(items)


        def run(dataset, table):
            for batch in DataLoader(dataset, batch_size=8, collate_fn=to_device):
                print(batch["label"].sum().item())  # GPU307
            for rows in table.iter_torch_batches(batch_size=8, collate_fn=to_device):
                print(rows["label"].cpu())  # GPU301
            for x in DataLoader(dataset, batch_size=8, collate_fn=on_host):
                print(x.sum().item())  # OK
    """,
    "pyg_loader": """
        from torch_geometric.datasets import TUDataset
        from torch_geometric.loader import DataLoader


        def train(model, root, transform):
            loader = DataLoader(TUDataset(root, "REDDIT-BINARY", transform=transform), batch_size=32, shuffle=True)  # GPU305
            for data in loader:
                data = data.cuda()
                model(data)
    """,
    "pyg_loader_old_module": """
        import torch_geometric

        device = "cuda"


        def train(model, root, transform):
            graphs = torch_geometric.datasets.TUDataset(root, "REDDIT-BINARY", transform=transform)
            loader = torch_geometric.data.DataLoader(graphs, batch_size=32)  # GPU305
            for data in loader:
                model(data.to(device))
    """,
    "pyg_loader_of_a_few_batches": """
        import torch_geometric

        device = "cuda"


        def train(model, root, transform):
            graphs = torch_geometric.datasets.TUDataset(root, "MUTAG", transform=transform)  # 188 graphs: 6 batches
            loader = torch_geometric.data.DataLoader(graphs, batch_size=32)  # OK
            for data in loader:
                model(data.to(device))
    """,
    "pyg_loader_with_workers": """
        from torch_geometric.loader import DataLoader


        def train(model, dataset):
            loader = DataLoader(dataset, batch_size=32, num_workers=4)  # OK
            for data in loader:
                model(data.cuda())
    """,
    "a_loader_of_another_library": """
        from helpers.loader import DataLoader


        def train(model, dataset):
            loader = DataLoader(dataset, batch_size=32)  # OK
            for data in loader:
                model(data.cuda())
    """,
}


@pytest.mark.parametrize("source", LOADERS.values(), ids=LOADERS.keys())
def test_other_libraries_loaders(source):
    _check(source)


# -- the types themselves ----------------------------------------------------------------------

TYPES = [
    ('import os\nx = int(os.environ.get("LOCAL_RANK", 0))', Ty("device", "torch", "device")),
    ('from os import environ\nx = int(environ["RANK"])', Ty("device", "torch", "device")),
    ("x = int(options.rank)", OTHER),
    ('rank = 1\nx = f"cuda:{rank}"', Ty("device", "torch", "device")),
    ('rank = 1\nx = f"cpu:{rank}"', Ty("device", "torch", "host")),
    ('kind = "cuda"\nx = f"{kind}:0"', OTHER),
    ('x = f"cuda{1}"', OTHER),
    ("import torch\nx = torch.cuda.LongTensor([1])", Ty("tensor", "torch", "device")),
    ("import torch\nx = torch.Tensor(torch.ones(2).cuda())", Ty("tensor", "torch", "")),
    ("import torch\nx = torch.nn.Linear(2, 2).cuda().parameters()", Ty("placed", "torch", "device")),
    ("import torch\nx = next(iter(torch.nn.Linear(2, 2).cuda().parameters()))", Ty("placed", "torch", "device")),
    ("import torch\nx = next(iter([1, 2]))", None),
    ("import torch\nt = torch.ones(2, 2).cuda()\nx = iter(t)", Ty("tensor", "torch", "device")),
    (
        'from transformers import AutoModel\nx = AutoModel.from_pretrained("m", device_map={"": "cpu", "lm": "disk"})',
        Ty("model", "torch", "host"),
    ),
    (
        'from transformers import AutoModel\nx = AutoModel.from_pretrained("m", device_map={"": 0})',
        Ty("model", "torch", "device"),
    ),
    (
        'from transformers import AutoModel\nx = AutoModel.from_pretrained("m", load_in_8bit=True)',
        Ty("model", "torch", "device"),
    ),
    ('from transformers import AutoModel\nx = AutoModel.from_pretrained("m", **options)', Ty("model", "torch", "")),
    (
        'from transformers import AutoModel\nx = AutoModel.from_pretrained("m", device_map=None)',
        Ty("model", "torch", "host"),
    ),
    ('from transformers import AutoTokenizer\nx = AutoTokenizer.from_pretrained("m", device_map="auto")', None),
    ("from transformers import DataCollatorForSeq2Seq\nx = DataCollatorForSeq2Seq(tokenizer)", None),
    ("from transformers import BertConfig, BertModel\nx = BertModel(BertConfig())", Ty("model", "torch", "host")),
    # `.type_as(other)` takes other's dtype and device
    ("import torch\nx = torch.zeros(2).type_as(torch.ones(2).cuda())", Ty("tensor", "torch", "device")),
    ("import torch\nx = torch.zeros(2).cuda().type_as(torch.ones(2))", Ty("tensor", "torch", "host")),
    ("from accelerate import Accelerator\nx = Accelerator(**options).device", Ty("device", "torch", "device")),
    ("from accelerate import Accelerator\nx = Accelerator(cpu=True).device", Ty("device", "torch", "host")),
    ("from accelerate import PartialState\nx = PartialState().device", Ty("device", "torch", "device")),
    ("from accelerate import PartialState\nx = PartialState(cpu=True).device", Ty("device", "torch", "host")),
    (
        'from transformers import AutoModelForCausalLM as M\nx = M.from_pretrained("m").cuda().generate(ids)',
        Ty("output", "torch", "device"),
    ),
    # `cpu=` a script's option: the host is the program's fallback, the device its run
    (
        "from accelerate import Accelerator\nx = Accelerator(cpu=use_cpu).prepare(model)",
        Ty("placed", "torch", "device"),
    ),
    ("from accelerate import Accelerator\nx = Accelerator(cpu=args.cpu).device", Ty("device", "torch", "device")),
    # options handed in as `**kwargs` (which may hold `cpu=True`): as a `cpu=` option
    (
        "from accelerate import Accelerator\nx = Accelerator(**options).prepare(model)",
        Ty("placed", "torch", "device"),
    ),
    ("from accelerate import Accelerator\nx = Accelerator(**options, device_placement=flag).prepare(model)", None),
    ("from accelerate import Accelerator\nx = Accelerator(device_placement=flag).prepare(model)", None),
    ("from accelerate import Accelerator\nx = Accelerator().prepare(model, device_placement=[False])", None),
    (
        "import torch\nfrom accelerate import Accelerator\nx = Accelerator().prepare(torch.ones(2))",
        Ty("tensor", "torch", "host"),
    ),
    (
        "from transformers import pipeline\nx = pipeline('fill-mask', device='cuda:1').model",
        Ty("model", "torch", "device"),
    ),
    ("from transformers import pipeline\nx = pipeline('fill-mask', device=rank).device", None),
    ("from transformers import pipeline\nx = pipeline('fill-mask').device", None),
]


@pytest.mark.parametrize(("source", "expected"), TYPES, ids=[s.splitlines()[-1] for s, _ in TYPES])
def test_types(source, expected):
    assert probe_one(f"{source}\nprobe(x)\n") == expected


def test_prepare_returns_each_object_in_its_place():
    model, other, loader = probe(
        """
        import torch
        from accelerate import Accelerator
        accelerator = Accelerator()
        model, optimizer, loader = accelerator.prepare(torch.nn.Linear(2, 2), optimizer, loader)
        probe(model); probe(optimizer); probe(loader)
        """
    )
    assert model == Ty("model", "torch", "device")
    assert other == loader == Ty("placed", "torch", "device")


@pytest.mark.parametrize(
    ("name", "is_model"),
    [
        ("AutoModelForCausalLM", True),
        ("BertForSequenceClassification", True),
        ("GPT2LMHeadModel", True),
        ("PreTrainedModel", True),
        ("AutoModel", True),
        ("AutoTokenizer", False),
        ("AutoConfig", False),
        ("DataCollatorForLanguageModeling", False),
        ("TFBertModel", False),
        ("FlaxAutoModelForCausalLM", False),
        ("BaseModelOutput", False),
        ("Seq2SeqLMOutput", False),
        ("from_pretrained", False),
    ],
)
def test_model_classes(name, is_model):
    assert is_model_class(name) is is_model


# -- TensorBoard writers ---------------------------------------------------------------------

TENSORBOARD = {
    "a_device_loss_logged_every_step": """
        import torch
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter("runs")


        def train(model, loader, optimizer):
            model = model.cuda()
            for step, (x, y) in enumerate(loader):
                loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
                loss.backward()
                optimizer.step()
                writer.add_scalar("loss", loss, global_step=step)  # GPU307
                writer.add_scalar("lr", 0.1, global_step=step)  # OK
    """,
    "tensorboardx_on_an_attribute_keyword_value": """
        import torch
        from tensorboardX import SummaryWriter


        class Agent:
            def __init__(self, net):
                self.net = net.cuda()
                self.writer = SummaryWriter()

            def update(self, batches):
                for x in batches:
                    loss = self.net(x.cuda()).mean()
                    self.writer.add_scalar(tag="loss", scalar_value=loss)  # GPU307
    """,
    "a_writer_of_unknown_kind": """
        import torch


        def train(model, loader, logger):
            model = model.cuda()
            for x in loader:
                loss = model(x.cuda()).mean()
                logger.add_scalar("loss", loss)  # OK
    """,
}


@pytest.mark.parametrize("source", TENSORBOARD.values(), ids=TENSORBOARD.keys())
def test_a_tensorboard_writer_reads_a_device_tensor_it_logs(source):
    _check(source)
