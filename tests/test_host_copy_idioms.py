"""One detector, three rules: a copy from the device to the host in a loop is reported under
the rule of its idiom (GPU301 a tensor copied, GPU307 a number read, GPU308 a running total
fed), and under one only. The same copies are mined independently by the real-code miner,
whose syntactic split must agree on these shapes."""

from __future__ import annotations

import ast

import pytest
from gpulint import lint_source

from benchmarks.realcode.miners.transfers import MINERS

from .rule_helpers import HOST_COPIES, lint_in_preview_mode

HEADER = """\
import math
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 4).to(device)
total = 0.0
stats = {"loss": 0.0}
outputs = []
for batch in range(10_000):
    out = model(torch.randn(2, 4, device=device))
    out.pow(2).mean().backward()
"""

CASES = [
    # a running total fed from the device: GPU308
    ("total += out.sum().item()", "GPU308"),
    ("total -= out.sum().item()", "GPU308"),
    ("total += out.sum().item() * len(out) / 2", "GPU308"),
    ("total += -out.sum().item()", "GPU308"),
    ("total = total + out.sum().item()", "GPU308"),
    ("total = out.sum().item() + total", "GPU308"),
    ('stats["loss"] += out.mean().item()', "GPU308"),
    ("total += float(out.sum())", "GPU308"),
    ("total += out.sum().cpu().numpy()", "GPU308"),
    ("total += out.detach().cpu().item()", "GPU308"),
    ("total += round(out.sum().item(), 3)", "GPU308"),  # a number computed from the read is summed
    ("total += math.sqrt(out.sum().item())", "GPU308"),
    ('log += "loss %.4f" % out.sum().item()', "GPU307"),  # text formatted, not a sum
    ('log = log + "loss " + str(out.sum().item())', "GPU307"),
    # a number read: GPU307
    ("print(out.sum().item())", "GPU307"),
    ("print(float(out.sum().cpu()))", "GPU307"),
    ("outputs.append(out.sum().item())", "GPU307"),
    ("total = 1.0 + out.sum().item()", "GPU307"),  # not a sum of the name itself
    ("total *= out.sum().item()", "GPU307"),  # a product, not a running total
    ("total += len(str(out.sum().item()))", "GPU307"),  # passed to a call first
    ('stats["last"] = out.mean().item()', "GPU307"),
    ("value = float(out.argmax())", "GPU307"),
    # a tensor copied: GPU301
    ("outputs.append(out.cpu())", "GPU301"),
    ("outputs += [out.cpu()]", "GPU301"),  # collected, not summed
    ("value = out.detach().cpu().numpy()", "GPU301"),
    ("value = out.tolist()", "GPU301"),
    ('value = out.to("cpu")', "GPU301"),
    # a list is extended, not summed: GPU301
    ("outputs += out.argmax(1).cpu().tolist()", "GPU301"),
    ("outputs = outputs + list(out.cpu())", "GPU301"),
    # the shapes of a sum: the total itself as a term, any target spelling
    ('stats["loss"] = stats["loss"] + out.mean().item()', "GPU308"),
    ("total = out.sum().item() - total", "GPU307"),  # not the total minus something
    ("total = 0.9 * total + 0.1 * out.sum().item()", "GPU307"),  # a moving average: a number read
]


@pytest.mark.parametrize(("line", "code"), CASES, ids=[line for line, _ in CASES])
def test_each_copy_is_reported_once_under_its_idioms_rule(line: str, code: str):
    source = HEADER + "    " + line + "\n"
    found = [d.code for d in lint_source(source) if d.code in HOST_COPIES]
    assert found == [code]


@pytest.mark.parametrize(("line", "code"), CASES, ids=[line for line, _ in CASES])
def test_the_miners_split_agrees(line: str, code: str):
    tree = ast.parse(HEADER + "    " + line + "\n")
    mined = {rule for rule in HOST_COPIES if list(MINERS[rule](tree))}
    assert mined == {code}


#: A running total next to another statement of the same iteration (None: nothing more).
TOTALS_READ = [
    ("print(total / (batch + 1))", "GPU307"),  # the mean so far, shown every step
    ("progress.set_postfix(total=total)", "GPU307"),
    ("if batch % 100 == 0:\n        print(total)", "GPU308"),  # every 100 steps: keep the total on the device
    ("outputs.append(out)", "GPU308"),
]


