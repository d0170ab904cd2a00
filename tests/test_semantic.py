"""The semantic index and the evidence it adds: call sites, the file's own functions and
classes, usage, imports under `try`, modules moved in place. Each source has a case the
evidence reaches and a near-miss it must not."""

from __future__ import annotations

import ast
import textwrap

from gpulint import lint_source
from gpulint.config import Config
from gpulint.semantic import SemanticIndex
from gpulint.values import DEVICE, OTHER, Ty

from .test_evidence import frame, probe, probe_one


def codes(source: str) -> list[tuple[str, int]]:
    """The findings in preview mode (where GPU308 also reports the totals of loops that only
    evaluate: the evidence that places their values is what is tested here)."""
    return [(d.code, d.start.line) for d in lint_source(textwrap.dedent(source), config=Config(preview=True))]


# -- call sites give parameters their types ----------------------------------------------


def test_parameter_takes_the_type_its_call_sites_agree_on():
    seen = probe(
        """
        import pandas as pd
        def report(table):
            probe(table)
        report(pd.read_csv("a.csv"))
        report(pd.DataFrame())
        """
    )
    assert seen == [frame()]


def test_parameter_stays_unknown_when_call_sites_disagree():
    seen = probe(
        """
        import pandas as pd
        import numpy as np
        def report(table):
            probe(table)
        report(pd.read_csv("a.csv"))
        report(np.zeros(3))
        """
    )
    assert seen == [None]


def test_a_call_site_that_passes_an_unknown_value_may_pass_anything():
    seen = probe(
        """
        import pandas as pd
        def report(table, flag=False):
            probe(table)
            probe(flag)
        report(pd.read_csv("a.csv"))
        report(load_somehow(), flag=[1])
        """
    )
    assert seen == [None, OTHER]


def test_a_call_site_that_unpacks_arguments_hides_the_parameters():
    seen = probe(
        """
        import pandas as pd
        def report(table):
            probe(table)
        report(pd.read_csv("a.csv"))
        report(*pieces)
        """
    )
    assert seen == [None]


def test_call_sites_in_a_caller_defined_later_are_walked_first():
    seen = probe(
        """
        import torch
        def evaluate(model, device):
            probe(device)
        def main():
            device = torch.device("cuda")
            evaluate(None, device)
        main()
        """
    )
    assert seen == [Ty("device", "torch", DEVICE)]


def test_keyword_arguments_and_constructor_calls_reach_parameters():
    seen = probe(
        """
        import pandas as pd
        class Report:
            def __init__(self, table):
                probe(table)
        def total(x, *, table):
            probe(table)
        Report(pd.read_csv("a.csv"))
        total(1, table=pd.read_csv("a.csv"))
        """
    )
    assert seen == [frame(), frame()]


def test_evaluate_loop_with_parameters_is_flagged():
    source = """
        import torch
        import torch.nn.functional as F

        def evaluate(model, device, loader):
            model.eval()
            total = 0.0
            for data, target in loader:
                data, target = data.to(device), target.to(device)
                total += F.nll_loss(model(data), target).item()
            return total

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = torch.nn.Linear(4, 2).to(device)
        evaluate(model, device, [])
        """
    assert ("GPU308", 10) in codes(source)
    # near-miss: the only call passes the CPU
    on_the_host = source.replace('torch.device("cuda" if torch.cuda.is_available() else "cpu")', 'torch.device("cpu")')
    assert not {("GPU301", 10), ("GPU307", 10), ("GPU308", 10)} & set(codes(on_the_host))


# -- the file's own functions return what their returns return --------------------------


def test_local_function_returns_a_frame():
    assert (
        probe_one(
            """
        import pandas as pd
        def load():
            return pd.read_csv("sales.csv")
        probe(load())
        """
        )
        == frame()
    )


def test_local_function_return_types_must_agree_and_not_fall_through():
    seen = probe(
        """
        import pandas as pd
        import numpy as np
        def either(flag):
            if flag:
                return pd.read_csv("a.csv")
            return np.zeros(3)
        def maybe(flag):
            if flag:
                return pd.read_csv("a.csv")
        def rows():
            yield pd.read_csv("a.csv")
        probe(either(1))
        probe(maybe(1))
        probe(rows())
        """
    )
    assert seen == [None, None, None]


def test_recursive_function_terminates():
    assert (
        probe_one(
            """
        import pandas as pd
        def grow(n):
            if n:
                return grow(n - 1)
            return pd.DataFrame()
        probe(grow(3))
        """
        )
        is None
    )


