"""Device evidence that follows values the way older and course-style PyTorch code moves
them: placement in one branch (the other being the CPU fallback), legacy tensor classes,
`.type(...)` and the legacy `Variable` wrapper, and a `num_workers` given through a name bound
to a literal. Each source has a flagged example and a near-miss it must leave alone."""

from __future__ import annotations

import textwrap

import pytest


from .rule_helpers import lint_in_preview_mode

LOADER = textwrap.dedent(
    """\
    import torch
    from torch.utils.data import DataLoader
    from torchvision import datasets, transforms

    cuda = torch.cuda.is_available()
    data = datasets.CIFAR10("data", train=True, download=True, transform=transforms.ToTensor())
    """
)


def codes(source: str, *wanted: str) -> list[tuple[str, int]]:
    found = lint_in_preview_mode(textwrap.dedent(source))  # GPU305: loaders read on one pass too
    return [(d.code, d.start.line) for d in found if d.code in wanted]


@pytest.mark.parametrize(
    ("placement", "flagged"),
    [
        ("if cuda:\n    model.cuda()\n", True),  # placed in one branch: device code
        ("if cuda:\n    model = model.cuda()\nelse:\n    model = model.cpu()\n", True),
        ("if cuda:\n    model = model.to('cuda')\n", True),
        ("if cuda:\n    model.cpu()\n", False),  # near-miss: only ever on the host
        ("", False),  # near-miss: never moved
    ],
)
def test_a_model_placed_in_one_branch_is_device_code(placement, flagged):
    source = (
        LOADER
        + "model = torch.nn.Linear(3072, 10)\n"
        + placement
        + "loader = DataLoader(data, batch_size=64, num_workers=4)\n"
        + "for images, labels in loader:\n"
        + "    print(model(images.flatten(1)).sum().item())\n"
    )
    assert bool(codes(source, "GPU307")) is flagged


@pytest.mark.parametrize(
    ("tensor_class", "flagged"),
    [
        ("torch.cuda.FloatTensor if cuda else torch.FloatTensor", True),
        ("torch.FloatTensor if not cuda else torch.cuda.FloatTensor", True),
        ("torch.cuda.FloatTensor", True),
        ("torch.FloatTensor", False),  # near-miss: the host class
    ],
)
def test_legacy_tensor_classes_place_what_they_make(tensor_class, flagged):
    source = (
        LOADER
        + f"Tensor = {tensor_class}\n"
        + "loader = DataLoader(data, batch_size=64)\n"
        + "for epoch in range(5):\n"
        + "    for images, _ in loader:\n"
        + "        real = images.type(Tensor)\n"
        + "        valid = Tensor(images.size(0), 1).fill_(1.0)\n"
        + "        print((real.mean() - valid.mean()).item())\n"
    )
    found = codes(source, "GPU305", "GPU307")
    assert bool(found) is flagged
    if flagged:
        assert {code for code, _ in found} == {"GPU305", "GPU307"}


@pytest.mark.parametrize(
    ("conversion", "flagged"),
    [
        ("'torch.cuda.FloatTensor'", True),  # the class named as a string
        ("torch.cuda.FloatTensor, non_blocking=True", True),
        ("dtype=torch.cuda.FloatTensor", True),
        ("dtype=torch.FloatTensor, non_blocking=True", False),  # near-miss: the host class
        ("torch.cuda.FloatTensor, torch.float16", False),  # near-miss: not a call `.type` takes
    ],
)
def test_a_conversion_to_a_device_class_places_however_it_is_spelled(conversion, flagged):
    source = (
        LOADER
        + "loader = DataLoader(data, batch_size=64)\n"
        + "for images, _ in loader:\n"
        + f"    print(images.type({conversion}).mean().item())\n"
    )
    found = {code for code, _ in codes(source, "GPU305", "GPU307")}
    assert found == ({"GPU305", "GPU307"} if flagged else set())


@pytest.mark.parametrize(
    ("binding", "flagged"),
    [
        ("workers = 0\n", True),
        ("workers = 4\n", False),  # near-miss: workers given
        ("workers = 0\nif cuda:\n    workers = 4\n", False),  # near-miss: not 0 on every path
        ("workers = int(input())\n", False),  # near-miss: not known
    ],
)
def test_num_workers_through_a_name_bound_to_a_literal(binding, flagged):
    source = (
        LOADER
        + binding
        + "loader = DataLoader(data, batch_size=64, num_workers=workers)\n"
        + "for images, labels in loader:\n"
        + "    images = images.to('cuda')\n"
    )
    found = lint_in_preview_mode(textwrap.dedent(source))
    gpu305 = [d for d in found if d.code == "GPU305"]
    assert bool(gpu305) is flagged
    if flagged:
        assert "`num_workers=0`" in gpu305[0].message


