"""Re-sign a SavedModel after a test edited its files, as a forger would: the checksums then
match, so the test reaches the checks behind them (manifest against modules, types, paths)."""
import json
import os

import google_crc32c

from flowjit.frontend.state import saved_model_files
from flowjit.runtime import safetensors


def resign(folder, manifest=None):
    """Recompute every checksum of the SavedModel in `folder` (with `manifest`, a dict, written
    in place of its manifest)."""
    path = os.path.join(folder, saved_model_files.MANIFEST)
    if manifest is None:
        manifest = json.load(open(path))
    for rel in manifest["checksums"]:
        file = os.path.join(folder, rel)
        if not os.path.isfile(file):
            continue
        if rel.endswith(".safetensors"):
            meta = safetensors.read(file)[1]
            manifest["checksums"][rel] = int(meta[safetensors.HEADER_CRC])
        else:
            manifest["checksums"][rel] = google_crc32c.value(open(file, "rb").read())
    manifest["checksum"] = saved_model_files.manifest_checksum(manifest)
    with open(path, "w") as f:
        json.dump(manifest, f)