def test_apply_on_a_frame_from_a_local_function_is_flagged():
    source = """
        import pandas as pd

        def load():
            return pd.read_csv("sales.csv")

        sales = load()
        sales["fee"] = sales.apply(lambda row: row["price"] * 0.1, axis=1)
        """
    assert ("GPU104", 8) in codes(source)


# -- instance attributes ------------------------------------------------------------------


def test_attribute_assigned_in_init_is_known_in_other_methods():
    seen = probe(
        """
        import cupy as cp
        class Scaler:
            def blocks(self, xs):
                probe(self.means)
            def __init__(self, means):
                self.means = cp.asarray(means)
        """
    )
    assert seen == [Ty("array", "cupy")]


def test_attribute_assigned_two_kinds_is_unknown_and_none_says_nothing():
    seen = probe(
        """
        import cupy as cp
        import numpy as np
        class Scaler:
            def __init__(self, means):
                self.means = cp.asarray(means)
                self.model = None
            def reset(self):
                self.means = np.zeros(3)
                self.model = np.ones(3)
            def use(self):
                probe(self.means)
                probe(self.model)
        """
    )
    assert seen == [None, Ty("array", "numpy")]


def test_a_later_assignment_of_the_same_method_body_replaces_an_earlier_one():
    seen = probe(
        """
        import numpy as np
        import torch
        from accelerate import Accelerator
        from models import Net
        class Trainer:
            def __init__(self, data, flag):
                self.model = Net()
                self.model = Accelerator().prepare(self.model)  # replaces the unknown module
                self.data = data.values
                if flag:  # under a branch: joined, not replaced
                    self.data = np.zeros(3)
                self.steps = np.zeros(3)
            def reset(self):
                self.steps = torch.zeros(3)  # another method's: joined
            def use(self):
                probe(self.model)
                probe(self.data)
                probe(self.steps)
        """
    )
    assert seen == [Ty("placed", "torch", "device"), None, None]


def test_module_held_in_an_attribute_is_called_on_its_device():
    source = """
        import torch
        import torch.nn as nn

        class Trainer:
            def __init__(self, device):
                self.model = nn.Linear(3, 3).to(device)
                self.device = device

            def run(self, loader):
                total = 0
                for x in loader:
                    x = x.to(self.device)
                    total += self.model(x).sum().item()
                return total

        trainer = Trainer(torch.device("cuda"))
        """
    assert ("GPU308", 14) in codes(source)


# -- usage ----------------------------------------------------------------------------------


def test_usage_shows_a_frame_of_unknown_library():
    seen = probe(
        """
        def f(table, other):
            probe(table)
            probe(other)
            for _, row in table.iterrows():
                pass
            other.loc[0, "a"] = 1
        """
    )
    assert seen == [Ty("frame"), Ty("ndframe")]


def test_usage_of_two_families_is_no_evidence():
    assert (
        probe_one(
            """
        def f(value):
            probe(value)
            value.iterrows()
            value.backward()
        """
        )
        is None
    )


def test_usage_never_overrides_known_evidence():
    assert probe_one(
        """
        import numpy as np
        def f():
            value = np.zeros(3)
            probe(value)
            value.loc[0]
        """
    ) == Ty("array", "numpy")


def test_usage_is_per_scope():
    seen = probe(
        """
        def f(table):
            table.iterrows()
        def g(table):
            probe(table)
        """
    )
    assert seen == [None]


def test_index_records_usage_and_functions():
    tree = ast.parse(
        textwrap.dedent(
            """
        def f(frame):
            for _, row in frame.iterrows():
                pass
            helper(frame)
        def helper(x):
            return x
        """
        )
    )
    index = SemanticIndex(tree)
    f = tree.body[0]
    assert index.scope(f).usage == {"frame": Ty("frame")}
    assert index.function(f).calls == {"helper"}
    assert index.resolve([tree], "helper") == ([index.function(tree.body[1])], [])


# -- imports under try, modules moved in place ----------------------------------------------


def test_import_under_try_with_an_import_error_fallback_keeps_its_evidence():
    seen = probe(
        """
        try:
            import cupy as xp
        except ImportError:
            xp = None
        probe(xp.zeros(3))
        try:
            import cupy as yp
        except ValueError:
            yp = None
        probe(yp.zeros(3))
        """
    )
    assert seen == [Ty("array", "cupy"), None]