@pytest.mark.parametrize(("after", "code"), TOTALS_READ, ids=[after for after, _ in TOTALS_READ])
def test_a_total_read_on_every_iteration_is_a_number_read_each_step(after: str, code: str):
    source = HEADER + "    total += out.sum().item()\n    " + after + "\n"
    assert [d.code for d in lint_source(source) if d.code in HOST_COPIES] == [code]
    mined = {rule for rule in HOST_COPIES if list(MINERS[rule](ast.parse(source)))}
    assert mined == {code}


STOPS = """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 4).to(device)


def generate(ids, eos_id):
    for step in range(10_000):
        token = model(ids).argmax()
{test}
        ids = torch.cat([ids, token.view(1)])
    return ids
"""


@pytest.mark.parametrize(
    ("test", "flagged"),
    [
        ("        if token.item() == eos_id:\n            break", False),  # the loop needs it to go on
        ("        if int(token) == eos_id:\n            return ids", False),
        ("        if token.item() == eos_id:\n            raise StopIteration", False),
        ("        if token.item() == eos_id:\n            print('stop')", True),  # read, but the loop goes on
        ("        if token.item() != eos_id:\n            pass\n        else:\n            break", False),
        # a `break` in a loop over a token's few parts leaves that loop, not the one that counts
        ("        for part in (token, token):\n            if part.item() == eos_id:\n                break", True),
        # bound to a name the next test reads: the same decision (an early stop on a divergence)
        ("        last = token.item()\n        if last == eos_id:\n            break", False),
        ("        last = token.item()\n        print(last)\n        if last == eos_id:\n            break", False),
        ("        last = token.item()\n        last = 0\n        if last == eos_id:\n            break", True),
        ("        last = token.item()\n        if last == eos_id:\n            print('stop')", True),
        # a named value checked only to raise is a sanity check, which can wait
        ("        last = token.item()\n        if last == eos_id:\n            raise ValueError", True),
    ],
)
def test_a_number_the_loop_tests_to_stop_is_not_reported(test, flagged):
    found = [d.code for d in lint_source(STOPS.format(test=test)) if d.code in HOST_COPIES]
    assert found == (["GPU307"] if flagged else [])


EVALUATION = """\
import torch

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 3).to(device)


def accuracy(loader):
    correct = 0
    for images, labels in loader:
        predicted = model(images.to(device)).argmax(1)
        labels = labels.to(device)
{body}
    return correct
"""


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # the copies are compared and reduced on the host, then summed: one running total
        ("        correct += (predicted.cpu() == labels.cpu()).sum()", ["GPU308"]),
        ("        correct += (predicted.cpu() == 1).float().mean()", ["GPU308"]),
        # a legacy host class converts on the host: a copy
        ("        correct += (predicted.type(torch.FloatTensor) == labels.float().cpu()).sum()", ["GPU308"]),
        ("        correct += torch.mean((predicted == labels).type(torch.FloatTensor)).item()", ["GPU308"]),
        ("        kept = predicted.type(torch.LongTensor)\n        print(kept)", ["GPU301"]),
        # the GPU run takes the side that asks for a device, on every iteration
        (
            "        if torch.cuda.is_available():\n"
            "            correct += (predicted.cpu() == labels.cpu()).sum()\n"
            "        else:\n"
            "            correct += (predicted == labels).sum()",
            ["GPU308"],
        ),
        ("        if torch.cuda.is_available():\n            print(predicted.cpu())", ["GPU301"]),
        # near-misses: the CPU fallback's side, a device class, a copy passed to a call first
        ("        if not torch.cuda.is_available():\n            correct += (predicted.cpu() == 1).sum()", []),
        ("        correct += (predicted.type(torch.cuda.FloatTensor) == 1).sum()", []),
        ("        if predicted.sum() > 0:\n            correct += (predicted.cpu() == 1).sum()", []),
    ],
)
def test_totals_of_compared_copies_and_device_tests(body: str, found: list[str]):
    source = EVALUATION.format(body=body)
    # an evaluation loop (no backward pass): its totals are GPU308's preview behaviour
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == found


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # a number computed from the read with `math`'s functions or a number builtin is summed
        ("        correct += math.sqrt(predicted.float().mean().item())", ["GPU308"]),
        ("        correct += round(predicted.float().mean().item(), 4)", ["GPU308"]),
        ("        psnr = 10 * math.log10(1 / predicted.float().mean().item())\n        correct += psnr", ["GPU308"]),
        # near-misses: the number is also shown, or passed to a function that is not arithmetic
        (
            "        psnr = 10 * math.log10(1 / predicted.float().mean().item())\n"
            "        correct += psnr\n"
            "        print(psnr)",
            ["GPU307"],
        ),
        ("        correct += len(str(predicted.float().mean().item()))", ["GPU307"]),
        ("        line = 'acc %.4f' % predicted.float().mean().item()\n        correct += line", ["GPU307"]),
    ],
)
def test_numbers_computed_from_a_read_on_the_way_to_a_total(body: str, found: list[str]):
    source = "import math\n" + EVALUATION.format(body=body)
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == found


