"""Environment variables exported by shells other than POSIX sh, read as the ``export VAR=value``
they mean: answers arrive as fish configs (``set -gx VAR value``), csh scripts (``setenv VAR value``)
and PowerShell transcripts (``$env:VAR = "value"``), and the required companions they export
(``NCCL_GRAPH_REGISTER=0``) count like any other.
"""

from __future__ import annotations

import re
import shlex

#: An environment variable exported by another shell: fish ``set -gx VAR value``, csh ``setenv VAR
#: value``, PowerShell ``$env:VAR = "value"``; read as the POSIX ``export VAR=value`` it means.
_OTHER_SHELL_ENV = re.compile(r"^(?:set\s+(?:-[A-Za-z]*x[A-Za-z]*|--export)(?:\s+-[A-Za-z]+|\s+--[a-z]+)*\s+"
                              r"|setenv\s+|\$env:)([A-Z][A-Z0-9_]{2,})(?:\s*=\s*|\s+)(\S.*?)\s*(?:\s#.*)?$")


def posix_env(line: str) -> str:
    m = _OTHER_SHELL_ENV.match(line)
    if not m or (line.startswith("$env:") and "=" not in line):
        return line
    try:
        words = shlex.split(m.group(2), comments=True)
    except ValueError:
        return line
    return f"export {m.group(1)}={shlex.quote(' '.join(words))}" if words else line
