"""The host-copy rules (GPU301, GPU307, GPU308) stay silent where the copy is the point (it is drawn or logged as an image in
the same iteration), where the iteration waits for the device anyway (a model's
`.generate(...)`), and in loops that run a few times or over one model's own tensors."""

from __future__ import annotations

import textwrap

from gpulint import lint_source

from .rule_helpers import HOST_COPIES

HEADER = """\
import matplotlib.pyplot as plt
import torch
from transformers import AutoModelForSeq2SeqLM, InformerForPrediction

device = torch.device("cuda")
model = torch.nn.Linear(4, 4).to(device)
"""


def _lines(body: str, code: str | None = None) -> list[str]:
    """The lines of `code`'s findings; with no code, of any host-copy rule's (`HOST_COPIES`)."""
    codes = HOST_COPIES if code is None else {code}
    source = HEADER + textwrap.dedent(body)
    lines = source.splitlines()
    return [lines[d.start.line - 1].strip() for d in lint_source(source) if d.code in codes]


# -- the copy is drawn or logged as an image in the same iteration ---------------------------


def test_a_copy_passed_to_a_plotting_call_is_not_flagged():
    assert (
        _lines("""\
        def show(batches, ax):
            for batch in batches:
                plt.plot(model(batch.to(device)).cpu().numpy())
        """)
        == []
    )


def test_a_copy_stored_in_a_name_an_axes_draws_later_in_the_iteration_is_not_flagged():
    body = """\
        fig, axes = plt.subplots(2, 4)
        axes = axes.flatten()
        for i, batch in enumerate(batches):
            ax = axes[i]
            forecast = model(batch.to(device)).cpu().numpy()
            smoothed = forecast.mean(axis=0)
            ax.plot(smoothed)
        """
    assert _lines(body) == []
    # the same copy, drawn by an object matplotlib did not make, is flagged
    assert _lines(body.replace("fig, axes = plt.subplots(2, 4)", "axes = make_axes()")) == [
        "forecast = model(batch.to(device)).cpu().numpy()"
    ]


def test_an_axes_taken_from_a_zip_or_enumerate_is_a_plotting_object():
    assert (
        _lines("""\
        fig, axes = plt.subplots(1, 8)
        for ax, batch in zip(axes.flat, batches):
            ax.imshow(model(batch.to(device)).cpu())
        for i, ax in enumerate(axes.flat):
            ax.set_title(f"{model(batches[i].to(device)).sum().item():.2f}")
        """)
        == []
    )


def test_a_running_total_next_to_a_plot_of_something_else_is_flagged():
    assert _lines("""\
        total = 0.0
        for step, batch in enumerate(batches):
            loss = model(batch.to(device)).pow(2).mean()
            loss.backward()
            total += loss.item()
            plt.scatter(step, len(batch))
        """) == ["total += loss.item()"]


def test_a_list_of_copies_plotted_every_iteration_is_not_flagged():
    body = """\
        losses = []
        for batch in batches:
            loss = model(batch.to(device)).pow(2).mean()
            losses.append(loss.item())
            plt.plot(losses)
        """
    assert _lines(body) == []
    # plotted only every 100 steps: the per-step copy is not needed for it
    sometimes = body.replace("    plt.plot(losses)", "    if len(losses) % 100 == 0:\n                plt.plot(losses)")
    assert _lines(sometimes) == ["losses.append(loss.item())"]
    # plotted after the loop: accumulate on the device, copy once
    assert _lines(body.replace("    plt.plot(losses)", "plt.plot(losses)")) == ["losses.append(loss.item())"]


def test_images_and_histograms_for_a_logger_are_not_flagged():
    assert (
        _lines("""\
        import wandb
        from PIL import Image

        for step, batch in enumerate(batches):
            out = model(batch.to(device))
            wandb.log({"sample": wandb.Image(out.cpu().numpy())})
            writer.add_histogram("out", out.cpu(), step)
            Image.fromarray(out.byte().cpu().numpy()).save(f"{step}.png")
        """)
        == []
    )


