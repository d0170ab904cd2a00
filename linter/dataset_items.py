"""What loading one item of a loader's dataset costs, as far as the code shows: the library
calls that made the dataset (`load_dataset(...)`, `TensorDataset(...)`, `ImageFolder(...)`,
a `transform=`), the `__getitem__` of a dataset class of the file, and the assignments and
calls (helpers that return a dataset, their parameters at the call sites) that lead from
those to the loader's argument. GPU305 asks it whether worker processes would have work.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from .astutil import walk_local
from .datasets_api import (
    HF_DATASET_MAKERS,
    HF_ON_ACCESS,
    HF_SAME_COST,
    PYG_DATASETS,
    PYG_IN_MEMORY_BASES,
    TORCH_IN_MEMORY,
    TORCH_VIEWS,
    TORCHVISION_DATASETS,
    TRANSFORM_KEYWORDS,
)
from .rule_base import RuleContext
from .semantic import FunctionFacts
from .torch_api import SYNTHESIZING_FACTORIES, TORCH_DTYPES, is_dtype, names_the_host

#: What loading one item of a dataset costs, as far as the code shows: it reads, decodes or
#: transforms (WORK), it only looks a row up in memory (CHEAP); None when the code does not
#: say. NEUTRAL: a binding that refers back to the name being decided (`ds = ds.map(f)`),
#: which adds nothing of its own. ON_DEVICE: its items are put on a device as they are
#: loaded (`__getitem__` calls `.cuda()`), which worker processes cannot do: CUDA does not
#: survive a fork.
WORK, CHEAP, NEUTRAL, ON_DEVICE = "work", "cheap", "", "device"


def _join(verdicts: Iterable[str | None]) -> str | None:
    """Several values a dataset may be: WORK when any of them does work, CHEAP when all the
    others are cheap, else unknown."""
    found = [v for v in verdicts if v != NEUTRAL]
    if ON_DEVICE in found:
        return ON_DEVICE
    if WORK in found:
        return WORK
    if not found:
        return NEUTRAL
    return CHEAP if all(v == CHEAP for v in found) else None


class ItemCost:
    """Decides what loading an item of a loader's dataset costs, from the library calls that
    made the dataset (`load_dataset(...)`, `TensorDataset(...)`, `ImageFolder(...)`, a
    `transform=`), the `__getitem__` of a dataset class of the file, and the assignments
    that lead from those to the loader's argument."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self._transformed: set[str] | None = None
        self._calls: dict[str, list[tuple[ast.Call, list[ast.AST]]]] | None = None

    def of(self, node: ast.expr, scopes: list[ast.AST], seen: frozenset = frozenset()) -> str | None:
        ctx = self.ctx
        if isinstance(node, ast.Name):
            return self._name(node.id, scopes, seen)
        if isinstance(node, ast.Subscript):  # `tokenized["train"]`, `dataset[3000:]`
            return self.of(node.value, scopes, seen)
        if isinstance(node, ast.IfExp):
            return _join([self.of(node.body, scopes, seen), self.of(node.orelse, scopes, seen)])
        if isinstance(node, (ast.List, ast.Tuple, ast.ListComp)):
            return CHEAP  # items already built in memory
        if not isinstance(node, ast.Call):
            return None
        if any(k.arg in TRANSFORM_KEYWORDS and not _is_none(k.value) for k in node.keywords):
            return WORK
        func = node.func
        if isinstance(func, ast.Attribute) and ctx.qualname(func) is None:
            if func.attr in HF_ON_ACCESS:
                return WORK
            if func.attr in HF_SAME_COST:
                return self.of(func.value, scopes, seen)
            made = self._made_by_class_method(func, scopes)
            return self._callee(made, scopes, seen) if made is not None else None
        name = ctx.qualname(func)
        if name is not None:
            if name.startswith(TORCHVISION_DATASETS):
                return WORK
            if name in HF_DATASET_MAKERS or name in TORCH_IN_MEMORY or name.startswith(PYG_DATASETS):
                return CHEAP
            if name in TORCH_VIEWS and node.args:
                parts = node.args[0]
                if isinstance(parts, (ast.List, ast.Tuple)):  # `ConcatDataset([a, b])`
                    return _join(self.of(part, scopes, seen) for part in parts.elts)
                return self.of(parts, scopes, seen)
            return None
        if isinstance(func, ast.Name):
            if func.id == "range" and ctx.env.is_builtin("range"):
                return CHEAP
            return self._callee(func.id, scopes, seen)
        return None

    def _name(self, name: str, scopes: list[ast.AST], seen: frozenset) -> str | None:
        """Every value the name is bound to in the scope that binds it (a parameter, a loop
        target or an import says nothing); WORK as well when the file gives it a per-item
        transform in place (`ds.set_transform(f)`, `ds.transform = T.X()`)."""
        outer = self._binding_scopes(name, scopes)
        if outer is None:
            return None
        key = (id(outer[-1]), name)
        if key in seen:
            return NEUTRAL
        if name in self._transformed_names():
            return WORK
        seen = seen | {key}
        return _join(self._bound(binding, name, outer, seen) for binding in self._bindings(name, outer))

    def _binding_scopes(self, name: str, scopes: list[ast.AST]) -> list[ast.AST] | None:
        """`scopes` up to the innermost one that binds `name` (class bodies are seen only
        from themselves), or None when none does."""
        for index in range(len(scopes) - 1, -1, -1):
            facts = self.ctx.semantic.scope(scopes[index])
            if (
                facts is not None
                and name in facts.bindings
                and not (isinstance(scopes[index], ast.ClassDef) and index != len(scopes) - 1)
            ):
                return scopes[: index + 1]
        return None

    def _bindings(self, name: str, scopes: list[ast.AST]) -> list[ast.AST]:
        outer = self._binding_scopes(name, scopes)
        return self.ctx.bindings(name, outer[-1]) if outer is not None else []

    def _bound(self, binding: ast.AST, name: str, scopes: list[ast.AST], seen: frozenset) -> str | None:
        if isinstance(binding, ast.AnnAssign) and binding.value is not None:
            return self.of(binding.value, scopes, seen)
        if isinstance(binding, ast.arg):
            return self._argument(binding.arg, scopes, seen)
        if not isinstance(binding, ast.Assign):
            return None
        value = binding.value
        for target in binding.targets:
            if isinstance(target, ast.Name) and target.id == name:
                return self.of(value, scopes, seen)
            if isinstance(target, (ast.Tuple, ast.List)):
                names = [e.id if isinstance(e, ast.Name) else None for e in target.elts]
                if name in names:
                    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(names):
                        return self.of(value.elts[names.index(name)], scopes, seen)
                    if isinstance(value, ast.ListComp):  # `a, b = [ImageFolder(f) for f in ...]`
                        return self.of(value.elt, scopes, seen)
                    if isinstance(value, ast.Call) and self.ctx.qualname(value.func) in TORCH_VIEWS:
                        return self.of(value, scopes, seen)  # `train, val = random_split(ds, ...)`
                    return self._unpacked(value, names.index(name), len(names), scopes, seen)
        return None

    def _unpacked(self, value: ast.expr, index: int, count: int, scopes: list[ast.AST], seen: frozenset) -> str | None:
        """Element `index` of what a function of the file returns as a tuple of `count`
        (`dataset, model, optimizer = load_train_objs()`)."""
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return None
        found = self.ctx.semantic.resolve(scopes, value.func.id)
        if not found or found[1] or len(found[0]) != 1 or found[0][0].yields:
            return None
        function = found[0][0]
        inner = self._scopes_of(function.node)
        returned = [n.value for n in walk_local(function.node.body) if isinstance(n, ast.Return)]
        if (
            inner is None
            or not returned
            or not all(isinstance(v, (ast.Tuple, ast.List)) and len(v.elts) == count for v in returned)
        ):
            return None
        return _join(self.of(v.elts[index], inner, seen) for v in returned)  # type: ignore[union-attr]

    def _returned(self, function: FunctionFacts, seen: frozenset) -> str | None:
        """What the values a function of the file returns cost (a generator's: unknown)."""
        key = (id(function.node), "")
        if function.yields or key in seen:
            return None if function.yields else NEUTRAL
        scopes = self._scopes_of(function.node)
        returned = [n.value for n in walk_local(function.node.body) if isinstance(n, ast.Return)]
        if scopes is None or not returned or any(value is None for value in returned):
            return None
        return _join(self.of(value, scopes, seen | {key}) for value in returned)  # type: ignore[arg-type]

    def _scopes_of(self, function: ast.AST) -> list[ast.AST] | None:
        """The scopes from the module to `function`, itself included."""
        chain = [function]
        node = self.ctx.parent(function)
        while node is not None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)):
                chain.append(node)
            if node is self.ctx.tree:
                return chain[::-1]
            node = self.ctx.parent(node)
        return None

    def _argument(self, name: str, scopes: list[ast.AST], seen: frozenset) -> str | None:
        """A parameter of a function of the file: what every call of it by name in the file
        passes (positionally or by keyword); unknown when it has no such call, or one that
        leaves the parameter to its default or passes `*args`/`**kwargs`."""
        function = scopes[-1]
        facts = self.ctx.semantic.function(function)
        if (
            facts is None
            or facts.owner is not None
            or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        ):
            return None
        positional = facts.positional()
        sites = self._calls_by_name().get(function.name, [])
        if not sites:
            return None
        verdicts = []
        for call, call_scopes in sites:
            found = self.ctx.semantic.resolve(call_scopes, function.name)
            if (
                not found
                or found[1]
                or found[0] != [facts]
                or any(isinstance(a, ast.Starred) for a in call.args)
                or any(k.arg is None for k in call.keywords)
            ):
                return None
            value = next((k.value for k in call.keywords if k.arg == name), None)
            if value is None and name in positional and positional.index(name) < len(call.args):
                value = call.args[positional.index(name)]
            if value is None:
                return None
            verdicts.append(self.of(value, call_scopes, seen))
        return _join(verdicts)

    def _calls_by_name(self) -> dict[str, list[tuple[ast.Call, list[ast.AST]]]]:
        """The file's calls of a plain name, and the scopes each call is in."""
        if self._calls is None:
            calls: dict[str, list[tuple[ast.Call, list[ast.AST]]]] = {}

            def visit(node: ast.AST, scopes: list[ast.AST]) -> None:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.Call) and isinstance(child.func, ast.Name):
                        calls.setdefault(child.func.id, []).append((child, scopes))
                    inner = (
                        scopes + [child]
                        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
                        else scopes
                    )
                    visit(child, inner)

            visit(self.ctx.tree, [self.ctx.tree])
            self._calls = calls
        return self._calls

    def _transformed_names(self) -> set[str]:
        """Names the file gives a per-item transform in place: `name.set_transform(f)`,
        `name.transform = f`."""
        if self._transformed is None:
            found: set[str] = set()
            for node in ast.walk(self.ctx.tree):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in HF_ON_ACCESS
                    and isinstance(node.func.value, ast.Name)
                ):
                    found.add(node.func.value.id)
                elif isinstance(node, ast.Assign):
                    found.update(
                        t.value.id
                        for t in node.targets
                        if isinstance(t, ast.Attribute)
                        and t.attr in TRANSFORM_KEYWORDS
                        and isinstance(t.value, ast.Name)
                    )
            self._transformed = found
        return self._transformed

    def _made_by_class_method(self, func: ast.Attribute, scopes: list[ast.AST]) -> str | None:
        """`Dataset.load_dataset_and_make_vectorizer(path)`: the name of the file's class
        whose class method (`@classmethod`, every `return` a call of its `cls`) makes an
        instance of it."""
        if not isinstance(func.value, ast.Name):
            return None
        found = self.ctx.semantic.resolve(scopes, func.value.id)
        if not found or found[0] or len(found[1]) != 1:
            return None
        owner = found[1][0]
        method = next(
            (s for s in owner.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == func.attr),
            None,
        )
        if method is None or not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in method.decorator_list):
            return None
        positional = [*method.args.posonlyargs, *method.args.args]
        if not positional:
            return None
        cls = positional[0].arg
        returns = [n for n in walk_local(method.body) if isinstance(n, ast.Return)]
        made = [
            r.value
            for r in returns
            if isinstance(r.value, ast.Call) and isinstance(r.value.func, ast.Name) and r.value.func.id == cls
        ]
        return owner.name if returns and len(made) == len(returns) else None

    def _callee(self, name: str, scopes: list[ast.AST], seen: frozenset) -> str | None:
        """What calling a name of the file makes: a function's return values; an instance of
        a dataset class of the file, also through `functools.partial(Class, ...)`. A dataset
        class is CHEAP when its `__getitem__` calls nothing but a few builtins (it looks
        items up in memory: prompts and their indices, rows of tensors it holds) or when it
        is a PyTorch Geometric in-memory dataset that keeps the base's item access; WORK
        when its `__getitem__` calls anything else (reads, decodes, tokenizes, transforms)."""
        ctx = self.ctx
        found = ctx.semantic.resolve(scopes, name)
        if found and len(found[0]) == 1 and not found[1]:
            return self._returned(found[0][0], seen)
        if found is None:  # `dataset = partial(ReverseDataset, 10)`, then `dataset(1000)`
            made = [b.value for b in self._bindings(name, scopes) if isinstance(b, ast.Assign)]
            if (
                len(made) == 1
                and isinstance(made[0], ast.Call)
                and made[0].args
                and isinstance(made[0].args[0], ast.Name)
                and ctx.qualname(made[0].func) == "functools.partial"
            ):
                return self._callee(made[0].args[0].id, scopes, seen)
            return None
        if found[0] or len(found[1]) != 1:
            return None
        owner = found[1][0]
        getitem = ctx.semantic.method(owner, "__getitem__")
        if getitem is None:
            if (
                any(ctx.qualname(base) in PYG_IN_MEMORY_BASES for base in owner.bases)
                and ctx.semantic.method(owner, "get") is None
            ):
                return CHEAP
            return None
        if moves_to_a_device(getitem.node):
            return ON_DEVICE
        cheap = all(_looks_up(sub, ctx) for sub in ast.walk(getitem.node) if isinstance(sub, ast.Call))
        return CHEAP if cheap else WORK