WARM_UP = """\
import sys
from collections import deque

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
memory = deque(maxlen=10_000)
losses = []
steps, next_log = 0, 100


def train_step(batch):
    loss = model(torch.stack(batch).to(device)).pow(2).mean()
    loss.backward()
    losses.append(loss.cpu())


for frame_idx in range(1, 100_001):
    memory.append(torch.randn(4))
    flushed = []
{guarded}
"""


@pytest.mark.parametrize(
    ("guarded", "found"),
    [
        # a training step that starts once a replay buffer or a step count is warm: every frame after
        ("    if len(memory) > 32:\n        losses.append(model(memory[-1].to(device)).sum().item())", ["GPU307"]),
        ("    if 32 <= len(memory):\n        losses.append(model(memory[-1].to(device)).sum().item())", ["GPU307"]),
        ("    if frame_idx > 1_000:\n        losses.append(model(memory[-1].to(device)).sum().item())", ["GPU307"]),
        ("    if len(memory) > 32 and frame_idx >= 1_000:\n        train_step(list(memory)[-32:])", ["GPU301"]),
        ("    if len(memory) > 32:\n        train_step(list(memory)[-32:])", ["GPU301"]),
        # near-misses: every N steps, a batch gathered and flushed, a value each iteration computes
        ("    if frame_idx % 1_000 == 0:\n        losses.append(model(memory[-1].to(device)).sum().item())", []),
        (
            "    if len(memory) > 32:\n        losses.append(model(memory[-1].to(device)).sum().item())\n"
            "        memory = deque(maxlen=10_000)",
            [],
        ),
        (
            "    flushed = [frame_idx] * (frame_idx % 7)\n    if len(flushed) > 3:\n"
            "        losses.append(model(memory[-1].to(device)).sum().item())",
            [],
        ),
        (
            "    steps += 1\n    if steps > 100:\n        losses.append(model(memory[-1].to(device)).sum().item())\n        steps = 0",
            [],
        ),
        (
            "    if frame_idx >= next_log:\n        losses.append(model(memory[-1].to(device)).sum().item())\n        next_log += 100",
            [],
        ),
        ("    if frame_idx >= len(memory) - 1:\n        losses.append(model(memory[-1].to(device)).sum().item())", []),
        ("    if len(sys.argv) > 1:\n        losses.append(model(memory[-1].to(device)).sum().item())", []),
        (
            "    if len(memory) > 32:\n        losses.append(model(memory[-1].to(device)).sum().item())\n        memory[:] = []",
            [],
        ),
        (
            "    if len(memory) > 32:\n        losses.append(model(memory[-1].to(device)).sum().item())\n        memory.popleft()",
            [],
        ),
        (
            "    for n in range(100_000, 0, -1):\n        if n > 99_990:\n            losses.append(model(memory[-1].to(device)).sum().item())",
            [],
        ),
    ],
)
def test_a_step_that_waits_for_a_warm_up_runs_on_every_iteration_after_it(guarded: str, found: list[str]):
    source = WARM_UP.format(guarded=guarded)
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == found


TRAINER = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Buffer:
    def __init__(self):
        self.items = []

    def store(self, item):
        self.items.append(item)

    def __len__(self):
        return len(self.items)


class Trainer:
    def __init__(self):
        self.net = torch.nn.Linear(4, 2).to(device)
        self.memory = Buffer()
        self.warm_up = 1_000

    def step(self, state):
{step}

    def update(self):
        loss = self.net(torch.randn(32, 4, device=device)).pow(2).mean()
        loss.backward()
        return loss.data

    def train(self, frames):
        losses = []
        for self.total_step in range(1, frames + 1):
            self.step(torch.randn(4))
            if {test}:
                losses.append(self.update().cpu().numpy())
        return losses
