"""`tf.summary`: TensorBoard event files, written eagerly or from inside a `tf.function`.

The records are TF 2's: one tensor per value with the plugin's metadata (`scalars`,
`histograms`, `text`, `images`), built by TensorBoard's own TF-free summary builders and written
by its event-file writer (the `tensorboard` package, the `summary` extra), so TensorBoard reads
them as it reads TF's. Inside a `tf.function` a summary is staged as TF stages it: a stateful
host call in the graph that writes when the function runs, with the step read at that moment
(under `jit_compile=True` it is refused, as XLA refuses TF's summary ops).

The default writer, step and recording condition are per thread, as in TF.
"""
from __future__ import annotations

import contextlib
import os
import struct
import threading
import time
import zlib

import numpy as np

from ..ir import dtypes as D
from ..ir.errors import InvalidArgumentError
from .function.context import context
from .export import tf_export
from .function.func_graph import current as _current_graph


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.record_if = True
        self.tracing = None     # trace_on's settings while a trace is requested


_state = _State()


def _tensorboard():
    """TensorBoard's writer and builders, imported when a writer is first made (the
    `summary` extra); `import flowjit` never needs them."""
    try:
        from tensorboard.compat.proto import summary_pb2
        from tensorboard.plugins.histogram import summary_v2 as histogram
        from tensorboard.plugins.image import metadata as image_metadata
        from tensorboard.plugins.scalar import summary_v2 as scalar
        from tensorboard.plugins.text import summary_v2 as text
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
        from tensorboard.util import tensor_util
    except ImportError as e:
        raise ImportError("tf.summary writes TensorBoard event files with the `tensorboard` "
                          "package: pip install 'flowjit[summary]'") from e
    return {"summary_pb2": summary_pb2, "histogram": histogram, "scalar": scalar,
            "text": text, "image_metadata": image_metadata, "writer": EventFileWriter,
            "tensor_util": tensor_util}


@tf_export("summary.SummaryWriter")
class SummaryWriter:
    """A destination for summaries (TF's abstract SummaryWriter)."""

    def as_default(self, step=None):
        """Make this the default writer inside the `with` block (and `step` the default
        step, when given)."""
        return _default_writer(self, step)

    def set_as_default(self, step=None):
        _state.writer = self
        if step is not None:
            _state.step = step

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass

    def _write(self, summary, step: int):
        pass

    def _write_event(self, event):
        pass


class _FileWriter(SummaryWriter):
    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        tb = _tensorboard()
        self._tb = tb
        os.makedirs(logdir, exist_ok=True)
        self._writer = tb["writer"](logdir, max_queue_size=max_queue or 10,
                                    flush_secs=(flush_millis or 120_000) / 1000,
                                    filename_suffix=filename_suffix or ".v2")
        self._lock = threading.Lock()
        self._closed = False
        self.logdir = logdir

    def _write(self, summary, step):
        from tensorboard.compat.proto import event_pb2
        self._write_event(event_pb2.Event(wall_time=time.time(), step=int(step),
                                          summary=summary))

    def _write_event(self, event):
        with self._lock:
            if not self._closed:
                self._writer.add_event(event)

    def flush(self):
        with self._lock:
            if not self._closed:
                self._writer.flush()

    def close(self):
        with self._lock:
            if not self._closed:
                self._writer.close()
                self._closed = True


class _NoopWriter(SummaryWriter):
    pass


@tf_export("summary.create_file_writer")
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None, experimental_trackable=False, experimental_mesh=None):
    """A writer of TensorBoard event files into `logdir` (created if missing)."""
    if logdir is None:
        return _NoopWriter()
    logdir = os.fspath(logdir.numpy().decode() if hasattr(logdir, "numpy") else logdir)
    return _FileWriter(logdir, max_queue, flush_millis, filename_suffix)


@tf_export("summary.create_noop_writer")
def create_noop_writer():
    return _NoopWriter()


@contextlib.contextmanager
def _default_writer(writer, step):
    saved = _state.writer, _state.step
    _state.writer = writer
    if step is not None:
        _state.step = step
    try:
        yield writer
    finally:
        writer.flush()
        _state.writer, _state.step = saved


