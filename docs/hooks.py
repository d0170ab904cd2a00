"""MkDocs hook: adds the pages gpulint generates (the rule table, one page per rule with its
measured speedups and plot, the benchmark plot) to the hand-written pages, and fills the
benchmark table into the page that asks for it. Everything comes from `gpulint.docs`."""

from __future__ import annotations

from mkdocs.structure.files import File, Files

from gpulint import docs
from gpulint.registry import DOCS_HOME

#: Where a hand-written page wants the committed benchmark table.
BENCH_TABLE = "<!-- gpulint:bench-table -->"


def on_config(config):
    config.site_url = DOCS_HOME
    config.nav = [_with_rule_pages(entry) for entry in config.nav or []]
    return config


def _with_rule_pages(entry):
    """The nav entry of the rule table, made a section listing every rule's page too."""
    if isinstance(entry, dict) and list(entry.values()) == [docs.RULES_INDEX]:
        title = next(iter(entry))
        pages = [{f"{code} {name}": path} for code, name, path in docs.rule_pages()]
        return {title: [{"All rules": docs.RULES_INDEX}, *pages]}
    return entry


def on_files(files: Files, config) -> Files:
    for path, content in docs.site_files().items():
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    if BENCH_TABLE in markdown:
        markdown = markdown.replace(BENCH_TABLE, docs.site_bench_block())
    return markdown