@pytest.mark.parametrize(
    ("move", "flagged"),
    [
        ("if cuda:\n        images = Variable(images).cuda()\n", True),  # the legacy wrapper keeps the batch
        ("images = Variable(images.cuda())\n", True),
        ("images = Variable(images)\n", False),  # near-miss: wrapped, never moved
        ("images = Variable(images).cpu()\n", False),  # near-miss: kept on the host
    ],
)
def test_the_legacy_variable_wrapper_passes_placement_through(move, flagged):
    source = (
        LOADER
        + "from torch.autograd import Variable\n"
        + "loader = DataLoader(data, batch_size=64)\n"
        + "for images, labels in loader:\n"
        + "    "
        + move
        + "    print(images.sum())\n"
    )
    assert bool(codes(source, "GPU305")) is flagged


@pytest.mark.parametrize(("wrapped", "flagged"), [("images.cuda()", True), ("images", False)])
def test_a_tensor_wrapped_in_variable_keeps_its_device(wrapped, flagged):
    source = LOADER + (
        "from torch.autograd import Variable\n"
        "weights = torch.nn.Parameter(torch.ones(3072))\n"
        "loader = DataLoader(data, batch_size=64, num_workers=4)\n"
        "total = 0.0\n"
        "for images, labels in loader:\n"
        f"    x = Variable({wrapped})\n"
        "    loss = (x.flatten(1) * weights).sum()\n"
        "    loss.backward()\n"
        "    total += loss.item()\n"
        "print(total)\n"
    )
    assert bool(codes(source, "GPU308")) is flagged


def test_a_factory_wrapped_in_variable_is_still_made_on_the_host():
    source = LOADER + (
        "from torch.autograd import Variable\n"
        "loader = DataLoader(data, batch_size=64, num_workers=4)\n"
        "for images, labels in loader:\n"
        "    noise = Variable(torch.randn(64, 10)).cuda()\n"
        "    kept = Variable(torch.randn(64, 10, device='cuda'))\n"
        "    print(noise.sum(), kept.sum())\n"
    )
    assert codes(source, "GPU304") == [("GPU304", 10)]


@pytest.mark.parametrize(
    ("test", "flagged"),
    [
        ("accelerator.sync_gradients", True),  # true on every optimizer step
        ("step % 100 == 0", False),  # near-miss: every 100 steps
        ("settings.sync_gradients", False),  # near-miss: not an Accelerator's flag
    ],
)
def test_a_read_under_a_flag_that_holds_every_optimizer_step_is_per_step(test, flagged):
    source = (
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from accelerate import Accelerator\n"
        "\n"
        "\n"
        "def train(loader, settings, epochs):\n"
        "    accelerator = Accelerator()\n"
        "    model = accelerator.prepare(torch.nn.Linear(2, 2))\n"
        "    for epoch in range(epochs):\n"
        "        for step, batch in enumerate(loader):\n"
        "            loss = F.mse_loss(model(batch['x']), batch['y'])\n"
        "            accelerator.backward(loss)\n"
        f"            if {test}:\n"
        "                accelerator.log({'loss': loss.detach().item()}, step=step)\n"
    )
    assert bool(codes(source, "GPU307")) is flagged


@pytest.mark.parametrize(
    ("moved", "flagged"),
    [
        ("tuple(t.to(device) for t in batch)", True),  # each item of the batch moved, then unpacked
        ("[t.to(device) for t in batch]", True),
        ("list(t.cuda() for t in batch)", True),
        ("tuple(t.to(torch.float32) for t in batch)", False),  # near-miss: a dtype, not a device
        ("tuple(t.to(device) for t in other)", True),
        ("tuple(x.to(device) for t in batch)", False),  # near-miss: not the items it iterates
    ],
)
def test_a_batch_moved_item_by_item_is_on_the_device(moved, flagged):
    source = (
        "import torch\n\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n\n\n"
        "def evaluate(dataloader, other, x):\n"
        "    labels = []\n"
        "    for batch in dataloader:\n"
        f"        batch = {moved}\n"
        "        ids, label_ids = batch\n"
        "        labels.append(label_ids.cpu())\n"
        "    return labels\n"
    )
    assert bool(codes(source, "GPU301")) is flagged


