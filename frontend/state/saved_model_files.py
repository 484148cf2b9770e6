"""What a SavedModel loader checks before it trusts a file: nothing is taken on faith.

The manifest is a bounded regular file of JSON (depth-limited, no duplicate keys) whose format
version this build reads (`flowjit.saved_model/N`; a newer N is refused with the supported
range). From version 2 on it carries a CRC32C of itself and of every file it names
(`checksums`: the bytes of each df module and StableHLO artifact; for a safetensors file the
CRC32C of its header, which covers its per-tensor checksums). Every path is resolved inside the
SavedModel folder (no absolute paths, no `..`, no symlink out) and read only if it is a
regular file of bounded size, so a FIFO, a device or a huge file fails at once.
"""
from __future__ import annotations

import json
import os
import re

import google_crc32c

from ...ir.errors import DataLossError, UnimplementedError
from ...runtime import safe_files, safetensors

MANIFEST = "saved_model.json"
FORMAT = "flowjit.saved_model/"
VERSION = 2             # 2: checksums of the manifest and of every file it names
OLDEST_VERSION = 1
_MAX_MANIFEST_BYTES = 64 << 20
_MAX_ARTIFACT_BYTES = 4 << 30
_SECTIONS = {"root": dict, "functions": dict, "signatures": dict}


def corrupt(folder, why):
    raise DataLossError(None, None, f"SavedModel at {folder} is damaged: {why}")


def manifest_checksum(manifest: dict) -> int:
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    return google_crc32c.value(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())


def resolve(folder, rel) -> str:
    try:
        return safe_files.resolve_inside(folder, rel)
    except ValueError as e:
        corrupt(folder, f"the file {e}")


def read_manifest(folder) -> tuple[dict, int]:
    """(manifest, format version) of the SavedModel in `folder`, checked."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.lexists(path):   # TF's class and message
        raise OSError(f"SavedModel file does not exist at: {path}")
    data = safe_files.read_regular(resolve(folder, MANIFEST), _MAX_MANIFEST_BYTES,
                                   "SavedModel manifest")
    manifest = safe_files.loads_json(data, path)
    fmt = manifest.get("format") if isinstance(manifest, dict) else None
    m = re.fullmatch(re.escape(FORMAT) + r"([0-9]{1,6})", fmt) if isinstance(fmt, str) else None
    if m is None:
        corrupt(folder, f"{MANIFEST} is not a flowjit SavedModel manifest")
    version = int(m.group(1))
    if not OLDEST_VERSION <= version <= VERSION:
        raise UnimplementedError(None, None, f"SavedModel at {folder} has format version "
                                             f"{version}; this flowjit reads versions "
                                             f"{OLDEST_VERSION} to {VERSION}")
    if version >= 2 and manifest.get("checksum") != manifest_checksum(manifest):
        corrupt(folder, f"checksum mismatch in {MANIFEST}")
    for key, kind in _SECTIONS.items():
        if not isinstance(manifest.get(key), kind):
            corrupt(folder, f"{MANIFEST} has no valid {key!r} section")
    if version >= 2 and not (isinstance(manifest.get("checksums"), dict) and all(
            type(v) is int for v in manifest["checksums"].values())):
        corrupt(folder, f"{MANIFEST} has no valid 'checksums' section")
    return manifest, version


class Files:
    """Reads the files a manifest names, each checked against its checksum (version 2)."""

    def __init__(self, folder, manifest, version):
        self.folder = folder
        self.checksums = manifest.get("checksums") if version >= 2 else None

    def _expected(self, rel):
        if self.checksums is None:
            return None
        if rel not in self.checksums:
            corrupt(self.folder, f"{rel} has no checksum in {MANIFEST}")
        return self.checksums[rel]

    def read(self, rel) -> bytes:
        path = resolve(self.folder, rel)
        try:
            data = safe_files.read_regular(path, _MAX_ARTIFACT_BYTES, "SavedModel file")
        except FileNotFoundError:
            corrupt(self.folder, f"{rel} is missing")
        expected = self._expected(rel)
        if expected is not None and google_crc32c.value(data) != expected:
            corrupt(self.folder, f"checksum mismatch in {rel}")
        return data

    def tensors(self, rel, reader) -> dict:
        """The tensors of a safetensors file read by `reader(path) -> (tensors, metadata)`."""
        path = resolve(self.folder, rel)
        if not os.path.lexists(path):
            corrupt(self.folder, f"{rel} is missing")
        tensors, meta = reader(path)
        expected = self._expected(rel)
        if expected is not None and meta.get(safetensors.HEADER_CRC) != str(expected):
            corrupt(self.folder, f"{rel} is not the file this manifest was saved with "
                                 f"(checksum mismatch)")
        return tensors
