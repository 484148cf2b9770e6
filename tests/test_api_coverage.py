"""Every public name of TF 2.21's namespaces in scope is provided by flowjit, omitted on
purpose, or listed as not yet done (api_omissions.py); provided functions take TF's
parameters in TF's order."""
from __future__ import annotations

import inspect
import os
import re

import pytest

from flowjit import api_omissions as A

API = A.tf_api()


def _unlisted(ns):
    return [n for n in A.missing(ns) if A.qualified(ns, n) not in A.OMITTED
            and n not in A.NOT_YET.get(ns, ())]


@pytest.mark.parametrize("ns", A.NAMESPACES, ids=lambda ns: ns or "tf")
def test_every_name_is_provided_or_listed(ns):
    assert not _unlisted(ns), (
        f"tf{'.' + ns if ns else ''}: neither provided nor in api_omissions "
        f"(OMITTED with a reason, or NOT_YET): {_unlisted(ns)}")


def test_no_stale_entries():
    listed = [(ns, n) for ns, names in A.NOT_YET.items() for n in names]
    listed += [(q.rpartition(".")[0], q.rpartition(".")[2]) for q in A.OMITTED]
    gone = {(ns, n) for ns in A.NAMESPACES for n in A.missing(ns)}
    stale = [A.qualified(ns, n) for ns, n in listed if (ns, n) not in gone]
    assert not stale, f"listed in api_omissions but provided, or not TF's: {stale}"


def test_readme_section_is_current():
    with open(os.path.join(A.ROOT, "README.md")) as f:
        readme = f.read()
    section = re.search(r"<!-- BEGIN NOT PROVIDED -->.*?<!-- END NOT PROVIDED -->", readme, re.S)
    assert section and section.group(0) == A.not_provided_section(), (
        "README's 'Not provided' section is out of date: run tools/update_api_not_yet.py")


def _params(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [{p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
            for p in sig.parameters.values()]


def _signature_mismatch(tf_params, ours):
    """Why `ours` does not start with TF's parameters in TF's order (a parameter of ours after
    them is an extension; TF's `**kwargs` accepts any keywords), or None."""
    want = [p for p in tf_params if not p.startswith("**")]
    if ours[:len(want)] == want:
        return None
    lacking = [p for p in want if p not in ours]
    return f"lacks {lacking}" if lacking else "has TF's parameters in another order"


def _signature_mismatches():
    out = []
    for ns in A.NAMESPACES:
        mod = A.namespace_module(ns)
        for name, entry in API[ns].items():
            if entry[0] != "function" or len(entry) < 2 or mod is None \
                    or not hasattr(mod, name):
                continue
            ours = _params(getattr(mod, name))
            why = ours is not None and _signature_mismatch([p for p, _ in entry[1]], ours)
            if why:
                out.append(f"tf.{A.qualified(ns, name)} {why}: TF "
                           f"({', '.join(p for p, _ in entry[1])}), flowjit ({', '.join(ours)})")
    return out


def test_signatures_take_tfs_parameters():
    mismatches = _signature_mismatches()
    assert not mismatches, "\n".join(mismatches)