@pytest.mark.parametrize(
    ("setup", "call", "flagged"),
    [
        ("model = GAN().to(device)", "model.D(images.to(device))", True),  # a sub-module of a placed model
        ("model = torch.nn.Transformer(d_model=8).to(device)", "model.encoder(images.to(device))", True),
        ("model = GAN().to(device)", "model.encode(images.to(device))", True),  # the file's own method, followed
        ("model = GAN().cuda()", "model.D(images.cuda())", True),  # both placed with `.cuda()`
        ("model = GAN()", "model.D(images)", False),  # near-miss: module and input on the host
        ("model = GAN()", "model.D(images.numpy())", False),  # near-miss: no tensor given, nothing known
    ],
)
def test_a_part_of_a_placed_module_computes_on_the_device(setup, call, flagged):
    source = (
        LOADER
        + "device = torch.device('cuda' if cuda else 'cpu')\n\n\n"
        + "class GAN(torch.nn.Module):\n"
        + "    def __init__(self):\n"
        + "        super().__init__()\n"
        + "        self.D = torch.nn.Linear(3072, 1)\n\n"
        + "    def encode(self, x):\n"
        + "        return self.D(x.flatten(1))\n\n\n"
        + f"{setup}\n"
        + "loader = DataLoader(data, batch_size=64, num_workers=4)\n"
        + "losses = []\n"
        + "for images, labels in loader:\n"
        + f"    score = {call}\n"
        + "    losses.append(score.mean().item())\n"
    )
    assert bool(codes(source, "GPU307")) is flagged


@pytest.mark.parametrize(
    ("noise", "flagged"),
    [
        ("torch.randn(n, 100).to(self.device)", True),  # drawn by a helper method, moved there
        ("torch.randn(n, 100)", False),  # near-miss: the helper's noise stays on the host
    ],
)
def test_a_step_method_that_calls_another_method_is_followed_two_levels_deep(noise, flagged):
    source = (
        "import torch\n\n\n"
        "class Trainer:\n"
        "    def __init__(self, model, loader, device):\n"
        "        self.model, self.loader, self.device = model, loader, device\n\n"
        "    def train(self, epochs):\n"
        "        losses = []\n"
        "        for epoch in range(epochs):\n"
        "            for images, _ in self.loader:\n"
        "                loss = self.step(images.shape[0])\n"
        "                loss.backward()\n"
        "                losses.append(loss.item())\n"
        "        return losses\n\n"
        "    def step(self, n):\n"
        "        fake = self.model(self.noise(n))\n"
        "        return fake.mean()\n\n"
        "    def noise(self, n):\n"
        f"        return {noise}\n"
    )
    assert bool(codes(source, "GPU307")) is flagged


@pytest.mark.parametrize(
    ("pad", "flagged"),
    [
        ("torch.cat([torch.zeros(2, n, device=t.device), t], dim=1)", True),  # padded where it is
        ("torch.zeros(2, n)", False),  # near-miss: the padding helper makes a host tensor
    ],
)
def test_a_helper_nested_in_a_method_three_calls_deep_is_followed(pad, flagged):
    # the loop calls `forward_pair`, which calls `inputs`, whose nested `padded` makes the
    # tensors: return types are followed three functions deep, nested defs included
    source = (
        "import torch\n\n\n"
        "class Trainer:\n"
        "    def fit(self, model, loader, device):\n"
        "        for a, b in loader:\n"
        "            a, b = a.to(device), b.to(device)\n"
        "            scores, _ = self.forward_pair(model, a, b)\n"
        "            print(scores.mean().item())\n\n"
        "    def forward_pair(self, model, a, b):\n"
        "        ids = self.inputs(a, b)\n"
        "        return ids.sum(1), ids\n\n"
        "    def inputs(self, a, b):\n"
        "        def padded(t, n):\n"
        f"            return {pad}\n\n"
        "        n = max(a.shape[1], b.shape[1])\n"
        "        return torch.cat((padded(a, n), padded(b, n)), dim=0)\n"
    )
    assert bool(codes(source, "GPU307")) is flagged