# -- the iteration waits for the device anyway ----------------------------------------------

GENERATE = """\
    seq2seq = AutoModelForSeq2SeqLM.from_pretrained("t5-small").to(device)
    predictions = []
    for batch in loader:
        generated = seq2seq.generate(batch["input_ids"].to(device))
        predictions.extend(tokenizer.batch_decode(generated.cpu().numpy()))
    """


def test_a_copy_in_a_loop_that_generates_every_iteration_is_not_flagged():
    assert _lines(GENERATE) == []


def test_a_loop_that_generates_only_sometimes_still_flags_its_copies():
    body = GENERATE.replace(
        '        generated = seq2seq.generate(batch["input_ids"].to(device))\n',
        '        generated = seq2seq(batch["input_ids"].to(device)).logits.argmax(-1)\n'
        "        if len(predictions) % 100 == 0:\n"
        '            seq2seq.generate(batch["input_ids"].to(device))\n',
    )
    assert _lines(body) == ["predictions.extend(tokenizer.batch_decode(generated.cpu().numpy()))"]


def test_a_time_series_heads_generate_does_not_wait_per_step():
    body = GENERATE.replace("AutoModelForSeq2SeqLM", "InformerForPrediction")
    assert _lines(body) == ["predictions.extend(tokenizer.batch_decode(generated.cpu().numpy()))"]


def test_gpu306_a_condition_in_a_loop_that_generates_is_not_flagged():
    body = """\
        seq2seq = AutoModelForSeq2SeqLM.from_pretrained("t5-small").to(device)
        for batch in loader:
            generated = seq2seq.generate(batch["input_ids"].to(device))
            if (generated == 0).all():
                break
        """
    assert _lines(body, "GPU306") == []
    assert _lines(body.replace("seq2seq.generate(", "seq2seq("), "GPU306") == ["if (generated == 0).all():"]


# -- loops that run a few times, or over one model's tensors ---------------------------------


def test_a_loop_over_a_literal_few_items_is_not_a_hot_loop():
    body = """\
        preds = model(torch.ones(16, 4, device=device))
        for j in range(10, 20):
            print(preds[j].sum().item())
        """
    assert _lines(body) == []
    assert _lines(body.replace("range(10, 20)", "range(len(preds))")) == ["print(preds[j].sum().item())"]


def test_a_range_over_a_name_holding_a_literal_few_is_a_few_iterations():
    body = """\
        n, imgs = 4, []
        for i in range(n):
            imgs += [model(torch.ones(4, device=device)).cpu()]
        plt.imshow(imgs[0])
        """
    assert _lines(body) == []
    assert _lines(body.replace("n, imgs = 4, []", "n, imgs = 400, []")) == [
        "imgs += [model(torch.ones(4, device=device)).cpu()]"
    ]
    # a count that changes before the loop is not the literal any more
    assert _lines(body.replace("for i in", "n += step\n        for i in")) == [
        "imgs += [model(torch.ones(4, device=device)).cpu()]"
    ]


def test_a_loop_over_a_models_parameters_is_one_model_not_data():
    body = """\
        def weight_histograms(net):
            weights = {}
            for name, param in net.named_parameters():
                weights[name] = param.detach().view(-1).cpu().numpy()
            return weights

        weight_histograms(model)
        """
    assert _lines(body) == []
    # inside a training loop, the step loop is the one the copies run in
    assert _lines("""\
        for batch in batches:
            model(batch.to(device)).sum().backward()
            norms = [param.grad.norm().item() for param in model.parameters()]
        """) == ["norms = [param.grad.norm().item() for param in model.parameters()]"]


def test_a_parameter_loop_does_not_make_the_step_loop_an_epoch_loop():
    assert _lines("""\
        for batch in batches:
            loss = model(batch.to(device)).pow(2).mean()
            loss.backward()
            for param in model.parameters():
                param.grad.clamp_(-1, 1)
            print(loss.item())
        """) == ["print(loss.item())"]