def loader_item_cost(dataset: ast.expr, ctx: RuleContext, items: ItemCost) -> str | None:
    """What loading an item of the loader's dataset costs; a name a comprehension around
    the loader binds to each of a few datasets (`[DataLoader(ds) for ds in (train, valid)]`)
    costs what they do together."""
    if isinstance(dataset, ast.Name):
        for loop in reversed(ctx.loops):
            if (
                isinstance(loop, ast.comprehension)
                and isinstance(loop.target, ast.Name)
                and loop.target.id == dataset.id
            ):
                if isinstance(loop.iter, (ast.Tuple, ast.List)):
                    return _join(items.of(e, list(ctx.scopes)) for e in loop.iter.elts)
                return None
    return items.of(dataset, list(ctx.scopes))


def moves_to_a_device(function: ast.AST) -> bool:
    """`function` puts what it builds on a device: `.cuda()`, `.to(d)` or `device=d` where
    `d` is neither a literal "cpu" nor a dtype (`torch.long`)."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr == "cuda":
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "to" and node.args:
            if not names_the_host(node.args[0]) and not _names_a_dtype(node.args[0]):
                return True
        if any(k.arg == "device" and not names_the_host(k.value) for k in node.keywords):
            return True
    return False


def _names_a_dtype(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and (node.attr in TORCH_DTYPES or node.attr == "dtype")


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


#: Builtins an item lookup may call without doing real work.
_LOOKUP_BUILTINS = frozenset({"len", "int", "float", "str", "bool", "dict", "list", "tuple", "min", "max", "range"})
#: Methods that read a mapping an item is looked up in (`self.encodings.items()`), or the
#: size of a tensor or array it is sliced from (`self.data.size(0)`).
_LOOKUP_METHODS = frozenset({"items", "keys", "values"})
_SIZE_METHODS = frozenset({"size", "dim", "numel"})
#: Tensor methods that convert a tensor the item already is to another dtype or layout
#: (`self.features[idx].float()`): one pass over a few values in C.
_CASTS = frozenset({"float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "contiguous"})
#: torch functions that wrap a value already in memory as a tensor (stored token ids).
_TENSOR_WRAPPERS = frozenset(
    {"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.LongTensor", "torch.FloatTensor"}
)


#: torch functions that rearrange a tensor the item already is (`torch.flip(self.data[idx],
#: dims=(0,))`): a view, or a copy of a few values.
_REARRANGING = frozenset(
    {"flip", "roll", "cat", "stack", "reshape", "flatten", "squeeze", "unsqueeze", "transpose", "permute", "clone"}
)


def _looks_up(call: ast.Call, ctx: RuleContext) -> bool:
    """A call an item lookup makes without real work: a few builtins, a mapping's items, the
    size of what it slices (`self.data.size(0)`), converting a stored tensor to another dtype (`self.features[idx].float()`,
    `.type(torch.int64)`, `.to(torch.long)`),
    wrapping what it looked up as a tensor (`torch.tensor(self.encodings[key][index])`),
    rearranging a tensor it looked up (`torch.flip(self.data[idx], dims=(0,))`), or making
    one with a torch factory (synthetic data: `torch.randint(0, vocab, (n,))`); what is
    wrapped or rearranged is a call of its own, judged on its own."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in _LOOKUP_BUILTINS and ctx.env.is_builtin(func.id):
        return True
    if (
        isinstance(func, ast.Attribute)
        and func.attr in _LOOKUP_METHODS | _CASTS
        and not call.args
        and not call.keywords
    ):
        return True
    if isinstance(func, ast.Attribute) and func.attr in _SIZE_METHODS and len(call.args) <= 1 and not call.keywords:
        return True  # `self.data.size(0)`: where the slice may start
    if (  # `self.data[i]["input_ids"].type(torch.int64)`: a cast spelled with the dtype
        isinstance(func, ast.Attribute)
        and func.attr in ("type", "to")
        and len(call.args) == 1
        and not call.keywords
        and is_dtype(call.args[0], ctx.env)
    ):
        return True
    qualname = ctx.qualname(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    return qualname is not None and (
        qualname in _TENSOR_WRAPPERS
        or qualname.startswith("torch.")
        and qualname[len("torch.") :] in _REARRANGING | SYNTHESIZING_FACTORIES
    )