@pytest.mark.parametrize(
    ("run", "flagged"),
    [
        ('device = torch.device("cuda")\nvalues(np.zeros((640, 4)), Net().to(device), device)\n', True),
        ('values(np.zeros((640, 4)), Net(), "cpu")\n', False),  # near-miss: module and batches on the host
    ],
)
def test_a_method_of_a_module_computes_where_the_module_is(run, flagged):
    # `qvals` weighs the module's output by a registered buffer three methods down: the file
    # does not say where its result is, but a module on the device computes there
    source = textwrap.dedent(
        """\
        import numpy as np
        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 8)
                self.register_buffer("supports", torch.arange(2.0))
                self.softmax = nn.Softmax(dim=1)

            def forward(self, x):
                return self.fc(x.float() / 256).view(x.size()[0], -1, 2)

            def both(self, x):
                out = self(x)
                probs = self.apply_softmax(out)
                return out, (probs * self.supports).sum(dim=2)

            def qvals(self, x):
                return self.both(x)[1]

            def apply_softmax(self, t):
                return self.softmax(t.view(-1, 2)).view(t.size())


        def values(states, net, device):
            means = []
            for batch in np.array_split(states, 64):
                best = net.qvals(torch.tensor(batch).to(device)).max(1)[0]
                means.append(best.mean().item())
            return means


        """
    )
    assert bool(codes(source + run, "GPU307")) is flagged


@pytest.mark.parametrize(
    ("iterators", "flagged"),
    [
        ("train_iter = BucketIterator(train, batch_size=64, device=device)", True),
        ("train_iter, valid_iter = BucketIterator.splits((train, valid), batch_size=64, device=device)", True),
        ("train_iter = data.Iterator(train, batch_size=64, device='cuda')", True),
        ("train_iter = BucketIterator(train, batch_size=64)", False),  # near-miss: batches made on the host
        ("train_iter = BucketIterator(train, batch_size=64, device='cpu')", False),  # near-miss: the host
    ],
)
def test_torchtext_iterators_given_a_device_yield_batches_there(iterators, flagged):
    source = (
        "import torch\n"
        "from torchtext import data\n"
        "from torchtext.data import BucketIterator\n\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        f"{iterators}\n"
        "labels = []\n"
        "for batch in train_iter:\n"
        "    text, lengths = batch.text\n"
        "    labels.append(batch.label.cpu())\n"
    )
    assert bool(codes(source, "GPU301")) is flagged


def test_a_method_the_file_defines_says_itself_what_it_returns():
    """`model.act(state)` of the file's own module returns what its body returns (here a
    Python number), not an output on the device."""
    source = (
        LOADER
        + "device = torch.device('cuda' if cuda else 'cpu')\n\n\n"
        + "class DQN(torch.nn.Module):\n"
        + "    def __init__(self):\n"
        + "        super().__init__()\n"
        + "        self.fc = torch.nn.Linear(3072, 2)\n\n"
        + "    def act(self, state):\n"
        + "        return self.fc(state.flatten(1)).max(1)[1].item()\n\n\n"
        + "model = DQN().to(device)\n"
        + "loader = DataLoader(data, batch_size=64, num_workers=4)\n"
        + "actions = []\n"
        + "for images, labels in loader:\n"
        + "    action = model.act(images.to(device))\n"
        + "    actions.append(float(action))\n"
    )
    assert codes(source, "GPU307") == []


def test_return_types_do_not_depend_on_which_function_is_inferred_first():
    """A function first reached two calls deep (its own callee left unfollowed) is followed
    fully when called directly later."""
    body = (
        "def c(n):\n    return torch.randn(n, 3, device=device)\n\n\n"
        "def b(n):\n    return c(n) * 2\n\n\n"
        "def a(n):\n    return b(n) + 1\n\n\n"
    )
    loop = "losses = []\nfor step in range(1000):\n    losses.append(b(8).sum().item())\n"
    head = "import torch\n\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n\n\n"
    assert codes(head + body + "first = a(4)\n" + loop, "GPU307") and codes(head + body + loop, "GPU307")


#: Helpers of the file that return their argument on the device, in the legacy style.
PLACING_HELPERS = textwrap.dedent(
    """\
    from torch.autograd import Variable


    def to_var(x):
        if torch.cuda.is_available():
            x = x.cuda()
        return Variable(x)


    def flatten(x):
        return to_var(x.view(x.size(0), -1))


    def as_float(x):
        return x.float()


    def first_on_device(x, y):
        return y.cuda()


    def rows(x):
        for x in x.split(1):
            x = x.cuda()
        return x


    def maybe(x, flag=False):
        if flag:
            return x.cuda()
        return x


    def to_dev(x, dev="cpu"):
        return x.to(dev)
    """
)


