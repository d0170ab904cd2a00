"""The editor's settings for gpulint: `select`, `ignore`, `unsafeFixes` and `preview`.

They arrive as `initializationOptions` and as the `gpulint` section of
`workspace/configuration`, either bare (`{"select": [...]}`) or wrapped in a `gpulint`
object (`{"gpulint": {"select": [...]}}`, the shape editors send for a settings section).
They override the project's `[tool.gpulint]` the way command-line flags do: `select`
replaces the configured selection, `ignore` adds to the ignored rules, `unsafeFixes`
replaces `unsafe-fixes`, `preview` replaces `preview`. A bad value is reported and left out; the rest still applies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..config import ConfigError, Overrides, expand

#: Keys the server reads, in the camelCase editors use.
KEYS = ("select", "ignore", "unsafeFixes", "preview")


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool | None = None
    preview: bool | None = None

    def overrides(self) -> Overrides:
        return Overrides(select=self.select, ignore=self.ignore, unsafe_fixes=self.unsafe_fixes, preview=self.preview)

    def updated(self, raw: Any) -> tuple[Settings, list[str]]:
        """These settings with the keys present in `raw` replaced, and the problems found."""
        problems: list[str] = []
        table = _unwrap(raw)
        if table is None:
            return self, problems
        changes: dict[str, Any] = {}
        for key in ("select", "ignore"):
            if key not in table:
                continue
            if table[key] is None:  # unset: back to the project's configuration
                changes[key] = None if key == "select" else ()
                continue
            value = _selectors(table[key], key, problems)
            if value is not None:
                changes[key] = value
        for key, field_name in (("unsafeFixes", "unsafe_fixes"), ("preview", "preview")):
            if key not in table:
                continue
            value = table[key]
            if value is None or isinstance(value, bool):
                changes[field_name] = value
            else:
                problems.append(f"setting `{key}` must be true or false, got {value!r}")
        return replace(self, **changes), problems


def _unwrap(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        return None
    nested = raw.get("gpulint")
    if isinstance(nested, dict):
        return nested
    return raw if any(key in raw for key in KEYS) else None


def _selectors(value: Any, key: str, problems: list[str]) -> tuple[str, ...] | None:
    """A list of rule selectors (a comma-separated string is accepted too), validated."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        problems.append(f"setting `{key}` must be a list of rule codes or names, got {value!r}")
        return None
    selectors = tuple(item.strip() for item in value if item.strip())
    try:
        expand(selectors, f"setting `{key}`")
    except ConfigError as error:
        problems.append(str(error))
        return None
    return selectors