@tf_export("summary.flush")
def flush(writer=None, name=None):
    (writer or _state.writer or _NoopWriter()).flush()


@tf_export("summary.record_if")
@contextlib.contextmanager
def record_if(condition):
    """Record summaries inside the block only while `condition` (a bool, a boolean tensor,
    or a callable returning one, evaluated at each summary) holds."""
    saved = _state.record_if
    _state.record_if = condition
    try:
        yield
    finally:
        _state.record_if = saved


def _recording_condition():
    cond = _state.record_if
    return cond() if callable(cond) else cond


@tf_export("summary.should_record_summaries")
def should_record_summaries():
    from .ops.array import constant
    if _state.writer is None or isinstance(_state.writer, _NoopWriter):
        return constant(False)
    cond = _recording_condition()
    return cond if hasattr(cond, "dtype") else constant(bool(cond))


@tf_export("summary.experimental.get_step")
def get_step():
    return _state.step


@tf_export("summary.experimental.set_step")
def set_step(step):
    _state.step = step


@tf_export("summary.experimental.summary_scope")
@contextlib.contextmanager
def summary_scope(name, default_name=None, values=None):
    """The tag (the name scope's path plus `name`) and a scope for the summary's ops."""
    name = name or default_name
    from .function.func_graph import name_scope
    tag = _tag(name)
    with name_scope(name.replace("/", "_")) as scope:
        yield tag, scope


# --- writing ------------------------------------------------------------------------

def _tag(name: str) -> str:
    return "/".join(list(context().name_scopes) + [name])