def test_bare_to_statement_moves_a_module_in_place():
    seen = probe(
        """
        import torch
        model = torch.nn.Linear(2, 2)
        model.to("cuda")
        probe(model)
        t = torch.zeros(3)
        t.to("cuda")
        probe(t)
        """
    )
    assert seen == [Ty("model", "torch", DEVICE), Ty("tensor", "torch", "host")]


def test_functions_see_module_names_bound_after_them():
    assert (
        probe_one(
            """
        import pandas as pd
        def use():
            probe(table)
        table = pd.read_csv("a.csv")
        """
        )
        == frame()
    )


def test_other_is_not_overridden_by_usage():
    assert (
        probe_one(
            """
        def f():
            rows = [1, 2]
            probe(rows)
            rows.iterrows()
        """
        )
        == OTHER
    )


def test_a_name_used_as_an_accelerator_index_is_a_device():
    seen = probe(
        """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP
        def main(rank, world_size, other):
            probe(rank)
            probe(other)
            torch.cuda.set_device(rank)
            model = DDP(model, device_ids=[rank])
        """
    )
    assert seen == [Ty("device", "torch", DEVICE), None]


def test_a_loop_over_a_container_of_known_values_binds_them():
    seen = probe(
        """
        import torch
        for model in [torch.nn.Linear(2, 2).cuda(), torch.nn.Linear(2, 1).cuda()]:
            probe(model)
        for value in [torch.zeros(2), 1]:
            probe(value)
        """
    )
    assert seen == [Ty("model", "torch", DEVICE), None]


def test_a_tensor_in_one_branch_and_a_moved_value_in_the_other_stay_on_the_device():
    assert probe_one(
        """
        import torch
        pos = step(pos).to("cuda")
        if flag:
            pos = torch.clamp(pos, min=-1, max=1)
        probe(pos)
        """
    ) == Ty("placed", "torch", DEVICE)


def test_the_items_of_a_field_of_a_placed_batch_are_unknown():
    seen = probe(
        """
        from accelerate import Accelerator
        accelerator = Accelerator()
        loader = accelerator.prepare(loader)
        for batch in loader:
            probe(batch)
            for flag in batch["drop_flags"]:
                probe(flag)
        """
    )
    assert seen == [Ty("placed", "torch", DEVICE), None]


def test_scopes_know_the_attributes_their_own_code_uses_and_the_containers_they_fill():
    tree = ast.parse(
        textwrap.dedent("""
        import torch
        w = torch.zeros(3)
        w.requires_grad = True
        rows = []
        table = dict()
        seen = [1]
        def f(x):
            x.requires_grad_()
            return w.shape
    """)
    )
    index = SemanticIndex(tree)
    module, function = index.scope(tree), index.scope(tree.body[-1])
    assert module.attributes["w"] == {"requires_grad"} and "x" not in module.attributes
    assert function.attributes == {"x": {"requires_grad_"}, "w": {"shape"}}
    assert module.filled_container("rows") == "list" and module.filled_container("table") == "dict"
    assert module.filled_container("seen") is None and module.filled_container("w") is None


def _backpropagated_in(source: str, function: str) -> set[str]:
    index = SemanticIndex(ast.parse(textwrap.dedent(source)))
    scope = next(facts for node, facts in index.scopes.items() if getattr(node, "name", None) == function)
    return set(scope.backpropagated)


def test_a_helper_that_backpropagates_a_parameter_backpropagates_its_callers_argument():
    source = """
        def backward(loss, optimizer):
            loss.backward()
            optimizer.step()


        def scaled(value, optimizer, scale):
            backward(value * scale, optimizer)


        def train(batches, optimizer):
            for batch in batches:
                first = batch.sum()
                backward(first, optimizer)
                second = batch.mean()
                scaled(optimizer=optimizer, value=second, scale=0.5)
                backward(*batch)  # a starred argument may fill any parameter
    """
    assert _backpropagated_in(source, "train") == {"first", "second"}
    assert _backpropagated_in(source, "scaled") == {"value"}


def test_a_backward_helper_of_another_name_or_rebound_parameter_passes_nothing_on():
    source = """
        def backward(loss):
            loss = loss.mean()  # rebound: the pass starts from the mean, not the argument
            loss.backward()


        def helper(value):
            value.backward()


        def train(batches, other):
            helper = other  # the name now holds another function
            for batch in batches:
                total = batch.sum()
                backward(total)
                helper(total)
    """
    assert _backpropagated_in(source, "train") == set()
