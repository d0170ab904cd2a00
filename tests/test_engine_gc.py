"""The engine pauses Python's cycle collector while it analyses one file, and leaves it as
it found it."""

import ast
import gc

from gpulint import registry
from gpulint.engine import analyze
from gpulint.registry import Rule
from gpulint.source import Source


def _recorder(seen: list[bool]):
    class CollectorProbe(Rule):
        """Records whether the cycle collector runs while the walk reaches a call."""

        code = "GPU995"
        name = "collector-probe"
        message = "never shown"
        nodes = (ast.Call,)

        def check(self, node, ctx):
            seen.append(gc.isenabled())

    registry._REGISTRY.pop("GPU995", None)  # registered by the class statement; keep it out of all_rules()
    return CollectorProbe


SOURCE = Source.from_text("import numpy as np\nnp.zeros(3)\n")


def test_the_collector_is_off_during_the_analysis_and_on_again_after():
    seen: list[bool] = []
    assert gc.isenabled()
    analyze(SOURCE, [_recorder(seen)])
    assert seen == [False]
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off():
    seen: list[bool] = []
    gc.disable()
    try:
        analyze(SOURCE, [_recorder(seen)])
        assert seen == [False] and not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_on_again_after_a_file_that_does_not_parse():
    analyze(Source.from_text("def (:\n"), [])
    assert gc.isenabled()
