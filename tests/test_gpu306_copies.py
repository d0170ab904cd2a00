"""GPU306 stays silent where the condition's sync costs nothing extra: the iteration copies
the tested value to the host anyway (directly, or by yielding it to consumers that all
copy it), or the loop runs a literal handful of times."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source

HEAD = 'import torch\n\nmodel = torch.nn.Embedding(100, 100).to("cuda")\n'

GENERATOR = textwrap.dedent("""\
    def stream(model, token_ids, eos_token_id):
        for _ in range(500):
            next_token = torch.argmax(model(token_ids)[:, -1], dim=-1, keepdim=True)
            if torch.all(next_token == eos_token_id):
                break
            yield next_token
            token_ids = torch.cat([token_ids, next_token], dim=1)


    ids = torch.tensor([[1, 2]], device="cuda")
    """)


def _found(source: str) -> int:
    return sum(d.code == "GPU306" for d in lint_source(source))


@pytest.mark.parametrize(
    "consumer",
    [
        "for token in stream(model, ids, 0):\n    print(tokenizer.decode(token.squeeze(0).tolist()))\n",
        "for token in stream(model, ids, 0):\n    text += str(token.item())\n",
        "for token in stream(model, ids, 0):\n    out.append(int(token))\n",
    ],
)
def test_streaming_to_consumers_that_copy_each_item_is_silent(consumer):
    assert _found(HEAD + GENERATOR + consumer) == 0


@pytest.mark.parametrize(
    "consumer",
    [
        "tokens = torch.cat(list(stream(model, ids, 0)), dim=1)\n",  # no loop copies the items
        "for token in stream(model, ids, 0):\n    kept.append(token)\n",  # kept on the device
        (
            "for token in stream(model, ids, 0):\n    print(token.tolist())\n"
            "for token in stream(model, ids, 1):\n    kept.append(token)\n"
        ),  # one consumer does not copy
    ],
)
def test_streaming_without_host_copies_is_flagged(consumer):
    assert _found(HEAD + GENERATOR + consumer) == 1


@pytest.mark.parametrize(
    ("copy", "found"),
    [
        ("history.append(loss.item())", 0),
        ("history.append(loss.detach().cpu())", 0),
        ("history.append(float(loss))", 0),
        ("history.append(loss.detach())", 1),  # stays on the device
        ("history.append(other.item())", 1),  # a different value
    ],
)
def test_a_copy_of_the_tested_value_before_the_condition(copy, found):
    source = HEAD + textwrap.dedent(f"""\
        other = torch.zeros((), device="cuda")
        for batch in batches:
            loss = (batch.to("cuda") ** 2).mean()
            {copy}
            if not torch.isfinite(loss):
                break
        """)
    assert _found(source) == found


def test_a_copy_after_more_queued_work_does_not_count():
    """The condition stops the host from queuing `backward` while the forward runs; the
    later `.item()` cannot make up for that."""
    source = HEAD + textwrap.dedent("""\
        for batch in batches:
            loss = (batch.to("cuda") ** 2).mean()
            if not torch.isfinite(loss):
                raise ValueError("non-finite loss")
            loss.backward()
            history.append(loss.item())
        """)
    assert _found(source) == 1


def test_a_yield_after_more_work_does_not_count():
    source = HEAD + GENERATOR.replace(
        "        yield next_token\n", "        token_ids = model(token_ids)\n        yield next_token\n"
    )
    assert "token_ids = model(token_ids)\n        yield" in source
    source += "for token in stream(model, ids, 0):\n    print(token.tolist())\n"
    assert _found(source) == 1


@pytest.mark.parametrize(
    ("loop", "found"),
    [
        ("for j in range(10):", 0),
        ("for j in range(10, 20):", 0),
        ("for j in range(0, 32, 2):", 0),
        ("for j in range(100):", 1),
        ("for j in range(n):", 1),  # not a literal
    ],
)
def test_a_literal_handful_of_iterations(loop, found):
    source = HEAD + f'labels = torch.ones(64, device="cuda")\n{loop}\n    if labels[j] == 1:\n        print(j)\n'
    assert _found(source) == found


def test_a_while_condition_still_counts_on_its_own():
    source = HEAD + 'error = torch.ones((), device="cuda")\nwhile error > 1e-3:\n    error = error / 2\n'
    assert _found(source) == 1
