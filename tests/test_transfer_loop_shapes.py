"""The loop shape the host-copy rules (GPU301, GPU307, GPU308) judge a copy by: which inner
loops make a batch loop an outer (epoch) loop, and which `if`s around a copy still run it
on every iteration."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source

from .rule_helpers import HOST_COPIES, lint_in_preview_mode

TORCH = "import torch\nimport torch.nn as nn\nfrom collections import defaultdict\n\n"
LOOP = TORCH + 'device = "cuda"\nfor batch, target in batches:\n    t = batch.to(device)\n'


def _codes(source: str) -> list[tuple[str, int]]:
    return [(d.code, d.start.line) for d in lint_source(textwrap.dedent(source)) if d.code in HOST_COPIES]


def _last_line(source: str) -> int:
    return len(source.splitlines())


# -- inner loops that bring no data of their own ---------------------------------------------


@pytest.mark.parametrize(
    "inner",
    [
        # an optimizer's parameter groups: a handful of settings
        '    for group in optimizer.param_groups:\n        group["lr"] = lr\n',
        # metric functions: every item is called
        "    for met in metric_fns:\n        tracker.update(met.__name__, met(t, target))\n",
        # ... and its position only stores into a container
        "    for i, met in enumerate(metric_fns):\n        totals[i] += met(t, target)\n",
        # keys of dicts the function makes
        "    for m in names:\n        row[m] = log[m][-1]\n",
        # the items of this batch, by position
        "    for i in range(batch_size):\n        label = target.data[i]\n        counts[label] += 1\n",
        # a target network's soft update: two modules' tensors side by side
        "    for p, q in zip(net.parameters(), target_net.parameters()):\n        q.data.copy_(0.99 * q.data + 0.01 * p.data)\n",
    ],
)
def test_an_inner_loop_without_data_of_its_own_keeps_the_batch_loop_hot(inner):
    modules = "net = nn.Linear(2, 2).to(device)\ntarget_net = nn.Linear(2, 2).to(device)\n"
    source = LOOP.replace("for batch", "log = defaultdict(list)\nrow = {}\n" + modules + "for batch") + inner
    source += "    print(t.sum().item())\n"
    assert _codes(source) == [("GPU307", _last_line(source))]


@pytest.mark.parametrize(
    "inner",
    [
        "    for x in loader:\n        model(x)\n",  # items passed on: data
        "    for i in range(n):\n        x = dataset[i]\n",  # positions in other data
        "    for _ in range(steps):\n        step()\n",  # the position is never used
        "    for k in ids:\n        x = table[k]\n",  # keys of a container not made as a dict
        "    for f in fns:\n        f()\n        record(f)\n",  # an item also passed on
        "    for i, f in enumerate(fns):\n        out = f(inputs[i])\n",  # a position read
        "    for x, y in zip(loader, other_loader):\n        model(x, y)\n",  # two loaders side by side
    ],
)
def test_an_inner_loop_over_other_data_still_makes_an_outer_loop(inner):
    source = LOOP + inner + "    print(t.sum().item())\n"
    assert _codes(source) == []


PHASES = TORCH + textwrap.dedent("""\
    device = "cuda"
    model = nn.Linear(4, 2).to(device)
    best = 0.0
    for {outer} in {outer_iterable}:
        for phase in ("train", "val"):
            corrects = 0
            {inner}
                corrects += (model(x.to(device)).argmax(1) == y.to(device)).sum()
            if phase == "val" and corrects > best:
                best = corrects
    """)


@pytest.mark.parametrize(
    ("outer", "inner", "flagged"),
    [
        # each phase's batch loop: the epoch loop's condition runs once per phase
        (("epoch", "range(epochs)"), "for x, y in loaders[phase]:", False),
        (("epoch", "range(epochs)"), "for x, y in phase_batches(phase):", False),
        (("epoch", "range(epochs)"), "for x, y in tqdm(loaders[phase], desc=phase):", False),
        (("epoch", "range(epochs)"), "for x, y in zip(inputs[phase], targets[phase]):", False),
        # the outer loop is the batch loop: each phase tests every batch
        (("x, y", "loader"), "if True:", True),
    ],
)
def test_a_batch_loop_inside_a_loop_over_a_few_phases_makes_the_epoch_loop_outer(outer, inner, flagged):
    source = PHASES.format(outer=outer[0], outer_iterable=outer[1], inner=inner)
    found = [(d.code, d.start.line) for d in lint_in_preview_mode(source) if d.code == "GPU306"]
    assert found == ([("GPU306", _last_line(source) - 1)] if flagged else [])


@pytest.mark.parametrize(
    "parts",
    [
        '    for name, values in (("out", out), ("y", y)):\n        for i, v in enumerate(values):\n            log[name].append(v)\n',
        '    for key, value in {"out": out, "y": y}.items():\n        for row in value:\n            log[key].append(row)\n',
        '    for name, values in (("out", out), ("y", y)):\n        for v in torch.unbind(values):\n            log[name].append(v)\n',
    ],
)
def test_a_loop_over_this_iterations_tensors_inside_a_small_loop_keeps_the_batch_loop_hot(parts):
    source = LOOP + "    out = t * 2\n    y = target\n" + parts + "    print(out.sum().item())\n"
    assert _codes(source) == [("GPU307", _last_line(source))]


def test_a_range_loop_over_data_the_epoch_reshuffles_is_the_batch_loop():
    source = TORCH + textwrap.dedent("""\
        data = torch.ones(100, 4, device="cuda")
        for epoch in range(10):
            shuffled = data[torch.randperm(100)]
            for i in range(100):
                row = shuffled[i]
            print(shuffled.sum().item())
        """)
    assert _codes(source) == []


# -- an `if` whose test the loop never changes ------------------------------------------------


def test_a_copy_on_both_sides_of_a_loop_invariant_flag_runs_every_iteration():
    source = LOOP + (
        "    if args.use_amp:\n"
        '        with torch.autocast("cuda"):\n'
        "            loss = (t * 2).sum()\n"
        "            losses.append(loss.item())\n"
        "    else:\n"
        "        loss = (t * 2).sum()\n"
        "        losses.append(loss.item())\n"
    )
    assert [line for _, line in _codes(source)] == [11, 14]


def test_a_copy_behind_the_files_device_switch_runs_every_iteration():
    source = TORCH + textwrap.dedent("""\
        train_on_gpu = torch.cuda.is_available()
        model = nn.Linear(4, 2)
        if train_on_gpu:
            model.cuda()
        for x in batches:
            p = model(x)
            if train_on_gpu:
                p = p.cpu()
            keep.append(p.numpy())
        """)
    assert _codes(source) == [("GPU301", 12)]


@pytest.mark.parametrize(
    "guarded",
    [
        "    if verbose:\n        print(t.sum().item())\n",  # an opt-in flag: may be off
        "    if not quiet:\n        print(t.sum().item())\n",
        "    if step % 100 == 0:\n        print(t.sum().item())\n",  # reads what the loop changes
        "    if first:\n        print(t.sum().item())\n        first = False\n",  # the loop rebinds it
        "    if self.show:\n        print(t.sum().item())\n    self.show = t.numel() > 3\n",
        "    if not use_cuda:\n        print(t.sum().item())\n",  # the host side of a device switch
        "    if verbose:\n        print(t.sum().item())\n    else:\n        print('step')\n",  # no copy on the other side
    ],
)
def test_a_flag_guarding_a_copy_on_one_side_only_may_be_off(guarded):
    source = LOOP.replace("device = ", "if use_cuda:\n    model.cuda()\ndevice = ") + guarded
    assert _codes(source) == []


@pytest.mark.parametrize(
    ("guarded", "flagged"),
    [
        # a run's mode compared with literals: each side is a mode the program runs in
        ('    if args.mode == "fast":\n        pass\n    else:\n        keep.append(t.cpu().numpy())\n', True),
        ('    if args.mode in ("a", "b"):\n        keep.append(t.cpu().numpy())\n', True),
        ('    if self.mode != "eval":\n        keep.append(t.cpu().numpy())\n', True),
        # near-misses: what the loop changes, a number, a name an outer loop binds
        ('    if phase == "train":\n        keep.append(t.cpu().numpy())\n    phase = "val"\n', False),
        ("    if args.every == 1:\n        keep.append(t.cpu().numpy())\n", False),
    ],
)
def test_a_copy_on_one_side_of_a_runs_mode_runs_every_iteration(guarded, flagged):
    source = LOOP + guarded
    assert bool(_codes(source)) is flagged


@pytest.mark.parametrize(
    ("line", "flagged"),
    [
        ('    print(f"loss {t.sum():.4f}")\n', True),  # formatting a device tensor reads it
        ('    print(f"{t.mean()}")\n', True),
        ('    print(f"{t.sum():.4f} {t.mean():.4f} {t.max()}")\n', True),  # one wait, reported once
        ('    print(f"step {t.shape[0]}")\n', False),  # near-miss: a shape is on the host
        ('    print(f"{batch.sum():.4f}")\n', False),  # near-miss: the batch before its move
        ('    if step % 100 == 0:\n        print(f"{t.sum():.4f}")\n', False),  # every N steps
    ],
)
def test_formatting_a_device_tensor_in_an_f_string_reads_it(line, flagged):
    source = LOOP.replace("for batch, target in batches:", "for step, (batch, target) in enumerate(batches):") + line
    assert [code for code, _ in _codes(source)] == (["GPU307"] if flagged else [])


def test_formatting_a_cupy_array_in_an_f_string_reads_it():
    source = "import cupy as cp\n\nfor row in rows:\n    x = cp.asarray(row)\n    print(f'{x.sum():.3f}')\n"
    assert _codes(source) == [("GPU307", 5)]


def test_a_mode_an_outer_loop_binds_is_no_setting_of_the_run():
    source = TORCH + textwrap.dedent("""\
        device = "cuda"
        for phase in ("train", "val"):
            for batch in batches:
                t = batch.to(device)
                if phase == "val":
                    keep.append(t.cpu().numpy())
        """)
    assert _codes(source) == []


# -- a number read into a name that feeds a running total --------------------------------------

_RUNNING = LOOP + "    loss = (t - target.to(device)).pow(2).mean()\n    loss.backward()\n    loss_t = loss.item()\n"


@pytest.mark.parametrize(
    "total",
    [
        "    running += (loss_t - running) / (step + 1)\n",  # a running mean
        "    running += loss_t\n    seen = seen + loss_t * len(batch)\n",  # two totals
        "    other = 1\n    running -= 0.5 * loss_t\n",  # not the next statement
    ],
)
def test_a_read_whose_name_only_feeds_totals_is_one_total_on_the_first(total):
    source = _RUNNING + total
    first = len(_RUNNING.splitlines()) + 1 + total.startswith("    other")
    assert _codes(source) == [("GPU308", first)]


@pytest.mark.parametrize(
    "total",
    [
        "    running += loss_t\n    print(loss_t)\n",  # also shown each step
        "    running += loss_t\n    print(running)\n",  # the total read each step
        "    if step > 3:\n        running += loss_t\n",  # fed only sometimes
        "    running += loss_t\n    losses.append(loss_t)\n",  # also stored
        "    scores[step] = loss_t\n",  # stored, not summed
    ],
)
def test_a_read_whose_name_does_more_than_feed_a_total_stays_a_read(total):
    source = _RUNNING + total
    assert _codes(source) == [("GPU307", len(_RUNNING.splitlines()))]


# -- a copy in a helper the loop calls -------------------------------------------------------

HELPER = TORCH + textwrap.dedent("""\
    device = torch.device("cuda")
    model = nn.Linear(4, 3).to(device)


    def accuracy(scores, target):
        hits = (scores.argmax(1) == target).sum().item()
        return hits / len(target)


    """)


def test_a_copy_in_a_helper_the_batch_loop_calls_is_a_copy_per_batch():
    source = HELPER + "for x, y in batches:\n    print(accuracy(model(x.to(device)), y.to(device)))\n"
    [(code, line)] = _codes(source)
    assert code == "GPU307" and source.splitlines()[line - 1].strip().startswith("hits =")
    [finding] = [d for d in lint_source(source) if d.code == "GPU307"]
    assert "in `accuracy`, which a loop calls on every iteration" in finding.message


@pytest.mark.parametrize(
    "calls",
    [
        "print(accuracy(model(x.to(device)), y.to(device)))\n",  # once, at the top level
        "for i in range(6):\n    print(accuracy(model(x.to(device)), y.to(device)))\n",  # a few times
        "for x, y in batches:\n    if verbose:\n        print(accuracy(model(x.to(device)), y.to(device)))\n",
        "for epoch in range(epochs):\n    for x, y in batches:\n        model(x.to(device))\n"
        "    print(accuracy(model(x.to(device)), y.to(device)))\n",  # once per epoch, after the batches
    ],
)
def test_a_helper_called_once_a_few_times_or_sometimes_is_left_alone(calls):
    assert _codes(HELPER + calls) == []


def test_a_helper_that_returns_its_read_is_left_alone():
    source = HELPER.replace("return hits / len(target)", "return (scores - target).pow(2).mean().item()")
    source += "for x, y in batches:\n    losses.append(accuracy(model(x.to(device)), y.to(device)))\n"
    assert _codes(source) == []


# -- a few training steps inside another loop are the step loop --------------------------------

ROUNDS = TORCH + textwrap.dedent("""\
    TRAIN_ROUNDS = 10
    device = "cuda"
    net = nn.Linear(2, 2).to(device)
    while True:
        play(net)
        total = 0.0
        for _ in range(TRAIN_ROUNDS):
            out = net(sample().to(device))
            loss = out.pow(2).mean()
    {step}        total += loss.item()
        print(total / TRAIN_ROUNDS)
    """)


def test_a_few_training_steps_inside_another_loop_read_once_per_step():
    source = ROUNDS.format(step="        loss.backward()\n")
    assert _codes(source) == [("GPU308", 15)]


@pytest.mark.parametrize(
    "source",
    [
        # the rounds step back nothing: a few evaluations per game, read once per game
        ROUNDS.format(step=""),
        # a few training steps that no loop repeats: a handful of reads in all
        ROUNDS.format(step="        loss.backward()\n").replace("while True:\n", "if True:\n"),
    ],
    ids=["no-backward", "no-outer-loop"],
)
def test_a_few_runs_that_do_not_train_or_are_not_repeated_stay_few(source):
    assert _codes(source) == []


def test_a_few_training_steps_in_a_loop_that_itself_runs_once_stay_few():
    source = (
        ROUNDS.format(step="        loss.backward()\n")
        .replace("while True:", "for game in games:")
        .replace("    print(total / TRAIN_ROUNDS)\n", "    break\n")
    )
    assert _codes(source) == []


# -- an action copied for an environment step is the loop's point ------------------------------

ENV_LOOP = TORCH + textwrap.dedent("""\
    import numpy as np
    device = "cuda"
    net = nn.Linear(4, 2).to(device)
    obs = env.reset()
    while True:
        mu = net(torch.tensor([obs]).to(device))[0]
        action = mu.data.cpu().numpy()
        action = np.clip(action, -1, 1)
    {step}
    """)


@pytest.mark.parametrize(
    "step",
    [
        "    obs, reward, done, info = env.step(action)\n",
        "    obs, reward, done, truncated, info = env.step(action)\n",
    ],
    ids=["gym", "gymnasium"],
)
def test_an_action_copied_for_an_environment_step_is_left_alone(step):
    assert _codes(ENV_LOOP.format(step=step)) == []


@pytest.mark.parametrize(
    "step",
    [
        "    result = env.step(action)\n",  # one result: no environment's step shape
        "    obs, reward, done, info = env.step(other)\n",  # the step gets something else
    ],
    ids=["one-result", "other-action"],
)
def test_a_copy_that_no_environment_step_takes_stays_flagged(step):
    assert _codes(ENV_LOOP.format(step=step)) == [("GPU301", 11)]


@pytest.mark.parametrize(
    ("draw", "flagged"),
    [
        ("        x = training_data.get_batch(i)\n", False),  # an item of module data at each position
        ("        x = training_set[i]\n", False),
        ("        x = torch.ones(4, device=device) * i\n", True),  # positions only: no data of its own
    ],
)
def test_a_function_looping_over_positions_in_module_data_makes_the_caller_an_epoch_loop(draw, flagged):
    source = TORCH + textwrap.dedent("""\
        device = "cuda"
        model = nn.Linear(4, 2).to(device)


        def train():
            size = len(training_data)
            for i in tqdm(range(0, size, 32)):
        {draw}
                model(x.to(device)).sum().backward()


        best = None
        for epoch in range(epochs):
            train()
            corrects = model(probe.to(device)).sum()
            if best is None or best < corrects:
                best = corrects
        """).format(draw=textwrap.indent(draw, ""))
    found = [(d.code, d.start.line) for d in lint_in_preview_mode(source) if d.code == "GPU306"]
    assert found == ([("GPU306", _last_line(source) - 1)] if flagged else [])


@pytest.mark.parametrize(
    "phases",
    [
        'for phase in {"train": 1, "val": 2}.keys():',
        'for phase in {"train": 1, "val": 2}:',
        'for i, phase in enumerate(("train", "val")):',
        "for phase in (TRAIN, VAL):",  # names the iteration did not compute
        'for phase in reversed(("train", "val")):',
        'for phase, n in {**sizes, "val": 2}.items():',
    ],
)
def test_a_phase_loop_however_spelled_picks_each_phases_batches(phases):
    source = TORCH + textwrap.dedent(f"""\
        TRAIN, VAL = "train", "val"
        device = "cuda"
        model = nn.Linear(4, 2).to(device)
        for epoch in range(epochs):
            {phases}
                total = torch.zeros(1, device=device)
                for x, y in loaders[phase]:
                    total += model(x.to(device)).sum()
                print(total.item())
        """)
    assert _codes(source) == []


def test_a_loader_named_by_a_phase_loop_is_the_batch_loop():
    source = TORCH + textwrap.dedent("""\
        device = "cuda"
        model = nn.Linear(4, 2).to(device)
        for epoch in range(epochs):
            for name, loader in (("train", train_loader), ("val", val_loader)):
                for x, y in loader:
                    out = model(x.to(device))
                print(out.sum().item())
        """)
    assert _codes(source) == []


@pytest.mark.parametrize(
    ("inner", "flagged"),
    [
        # one batch of the target domain, taken as `next(iter(target_loader))` takes it
        ("for xt, yt in target_loader:\n        xt = xt.to(device)\n        break\n", True),
        # a loop that may go on past its first item is a batch loop of its own
        (
            "for xt, yt in target_loader:\n        xt = xt.to(device)\n        if xt.shape[0]:\n            break\n",
            False,
        ),
        ("for xt, yt in target_loader:\n        xt = xt.to(device)\n", False),
    ],
)
def test_a_loop_that_ends_on_its_first_item_brings_no_batch_loop(inner, flagged):
    source = TORCH + textwrap.dedent("""\
        device = "cuda"
        model = nn.Linear(4, 2).to(device)
        total = 0
        for x, y in source_loader:
            x = x.to(device)
            {inner}
            loss = model(x).sum() + model(xt).sum()
            total = total + loss.cpu().item()
            loss.backward()
        """).format(inner=inner)
    assert _codes(source) == ([("GPU308", _last_line(source) - 1)] if flagged else [])


@pytest.mark.parametrize(
    ("branches", "flagged"),
    [
        # both sides add to the total, whatever the test: a copy on every iteration
        (
            "if p.size(1) == 1:\n            correct += p.gt(0).eq(y).sum().item()\n"
            "        else:\n            correct += p.argmax(1).eq(y).sum().item()\n",
            True,
        ),
        # one side only, on a test of this iteration's values: sometimes
        ("if p.size(1) == 1:\n            correct += p.gt(0).eq(y).sum().item()\n", False),
        # the other side copies only under an `if` of its own
        (
            "if p.size(1) == 1:\n            correct += p.gt(0).eq(y).sum().item()\n"
            "        elif p.size(1) == 2:\n            correct += p.argmax(1).eq(y).sum().item()\n",
            False,
        ),
    ],
)
def test_an_if_that_copies_on_both_sides_copies_on_every_iteration(branches, flagged):
    source = TORCH + textwrap.dedent("""\
        def accuracy(network, loader):
            correct = 0
            for data in loader:
                x = data[0].cuda().float()
                y = data[1].cuda().long()
                p = network.predict(x)
                {branches}
            return correct
        """).format(branches=branches)
    found = [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES]
    assert found == (["GPU308", "GPU308"] if flagged else [])


def test_a_side_picked_by_an_iteration_counter_may_run_once():
    source = TORCH + textwrap.dedent("""\
        import numpy as np

        def test(model, loader):
            i = 0
            for feature, label in loader:
                feature, label = feature.cuda().float(), label.cuda().float()
                pred = model.predict(feature)
                if i == 0:
                    labels = label.cpu().numpy()
                else:
                    labels = np.hstack((labels, label.cpu().numpy()))
                i = i + 1
            return labels
        """)
    # the `if` side runs once; the `else` side on every other iteration
    found = [(d.code, d.start.line) for d in lint_in_preview_mode(source) if d.code in HOST_COPIES]
    assert found == [("GPU301", _last_line(source) - 2)]


def test_a_side_picked_by_what_the_sides_bind_may_run_once():
    source = TORCH + textwrap.dedent("""\
        import numpy as np

        def predict(model, loader):
            preds = None
            for x in loader:
                logits = model(x.cuda())
                if preds is None:
                    preds = logits.cpu().numpy()
                else:
                    preds = np.concatenate((preds, logits.cpu().numpy()))
            return preds
        """)
    found = [(d.code, d.start.line) for d in lint_in_preview_mode(source) if d.code in HOST_COPIES]
    assert found == []


@pytest.mark.parametrize(
    "branches",
    [
        # a test of what an earlier iteration left (`prev = out` after the `if`)
        "if prev is None:\n            print(out.sum().item())\n        else:\n"
        "            diffs.append((out - prev).abs().sum().item())\n        prev = out\n",
        # a counter kept on the instance
        "if self.step == 0:\n            print(out.sum().item())\n        else:\n"
        "            diffs.append(out.sum().item())\n        self.step += 1\n",
        # a side that leaves the loop runs once at most
        "if not torch.isfinite(out).all():\n            raise RuntimeError(out.sum().item())\n        else:\n"
        "            diffs.append(out.sum().item())\n",
    ],
    ids=["history", "attribute-counter", "leaves-the-loop"],
)
def test_a_side_a_history_test_or_an_exit_picks_is_not_every_iteration(branches):
    source = TORCH + textwrap.dedent("""\
        def drift(self, model, loader):
            diffs, prev = [], None
            for x, y in loader:
                out = model(x.cuda())
                {branches}
            return diffs
        """).format(branches=branches.rstrip("\n"))
    found = [(d.code, d.start.line) for d in lint_in_preview_mode(source) if d.code in HOST_COPIES]
    first_side = next(i for i, line in enumerate(source.splitlines(), 1) if "    if " in line) + 1
    assert all(line != first_side for _, line in found)


def test_a_retry_loop_around_a_pass_over_the_data_is_no_single_item():
    source = TORCH + textwrap.dedent("""\
        def train(model, loader, optimizer, epochs, retries):
            for epoch in range(epochs):
                for attempt in range(retries):
                    try:
                        for x, y in loader:
                            loss = model(x.cuda()).sum()
                            loss.backward()
                            optimizer.step()
                    except RuntimeError:
                        continue
                    break
                print("epoch", epoch, loss.item())
        """)
    assert [d.code for d in lint_in_preview_mode(source) if d.code in HOST_COPIES] == []