"""


@pytest.mark.parametrize(
    ("step", "test", "found"),
    [
        # the buffer a method of the class fills, the loop's attribute counter: warm-up tests
        ("        self.memory.store(state)", "len(self.memory) >= 32", ["GPU301"]),
        ("        pass", "self.total_step > self.warm_up", ["GPU301"]),
        ("        self.memory.store(state)", "len(self.memory) >= 32 and self.total_step > self.warm_up", ["GPU301"]),
        # near-misses: nothing fills the buffer, or the counter is tested every N steps
        ("        pass", "len(self.memory) >= 32", []),
        ("        self.memory.store(state)", "self.total_step % 100 == 0", []),
        ("        self.memory.items.clear()", "len(self.memory.items) >= 32", []),  # a method that only empties it
    ],
)
def test_warm_up_tests_through_methods_and_attributes_of_the_instance(step, test, found):
    source = TRAINER.format(step=step, test=test)
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == found


AGENT = """\
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Agent:
    def __init__(self):
        self.net = torch.nn.Linear(4, 2).to(device)
        self.priorities = np.ones(10_000)

    def update(self, states):
        loss = self.net(states.to(device)).pow(2)
        loss.mean().backward()
        self.priorities[:32] = loss.detach().sum(dim=1).cpu().numpy()
{returned}
    def train(self, frames):
        for states in frames:
{called}
"""


@pytest.mark.parametrize(
    ("returned", "called", "found"),
    [
        ("", "            self.update(states)", ["GPU301"]),  # a method the class calls in a loop
        ("", "            pass\n        self.update(frames[0])", []),  # near-miss: called once, after the loop
        # near-miss: the method returns what it read, which its caller needs on every call
        ("        return loss.detach().sum().item()\n", "            print(self.update(states))", []),
        ("", "            other = Agent()\n            other.update(states)", []),  # near-miss: not on the instance
        # near-miss: `forward` run explicitly; its copies are what the model needs on the host
        (
            "    def forward(self, states):\n        return self.net(states.to(device)).argmax(1).cpu()\n",
            "            self.forward(states)",
            [],
        ),
    ],
)
def test_a_method_the_class_calls_in_a_loop_counts_as_the_loop(returned: str, called: str, found: list[str]):
    source = AGENT.format(returned=returned, called=called)
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == found


def test_copies_on_both_sides_of_a_flag_are_each_reported_however_the_side_rebinds_names():
    """`if args.flip:` with copies on both sides runs a copy on every iteration; a name the
    first side rebinds to a host array (`outputs = outputs.cpu().numpy()`) does not hide the
    other side's copies from the later ones."""
    source = (
        "import argparse\n"
        "import numpy as np\n"
        "import torch\n\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "args = argparse.ArgumentParser().parse_args()\n"
        "model = torch.nn.Conv2d(3, 3, 1).to(device)\n"
        "for images in torch.utils.data.DataLoader(list(range(1000)), batch_size=4):\n"
        "    images = images.to(device)\n"
        "    outputs = model(images)\n"
        "    if args.flip:\n"
        "        outputs = outputs.cpu().numpy()\n"
        "        flipped = torch.from_numpy(np.copy(images.cpu().numpy()[..., ::-1])).to(device)\n"
        "        outputs = (outputs + model(flipped).cpu().numpy()[..., ::-1]) / 2\n"
        "    else:\n"
        "        pred = outputs.argmax(1).cpu().numpy()\n"
    )
    found = [(d.code, d.start.line) for d in lint_in_preview_mode(source) if d.code in HOST_COPIES]
    assert found == [("GPU301", 12), ("GPU301", 13), ("GPU301", 14), ("GPU301", 16)]


def test_a_total_fed_in_a_helper_the_loop_calls_is_reported_without_a_crash():
    """A running total inside a module-level helper (no loop of its own) that a batch loop
    calls: the total's reads are asked of the helper, which has no loop to read it in."""
    source = (
        "import torch\n\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "model = torch.nn.Linear(4, 1).to(device)\n\n\n"
        "def calc_loss(pred, target, metrics):\n"
        "    loss = (pred - target).pow(2).mean()\n"
        "    metrics['loss'] += loss.data.cpu().numpy() * target.size(0)\n"
        "    return loss\n\n\n"
        "metrics = {'loss': 0.0}\n"
        "for inputs, labels in torch.utils.data.DataLoader(list(range(10_000)), batch_size=4):\n"
        "    loss = calc_loss(model(inputs.to(device)), labels.to(device), metrics)\n"
        "    loss.backward()\n"
    )
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == ["GPU308"]


