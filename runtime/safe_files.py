"""Files that survive a kill and reads that trust nothing: the I/O under checkpoints and
SavedModels.

Writes go to a temporary file in the target's folder (named with the writer's pid, so a later
writer can tell a dead writer's leftovers from a live one's), are fsynced, renamed over the
target, and the folder is fsynced so the rename itself survives a power cut. Files get TF's
mode (0666 minus the umask) instead of `mkstemp`'s 0600.

Reads open without following into a device or FIFO (`O_NONBLOCK` + a `fstat` check: only
regular files), and never read more than a caller's bound, so a file swapped for `/dev/zero`,
a FIFO or a huge sparse file fails at once instead of hanging or exhausting memory. JSON is
checked for nesting depth before parsing and for duplicate keys while parsing.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import tempfile

import numpy as np

from ..ir.errors import DataLossError

MAX_JSON_DEPTH = 64
_TEMP = re.compile(r"\.(\d+)\.[^.]*\.tmp$")   # `<name>.<pid>.<random>.tmp`


def _umask() -> int:
    """The process umask, read without changing it (it is process-wide, so toggling it to
    read it is not safe while other threads create files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022


def file_mode() -> int:
    """0666 minus the umask: what TF and `open()` give a new file (`mkstemp` gives 0600)."""
    return 0o666 & ~_umask()


def dir_mode() -> int:
    """0777 minus the umask: what `mkdir` gives a new folder (`mkdtemp` gives 0700)."""
    return 0o777 & ~_umask()


def fsync_dir(folder: str) -> None:
    """Make a rename or unlink in `folder` durable."""
    fd = os.open(folder or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temp_prefix(path: str) -> str:
    return f"{os.path.basename(path)}.{os.getpid()}."


def atomic_write(path: str, data) -> None:
    """Write `data` (bytes, or a list of buffers written in order) to `path` so that readers
    see the old file or the new one, never a mix, even after a kill or a power cut."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=temp_prefix(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), file_mode())
            for chunk in [data] if isinstance(data, (bytes, bytearray)) else data:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(folder)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # someone else's live process
        return True
    return True


def remove_stale_temps(folder: str, prefixes) -> list:
    """Delete the temporary files (and folders) in `folder` that start with one of
    `prefixes` and were left by writers that no longer run; returns their names."""
    removed = []
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return removed
    for name in names:
        m = _TEMP.search(name)
        if m is None or not name.startswith(tuple(prefixes)) or _alive(int(m.group(1))):
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
            removed.append(name)
    return removed


@contextlib.contextmanager
def open_regular(path: str, limit: int, what: str = "file"):
    """A binary file object on `path` and its size, if `path` is a regular file of at most
    `limit` bytes; DataLossError naming it otherwise. Opening with O_NONBLOCK means a FIFO
    cannot block the open; the fstat then refuses it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DataLossError(None, None, f"{what} {path} is not a regular file")
        if st.st_size > limit:
            raise DataLossError(None, None, f"{what} {path} is {st.st_size} bytes, more than "
                                            f"the {limit} this reader accepts")
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with f:
        yield f, st.st_size


def read_regular(path: str, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file `path` (at most `limit` of them); DataLossError else."""
    with open_regular(path, limit, what) as (f, size):
        data = f.read(size)
    if len(data) != size:
        raise DataLossError(None, None, f"{what} {path} changed size while being read")
    return data


def resolve_inside(folder: str, name) -> str:
    """`folder/name` for a relative path read from a file, ValueError (saying why) unless it
    stays inside `folder`: no absolute path, no `..`, no symlink leading out."""
    if not isinstance(name, str) or not name or os.path.isabs(name) or "\0" in name or \
            ".." in re.split(r"[\\/]", name):
        raise ValueError(f"{name!r} is not a relative path inside {folder or '.'}")
    path = os.path.join(folder, name)
    real, root = os.path.realpath(path), os.path.realpath(folder or ".")
    if os.path.commonpath([real, root]) != root:
        raise ValueError(f"{name!r} resolves to {real}, outside {folder or '.'}")
    return path


def _reject_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"duplicate key {k!r}")
        seen[k] = v
    return seen


def json_depth(text: str) -> int:
    """The deepest bracket nesting of JSON text (brackets inside strings not counted)."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    codes = np.frombuffer(bare.encode("ascii", "replace"), np.uint8)
    steps = (np.isin(codes, (ord("["), ord("{"))).astype(np.int64)
             - np.isin(codes, (ord("]"), ord("}"))))
    return int(np.cumsum(steps).max(initial=0))


def loads_json(data: bytes, where: str, max_depth: int = MAX_JSON_DEPTH):
    """Parse JSON from an untrusted file: UTF-8, at most `max_depth` levels deep, no duplicate
    keys; DataLossError naming `where` otherwise."""
    try:
        text = data.decode("utf-8")
        depth = json_depth(text)
        if depth > max_depth:
            raise ValueError(f"nested {depth} levels deep, more than {max_depth}")
        return json.loads(text, object_pairs_hook=_reject_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise DataLossError(None, None, f"{where} is not valid JSON: {e}") from None