def _emit(make_summary, name, data, step, inputs_to_numpy=None):
    """Write `make_summary(tag, data as NumPy)` at `step`: now when eager, or staged in the
    graph being traced (a stateful host call that writes when the function runs). Returns
    TF's result: a boolean tensor saying whether it was written."""
    from .ops.array import constant
    from .ops.script import numpy_function
    writer = _state.writer
    if writer is None or isinstance(writer, _NoopWriter):
        return constant(False)
    step = _state.step if step is None else step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` "
                         "argument or through tf.summary.experimental.set_step()")
    tag = _tag(name)
    cond = _recording_condition()
    if _current_graph() is None:
        if not bool(_as_numpy(cond)):
            return constant(False)
        writer._write(make_summary(tag, _as_numpy(data)), int(_as_numpy(step)))
        return constant(True)

    def write(value, step_value, cond_value):
        if not bool(cond_value):
            return np.asarray(False)
        writer._write(make_summary(tag, value), int(step_value))
        return np.asarray(True)
    from .eager.dispatch import convert_to_tensor
    return numpy_function(write, [convert_to_tensor(data), convert_to_tensor(step),
                                  convert_to_tensor(cond)], D.bool_)


def _as_numpy(x):
    if hasattr(x, "numpy"):
        return x.numpy()
    if hasattr(x, "read_value"):
        return x.read_value().numpy()
    return np.asarray(x)


def _tb():
    return _tensorboard()


@tf_export("summary.scalar")
def scalar(name, data, step=None, description=None):
    """Write a scalar (TensorBoard's Scalars dashboard)."""
    def make(tag, value):
        return _tb()["scalar"].scalar_pb(tag, np.asarray(value, np.float32), description)
    return _emit(make, name, data, step)


@tf_export("summary.histogram")
def histogram(name, data, step=None, buckets=None, description=None):
    """Write a histogram of `data`'s values (30 buckets unless `buckets`), as TF's."""
    def make(tag, value):
        return _tb()["histogram"].histogram_pb(tag, np.asarray(value, np.float64),
                                               buckets=buckets, description=description)
    return _emit(make, name, data, step)


@tf_export("summary.text")
def text(name, data, step=None, description=None):
    """Write a string tensor (TensorBoard's Text dashboard)."""
    def make(tag, value):
        value = np.asarray(value)
        if value.dtype.kind not in "SUO":
            raise InvalidArgumentError(None, "text", f"tf.summary.text: data must be a string "
                                       f"tensor, got {value.dtype}")
        return _tb()["text"].text_pb(tag, value.astype(object), description)
    return _emit(make, name, data, step)


@tf_export("summary.image")
def image(name, data, step=None, max_outputs=3, description=None):
    """Write up to `max_outputs` images of a [k, h, w, c] batch (c in 1, 3, 4; floats in
    [0, 1] or uint8) as PNGs (TensorBoard's Images dashboard)."""
    def make(tag, value):
        value = np.asarray(value)
        if value.ndim != 4 or value.shape[-1] not in (1, 3, 4):
            raise InvalidArgumentError(None, "image", f"tf.summary.image: data must have shape "
                                       f"[k, h, w, c] with c in (1, 3, 4), got {value.shape}")
        if value.dtype != np.uint8:
            # TF's convert_image_dtype(saturate=True): scale by 255.5 and truncate
            value = np.clip(np.floor(value.astype(np.float64) * 255.5), 0, 255).astype(np.uint8)
        tb = _tb()
        meta = tb["image_metadata"].create_summary_metadata(
            display_name=None, description=description or "")
        h, w = value.shape[1:3]
        strings = [str(w).encode(), str(h).encode()] + [
            _png(img) for img in value[:max_outputs]]
        proto = tb["tensor_util"].make_tensor_proto(np.array(strings, dtype=object))
        pb2 = tb["summary_pb2"]
        return pb2.Summary(value=[pb2.Summary.Value(tag=tag, metadata=meta, tensor=proto)])
    return _emit(make, name, data, step)


@tf_export("summary.write")
def write(tag, tensor, step=None, metadata=None, name=None):
    """Write `tensor` under `tag` with the given SummaryMetadata (or none)."""
    def make(full_tag, value):
        tb = _tb()
        pb2 = tb["summary_pb2"]
        meta = metadata if metadata is not None else pb2.SummaryMetadata()
        if isinstance(meta, bytes):
            meta = pb2.SummaryMetadata.FromString(meta)
        proto = tb["tensor_util"].make_tensor_proto(np.asarray(value))
        return pb2.Summary(value=[pb2.Summary.Value(tag=full_tag, metadata=meta,
                                                    tensor=proto)])
    return _emit(make, tag, tensor, step)


def _png(img: np.ndarray) -> bytes:
    """An 8-bit PNG of an [h, w, c] uint8 image (grey, RGB or RGBA), unfiltered rows."""
    h, w, c = img.shape
    color_type = {1: 0, 3: 2, 4: 6}[c]
    raw = b"".join(b"\x00" + img[row].tobytes() for row in range(h))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


# --- graph export ---------------------------------------------------------------------

@tf_export("summary.trace_on")
def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Record the graphs of the functions traced from now on, for `trace_export`."""
    _state.tracing = {"graph": graph, "graphs": []}


@tf_export("summary.trace_off")
def trace_off():
    _state.tracing = None


def tracing_requested() -> bool:
    return _state.tracing is not None and _state.tracing["graph"]


def record_traced_graph(function_name: str, graph) -> None:
    """Called by `tf.function` for each new trace while `trace_on` is active."""
    if tracing_requested():
        _state.tracing["graphs"].append((function_name, graph))


@tf_export("summary.trace_export")
def trace_export(name, step=None, profiler_outdir=None):
    """Write the graphs traced since `trace_on` as one GraphDef event (TensorBoard's Graphs
    dashboard; each function's nodes under its name, flowjit's op names as op types), and stop
    recording."""
    tracing, _state.tracing = _state.tracing, None
    writer = _state.writer
    if tracing is None or writer is None or isinstance(writer, _NoopWriter):
        return
    step = _state.step if step is None else step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` "
                         "argument or through tf.summary.experimental.set_step()")
    from tensorboard.compat.proto import event_pb2, graph_pb2
    from .function.graph_view import graph_def
    proto = graph_pb2.GraphDef()
    for fn_name, graph in tracing["graphs"]:
        for node in graph_def(graph).node:
            nd = proto.node.add(name=f"{fn_name}/{node.name}", op=node.op)
            nd.input.extend(f"^{fn_name}/{i[1:]}" if i.startswith("^") else f"{fn_name}/{i}"
                            for i in node.input)
            for key, value in node.attr.items():
                nd.attr[key].s = str(value).encode()
    writer._write_event(event_pb2.Event(wall_time=time.time(), step=int(_as_numpy(step)),
                                        graph_def=proto.SerializeToString()))