CRITIC = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
critic = torch.nn.Linear(4, 1).to(device)
generator = torch.nn.Linear(2, 4).to(device)
batches = iter(torch.utils.data.DataLoader(list(range(100_000)), batch_size=64))
g_losses = []
for step in range(steps):
    for _ in range(n_critic):
        real = next(batches).to(device)
        critic(real).mean().backward()
{outer}
"""


@pytest.mark.parametrize(
    ("outer", "found"),
    [
        # the generator's step after the critic's: each iteration of the outer loop is a step
        (
            "    g_loss = -critic(generator(torch.randn(64, 2, device=device))).mean()\n"
            "    g_loss.backward()\n"
            "    g_losses.append(g_loss.item())",
            ["GPU307"],
        ),
        # near-miss: no step of its own, the outer loop is an epoch loop around its batches
        ("    g_losses.append(critic(real).mean().item())", []),
    ],
)
def test_a_loop_that_steps_itself_stays_the_step_loop_around_a_critic_loop(outer: str, found: list[str]):
    source = CRITIC.format(outer=outer)
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == found


ACCUMULATE = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
optimizer = torch.optim.Adam(model.parameters())
scaler = torch.cuda.amp.GradScaler()
batches = iter(torch.utils.data.DataLoader(list(range(100_000)), batch_size=64))
for step in range(steps):
    for _ in range(accumulate):
        loss = model(next(batches).to(device)).mean()
        (loss / accumulate).backward()
    print(loss.item())
{outer}
"""


@pytest.mark.parametrize(
    ("outer", "found"),
    [
        # an optimizer step on every iteration, after gradients accumulated over the counted loop
        ("    optimizer.step()\n    optimizer.zero_grad()", ["GPU307"]),
        ("    scaler.step(optimizer)\n    scaler.update()\n    optimizer.zero_grad()", ["GPU307"]),
        # near-misses: a scheduler's step (no gradients cleared), a step every N iterations only
        ("    scheduler.step()", []),
        ("    if step % 8 == 0:\n        optimizer.step()\n        optimizer.zero_grad()", []),
    ],
)
def test_a_loop_that_steps_an_optimizer_after_accumulating_gradients_is_the_step_loop(outer: str, found: list[str]):
    source = ACCUMULATE.format(outer=outer)
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == found


def test_an_epoch_loop_with_a_backward_after_its_loader_pass_stays_an_epoch_loop():
    """A regulariser's (or a full batch's) backward at the end of each epoch, after a pass over
    the loader: what the epoch loop reads then, it reads once per epoch."""
    source = (
        "import torch\n\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "model = torch.nn.Linear(4, 1).to(device)\n"
        "loader = torch.utils.data.DataLoader(list(range(100_000)), batch_size=64)\n"
        "history = []\n"
        "for epoch in range(100):\n"
        "    for x in loader:\n"
        "        model(x.to(device)).mean().backward()\n"
        "    reg = model.weight.pow(2).sum()\n"
        "    reg.backward()\n"
        "    history.append(reg.item())\n"
    )
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == []


ROLLOUT = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Agent:
    def __init__(self):
        self.net = torch.nn.Linear(4, 2).to(device)
        self.buffer = []

    def collect(self, state):
        self.buffer.append(state)

    def update(self):
        loss = self.net(torch.stack(self.buffer).to(device)).pow(2).mean()
        loss.backward()
{ending}
        return loss.detach()

    def train(self, states):
        losses = []
        for state in states:
            self.collect(state)
            if len(self.buffer) >= 128:
                losses.append(self.update().cpu().numpy())
        return losses
"""


@pytest.mark.parametrize(
    ("ending", "found"),
    [
        ("        pass", ["GPU301"]),  # a replay buffer: every step after the warm-up
        ("        self.buffer.clear()", []),  # near-miss: a rollout emptied by the update it triggers
        ("        self.buffer = []", []),
    ],
)
def test_a_buffer_emptied_by_a_method_the_branch_calls_is_no_warm_up(ending, found):
    source = ROLLOUT.format(ending=ending)
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == found


def test_a_loop_that_binds_an_attribute_rebinds_it_on_every_iteration():
    source = (
        "import torch\n\ndevice = torch.device('cuda')\n\n\nclass Evaluator:\n"
        "    def __init__(self):\n        self.net = torch.nn.Linear(4, 2).to(device)\n\n"
        "    def run(self, episodes):\n"
        "        for self.trajectory in episodes:\n"
        "            self.trajectory.append(torch.randn(4))\n"
        "            if len(self.trajectory) > 500:\n"
        "                print(self.net(torch.randn(1, 4, device=device)).sum().item())\n"
    )
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == []
