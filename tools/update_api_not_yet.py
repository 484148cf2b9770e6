"""Rewrite `api_omissions.NOT_YET` and README's "Not provided" section from what flowjit
provides now: `python tools/update_api_not_yet.py` (with flowjit importable)."""
from __future__ import annotations

import os
import re
import textwrap

from flowjit import api_omissions
from flowjit.api_omissions import ROOT, count_table, missing, not_provided_section

BEGIN, END = "# BEGIN NOT_YET\n", "# END NOT_YET\n"


def not_yet_block() -> str:
    lines = ["NOT_YET = {\n"]
    for ns in api_omissions.NAMESPACES:
        names = sorted(n for n in missing(ns) if api_omissions.qualified(ns, n)
                       not in api_omissions.OMITTED)
        if not names:
            continue
        body = textwrap.fill(" ".join(names), 88, initial_indent=" " * 8,
                             subsequent_indent=" " * 8)
        lines.append(f'    "{ns}": """\n{body}\n""".split(),\n')
    lines.append("}\n")
    return "".join(lines)


def _replace(path, pattern, text):
    with open(path) as f:
        src = f.read()
    new, n = re.subn(pattern, lambda m: text, src, flags=re.S)
    if n != 1:
        raise SystemExit(f"{path}: the section to rewrite was not found")
    with open(path, "w") as f:
        f.write(new)


def main():
    _replace(os.path.join(ROOT, "api_omissions.py"), re.escape(BEGIN) + ".*?" + re.escape(END),
             BEGIN + not_yet_block() + END)
    import importlib
    importlib.reload(api_omissions)
    _replace(os.path.join(ROOT, "README.md"), r"<!-- BEGIN NOT PROVIDED -->.*?"
             r"<!-- END NOT PROVIDED -->", not_provided_section())
    print(count_table())


if __name__ == "__main__":
    main()
