"""A real editor on `gpulint server`: headless Neovim, its built-in LSP client started by
exactly the configuration snippet the README gives, opens a file with a finding, waits
for the diagnostic, applies the quick fix through its code action menu, and the buffer
must then read as `gpulint check --fix` writes the file.

Skipped where `nvim` is not installed (CI installs Debian's `neovim`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from .conftest import GPULINT, write

pytest.importorskip("pygls")

ROOT = Path(__file__).resolve().parents[1]
NVIM = shutil.which("nvim")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")]

GROWN = textwrap.dedent("""\
    import pandas as pd

    orders = pd.read_csv("orders.csv")
    top_orders = pd.DataFrame()
    for region, group in orders.groupby("region"):
        top_orders = pd.concat([top_orders, group.nlargest(3, "revenue")])
""")

#: Plays the user: waits for gpulint's diagnostic, puts the cursor on it, opens the code
#: action menu and picks the quick fix, then writes what the buffer holds.
DRIVER = textwrap.dedent("""\
    local target, result = os.getenv("GPULINT_TARGET"), os.getenv("GPULINT_RESULT")

    local function finish(status, text)
      local handle = assert(io.open(result, "w"))
      handle:write(status .. "\\n" .. (text or ""))
      handle:close()
      vim.cmd("qall!")
    end

    local function gpulint_diagnostics()
      local found = {}
      for _, diagnostic in ipairs(vim.diagnostic.get(0)) do
        if diagnostic.source == "gpulint" then table.insert(found, diagnostic) end
      end
      return found
    end

    local function main()
      vim.cmd("filetype on")
      vim.cmd("edit " .. vim.fn.fnameescape(target))
      if not vim.wait(90000, function() return #gpulint_diagnostics() > 0 end, 50) then
        return finish("no diagnostics")
      end
      local diagnostic = gpulint_diagnostics()[1]
      vim.ui.select = function(items, _, on_choice)
        for _, item in ipairs(items) do
          if item[2].title:find("Fix " .. diagnostic.code, 1, true) == 1 then return on_choice(item) end
        end
        on_choice(nil)
      end
      vim.api.nvim_win_set_cursor(0, { diagnostic.lnum + 1, diagnostic.col })
      local before = vim.api.nvim_buf_get_changedtick(0)
      vim.lsp.buf.code_action()
      if not vim.wait(30000, function() return vim.api.nvim_buf_get_changedtick(0) ~= before end, 50) then
        return finish("no edit " .. diagnostic.code)
      end
      local lines = vim.api.nvim_buf_get_lines(0, 0, -1, true)
      finish(string.format("ok %s %d %d", diagnostic.code, diagnostic.lnum, diagnostic.col),
             table.concat(lines, "\\n") .. "\\n")
    end

    local ok, error = pcall(main)
    if not ok then finish("error " .. tostring(error)) end
""")


def readme_snippet() -> str:
    """The Neovim configuration the README gives (the first Lua block of the editors section)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Editors (LSP)", 1)[1]
    match = re.search(r"```lua\n(.*?)```", section, re.DOTALL)
    assert match is not None, "the README's editors section has no Lua block for Neovim"
    return match.group(1)


def test_neovim_shows_the_finding_and_applies_the_quick_fix(tmp_path: Path, cli):
    target = write(tmp_path / "project" / "orders.py", GROWN)
    expected = write(tmp_path / "expected" / "orders.py", GROWN)
    cli("check", "--fix", str(expected))
    assert expected.read_text(encoding="utf-8") != GROWN

    snippet = write(tmp_path / "gpulint.lua", readme_snippet())
    driver = write(tmp_path / "driver.lua", DRIVER)
    result = tmp_path / "result.txt"
    env = {
        **os.environ,
        "GPULINT_TARGET": str(target),
        "GPULINT_RESULT": str(result),
        # the snippet runs `gpulint server`: the one installed with this Python
        "PATH": os.pathsep.join([str(Path(GPULINT).parent), os.environ.get("PATH", "")]),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    subprocess.run(
        [NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {snippet}", "-c", f"luafile {driver}"],
        cwd=target.parent,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=180,
    )

    status, _, text = result.read_text(encoding="utf-8").partition("\n")
    line = GROWN.splitlines().index('    top_orders = pd.concat([top_orders, group.nlargest(3, "revenue")])')
    assert status == f"ok GPU101 {line} 4", status
    assert text == expected.read_text(encoding="utf-8")
