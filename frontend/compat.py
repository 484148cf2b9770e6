"""TF's `tf.compat` string helpers: bytes <-> text as TF converts them (UTF-8 by default)."""
from __future__ import annotations

import os

from .export import tf_export


@tf_export("compat.as_bytes")
def as_bytes(bytes_or_text, encoding="utf-8"):
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


@tf_export("compat.as_text", "compat.as_str")
def as_text(bytes_or_text, encoding="utf-8"):
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


@tf_export("compat.as_str_any")
def as_str_any(value, encoding="utf-8"):
    """A str of `value`: bytes decoded, anything else through str()."""
    return as_text(value, encoding) if isinstance(value, bytes) else str(value)


@tf_export("compat.path_to_str")
def path_to_str(path):
    """A path-like object's str; anything else unchanged."""
    return os.fspath(path) if isinstance(path, os.PathLike) else path