@pytest.mark.parametrize(
    ("call", "flagged"),
    [
        ("to_var(images)", True),
        ("flatten(images)", True),  # through another helper of the file
        ("first_on_device(torch.ones(3), labels)", True),  # the argument it returns moved is a batch
        ("as_float(images)", False),  # near-miss: it moves nothing
        ("first_on_device(images, torch.ones(3))", False),  # near-miss: it returns another argument moved
        ("rows(images)", False),  # near-miss: the parameter is rebound by a loop
        ("maybe(images)", False),  # near-miss: moved on one `return` only
        ("to_dev(images)", False),  # near-miss: the destination's default is the host
        ("to_dev(images, 'cpu')", False),
        ("to_dev(images, 'cuda')", True),
    ],
)
def test_a_function_of_the_file_that_returns_its_argument_on_the_device_places_it(call, flagged):
    source = (
        LOADER
        + PLACING_HELPERS
        + "loader = DataLoader(data, batch_size=64)\n"
        + "for epoch in range(5):\n"
        + "    for images, labels in loader:\n"
        + f"        placed = {call}\n"
    )
    assert bool(codes(source, "GPU305")) is flagged


@pytest.mark.parametrize(
    ("call", "flagged"),
    [
        ("to_var(torch.randn(8, 4))", True),
        ("flatten(torch.zeros(8, 4, 2))", True),
        ("to_var(torch.tensor([1.0, 2.0]))", False),  # near-miss: made from data
        ("as_float(torch.randn(8, 4))", False),  # near-miss: nothing moves it
        ("first_on_device(torch.randn(8, 4), noise)", False),  # near-miss: the factory is not what is moved
        ("maybe(torch.randn(8, 4))", False),  # near-miss: moved on one `return` only
        ("to_dev(torch.randn(8, 4))", False),  # near-miss: moved to the host by default
        ("to_dev(torch.randn(8, 4), dev='cuda')", True),
    ],
)
def test_a_factory_handed_to_a_placing_function_of_the_file_is_made_on_the_host(call, flagged):
    source = (
        "import torch\n"
        + PLACING_HELPERS
        + "noise = torch.ones(3)\n"
        + "for step in range(100):\n"
        + f"    sample = {call}\n"
    )
    found = codes(source, "GPU304")
    assert bool(found) is flagged


STEP = textwrap.dedent(
    """\
    import torch
    import torch.nn.functional as F

    device = torch.device("cuda")
    model = torch.nn.Linear(4, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


    def penalty(y, x):
        grads = torch.autograd.grad(outputs=y.sum(), inputs=x, create_graph=True)[0]
        return grads.pow(2).mean()


    def classification_loss(logit, target, mode="binary"):
        if mode == "binary":
            return F.binary_cross_entropy_with_logits(logit, target)
        elif mode == "multi":
            return F.cross_entropy(logit, target)


    def maybe_loss(logit, target, training):
        if training:
            return F.mse_loss(logit, target)


    def scores(logit, target):
        with torch.no_grad():
            return (logit - target).abs()


    def guarded(logit, target):
        try:
            return F.mse_loss(logit, target)
        except RuntimeError:
            return F.l1_loss(logit, target)


    def suppressed(logit, target):
        try:
            return F.mse_loss(logit, target)
        except RuntimeError:
            print("skipped")


    for step in range(10_000):
        x = torch.randn(8, 4).to(device)
        host = torch.randn(8, 4)
        out = model(x)
        out.pow(2).mean().backward()
        optimizer.step()
        value = {expr}
        print(value{copy})
    """
)


@pytest.mark.parametrize(
    ("expr", "flagged"),
    [
        ("x.clone().requires_grad_(True)", True),  # changed in place, where it is
        ("x.clone().add_(1)", True),
        ("penalty(out, x)", True),  # gradients are where the inputs are
        ("torch.autograd.grad(out.sum(), x)[0]", True),
        ("classification_loss(out, x)", True),  # an if/elif chain whose branches all return
        ("torch.autograd.grad(host.sum(), host)[0]", False),  # near-miss: inputs on the host
        ("host.clone().requires_grad_(True)", False),  # near-miss: a host tensor
        ("maybe_loss(out, x, True)", False),  # near-miss: may return None, not known
        ("scores(out, x)", True),  # the return ends the `with` block that ends the body
        ("guarded(out, x)", True),  # the `try` and its handler both return
        ("suppressed(out, x)", False),  # near-miss: the handler falls through, returning None
    ],
)
def test_results_follow_in_place_changes_gradients_and_dispatching_helpers(expr, flagged):
    # `.tolist()` is a method of lists' and arrays' kin too: the copy says nothing of the value
    found = codes(STEP.format(expr=expr, copy=".tolist()"), "GPU301")
    assert bool(found) is flagged


