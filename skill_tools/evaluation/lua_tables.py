"""A Lua module as a config: ``local M = {}``, ``M.model = { cuda_graph_impl = "local", … }``,
``return M``. Launchers that read their overrides from Lua return one table of sections; read as the
braced config it is (:func:`envelopes.braced_to_yaml`). Text only; nothing is run.
"""

from __future__ import annotations

import re

_LUA_TABLE = re.compile(r"^\s*local\s+([A-Za-z_]\w*)\s*=\s*\{\s*\}\s*;?\s*$", re.M)


def lua_module(body: str) -> tuple[str, str | None]:
    """A Lua module that returns its table (``local M = {}`` … ``M.model = { … }`` … ``return M``): the
    same braced config with ``--`` comments blanked, the table's name dropped from its keys, and the
    ``local``/``return`` lines gone; other text unchanged (and None)."""
    m = _LUA_TABLE.search(body)
    if m is None or not re.search(rf"^\s*return\s+{m.group(1)}\s*$", body, re.M):
        return body, None
    name = m.group(1)
    out = []
    for line in body.split("\n"):
        line = re.sub(r"(?:^|\s)--.*$", "", line)
        if re.match(rf"^\s*(?:local\s+{name}\s*=|return\s+{name}\s*$)", line):
            line = ""
        out.append(re.sub(rf"^(\s*){name}\.", r"\1", line))
    return "\n".join(out), name


def is_lua_module(text: str) -> bool:
    return lua_module(text)[1] is not None