@pytest.mark.parametrize("expr", ["maybe_loss(out, x, True)", "suppressed(out, x)"])
def test_a_result_the_code_copies_with_cpu_is_a_tensor_where_its_inputs_are(expr):
    # `.cpu()` is a torch value's: the code shows the helper's result is a tensor, and a call
    # given tensors on the device computes there, whatever other paths of the helper return
    assert codes(STEP.format(expr=expr, copy=".cpu()"), "GPU301")


def test_an_in_place_method_returns_its_receiver_as_it_was():
    # `.to(device)` of an unknown value may be a module: `requires_grad_` keeps it so
    source = (
        "import torch\nfrom diffusers import AutoencoderKL\n\ndevice = torch.device('cuda')\n"
        "vae = AutoencoderKL.from_pretrained('x').to(device).requires_grad_(False)\n"
        "for step in range(1000):\n    if vae:\n        print(step)\n"
    )
    assert codes(source, "GPU306") == []


@pytest.mark.parametrize(
    ("accumulate", "flagged"),
    [
        ("    total = 0\n    for _ in range(4):\n        total += loss_fn(model(x), y)\n", True),  # a sum of losses
        ("    total = 0.0\n    total += loss_fn(model(x), y)\n", True),  # added once
        ("    total = 0\n    for _ in range(4):\n        total += loss_fn(model(x), y).item()\n", False),  # numbers
        ("    total = []\n    total += [loss_fn(model(x), y)]\n", False),  # a list extended
    ],
)
def test_a_number_a_device_tensor_is_added_to_becomes_that_tensor(accumulate, flagged):
    source = (
        "import torch\n\n"
        "model = torch.nn.Linear(8, 2).cuda()\n"
        "loss_fn = torch.nn.CrossEntropyLoss()\n"
        "for x, y in loader:\n"
        "    x, y = x.cuda(), y.cuda()\n" + accumulate + "    loss = total / 4\n"
        "    loss.backward()\n"
        "    print(loss.item())\n"
    )
    read = source.count("\n")
    assert codes(source, "GPU307") == ([("GPU307", read)] if flagged else [])


@pytest.mark.parametrize(
    ("branches", "flagged"),
    [
        ("    if cuda:\n        x = batch.text.cuda()\n    else:\n        x = batch.text\n", True),
        ("    if not cuda:\n        x = batch.text\n    else:\n        x = batch.text.to('cuda')\n", True),
        ("    if cuda:\n        x = Variable(batch.text.cuda())\n    else:\n        x = Variable(batch.text)\n", True),
        ("    if cuda:\n        x, n = batch.text.cuda(), 1\n    else:\n        x, n = batch.text, 1\n", True),
        # near-misses: the other branch binds something else, or the move is to the host
        ("    if cuda:\n        x = batch.text.cuda()\n    else:\n        x = batch.other\n", False),
        ("    if cuda:\n        x = batch.text.to('cpu')\n    else:\n        x = batch.text\n", False),
        # a conversion to something the file does not show is a device (`dtype` may be one)
        ("    if dtype:\n        x = batch.text.to(dtype)\n    else:\n        x = batch.text\n", False),
    ],
)
def test_a_value_moved_in_one_branch_and_left_in_the_other_is_on_the_device(branches, flagged):
    # the other branch is the CPU fallback of the same program
    source = (
        "import torch\nfrom torch.autograd import Variable\n\n"
        "cuda = torch.cuda.is_available()\n\n\n"
        "def evaluate(model, iterator):\n"
        "    preds = []\n"
        "    for batch in iterator:\n"
        + textwrap.indent(branches, "    ")
        + "        preds.extend(model(x).cpu().numpy())\n"
        "    return preds\n"
    )
    read = source.count("\n") - 1
    assert codes(source, "GPU301") == ([("GPU301", read)] if flagged else [])


@pytest.mark.parametrize(
    ("compared", "flagged"),
    [
        # a tensor method given a tensor on the device: the receiver is there too
        ("network.predict(x).argmax(1).eq(y)", True),
        ("network.predict(x).mul(y)", True),
        # given a value on the host, or two arguments: nothing is known
        ("network.predict(x).argmax(1).eq(y.cpu())", False),
        ("network.predict(x).sub(y, alpha=2)", False),
    ],
)
def test_a_tensor_method_given_a_device_tensor_gives_a_device_tensor(compared, flagged):
    source = textwrap.dedent(f"""\
        import torch

        def accuracy(network, loader):
            correct = 0
            for data in loader:
                x, y = data[0].cuda(), data[1].cuda()
                correct += {compared}.sum().item()
            return correct
        """)
    found = [d.code for d in lint_in_preview_mode(source) if d.code == "GPU308"]
    assert found == (["GPU308"] if flagged else [])


@pytest.mark.parametrize(
    ("imported", "flagged"),
    [
        # imported one way on each path: a module's function, whatever it returns
        (
            "    if dense:\n        from train import train_dense as train_epoch\n"
            "    else:\n        from train import train_sparse as train_epoch\n",
            False,
        ),
        # a parameter is what the caller hands in: a model computes where its inputs are
        ("    train_epoch = make_step(model)\n", True),
    ],
)
def test_a_function_imported_on_every_path_is_no_model_handed_in(imported, flagged):
    source = textwrap.dedent("""\
        import torch
        from torch.utils.tensorboard import SummaryWriter


        def main(model, loader, dense, epochs):
            writer = SummaryWriter()
            model = model.cuda()
            x = torch.ones(4).cuda()
        {imported}
            for epoch in range(epochs):
                loss = train_epoch(model, x, loader)
                writer.add_scalar("loss", loss, epoch)
        """).format(imported=imported.rstrip("\n"))
    found = [d.code for d in lint_in_preview_mode(source) if d.code == "GPU307"]
    assert found == (["GPU307"] if flagged else [])


@pytest.mark.parametrize(
    ("loss", "flagged"),
    [
        # the batch is on the device, and the loss is a tensor (`.backward()`, `.detach()`)
        ("loss = model.loss(scores, labels)\n        loss.backward()\n        total += loss.detach().item()", True),
        ("loss = model.loss(scores, labels)\n        total += loss.detach().item()", True),
        # given nothing on the device, but backpropagated in a loop that places its labels
        # there: the training step runs on the device
        ("loss = model.loss(scores, raw)\n        loss.backward()\n        total += loss.detach().item()", True),
        # given nothing on the device and never backpropagated: where it is stays unknown
        ("loss = model.loss(scores, raw)\n        total += loss.detach().item()", False),
    ],
)
def test_a_tensor_a_call_given_device_tensors_makes_is_on_the_device(loss, flagged):
    source = textwrap.dedent("""\
        import torch


        def train_epoch(model, optimizer, device, loader):
            total = 0
            for graphs, labels, raw in loader:
                labels = labels.to(device)
                scores = model.forward(graphs)
                {loss}
            return total
        """).format(loss=loss)
    found = [d.code for d in lint_in_preview_mode(source) if d.code == "GPU308"]
    assert found == (["GPU308"] if flagged else [])


@pytest.mark.parametrize(
    ("collected", "flagged"),
    [
        # `.numpy()` without a copy raises on a device tensor: the code shows it is on the host
        ("feats = model.embed(x)\n        out.append(feats.detach().numpy())", False),
        ("feats = model.embed(x)\n        out.append(feats.detach().cpu().numpy())", True),
        # a function merely imported may compute on the host
        ("feats = extract(model, x)\n        feats = feats.detach()\n        out.append(feats.tolist())", False),
        ("feats = helper(model, x)\n        feats = feats.detach()\n        out.append(feats.tolist())", True),
    ],
)
def test_a_tensor_shown_on_the_host_or_made_by_an_imported_function_stays_unknown(collected, flagged):
    source = textwrap.dedent("""\
        import torch
        from features import extract


        def collect(model, loader, helper):
            out = []
            for x, y in loader:
                x = x.cuda()
                {collected}
            return out
        """).format(collected=collected)
    found = [d.code for d in lint_in_preview_mode(source) if d.code == "GPU301"]
    assert found == (["GPU301"] if flagged else [])
