"""`tf.device`, `tf.config.list_physical_devices` / `list_logical_devices` and
`set_logical_device_configuration`.

Single-device ops run on the first device jax gives, so `tf.device` validates its device
string as TF does (TF's errors for a malformed one) and places nothing differently; meshes
(`experimental.dtensor`, `distribute`) place across devices. The device lists come from jax
(no device kind is assumed). Splitting the host into N logical CPUs sets XLA's host device
count, which only takes effect before the backend starts, hence TF's RuntimeError after.
"""
from __future__ import annotations

import contextlib
from typing import NamedTuple

from ...runtime import spmd, xla
from ..export import tf_export


class PhysicalDevice(NamedTuple):
    """TF's `tf.config.PhysicalDevice`."""
    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """TF's `tf.config.LogicalDevice`."""
    name: str
    device_type: str


class LogicalDeviceConfiguration(NamedTuple):
    """TF's `tf.config.LogicalDeviceConfiguration`: one logical device of a physical one."""
    memory_limit: int | None = None
    experimental_priority: int | None = None
    experimental_device_ordinal: int | None = None


# Device types TF accepts in a short spec ("gpu:0") even where none is present.
_KNOWN_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})
_SCOPED_FIELDS = ("job", "replica", "task")


def _device_types() -> list:
    return list(dict.fromkeys(platform.upper() for platform, _ in xla.platform_devices()))


def parse_device_spec(spec: str, types=None) -> dict:
    """The fields of a device string ("/job:w/replica:0/task:1/device:GPU:0", "CPU:0", ...);
    raises ValueError for what TF's DeviceSpec rejects. A short spec names one of `types`
    (default: TF's known types and those of the present devices)."""
    fields = {}
    types = _KNOWN_TYPES | set(_device_types()) if types is None else types
    for part in spec.split("/"):
        if not part:
            continue
        pieces = part.split(":")
        head = pieces[0]
        if len(pieces) == 2 and head in _SCOPED_FIELDS:
            fields[head] = pieces[1] if head == "job" else int(pieces[1])
        elif len(pieces) in (1, 2) and head.upper() in types or \
                len(pieces) == 3 and head == "device":
            if "device_type" in fields:
                raise ValueError(f"Multiple device types are not allowed while parsing the "
                                 f"device spec: {spec}.")
            kind, index = (pieces[1], pieces[2]) if head == "device" else \
                (head.upper(), pieces[1] if len(pieces) == 2 else "*")
            fields["device_type"] = kind
            if index != "*":
                fields["device_index"] = int(index)
        else:
            raise ValueError(f"Unknown attribute '{head}' is encountered while parsing the "
                             f"device spec: '{spec}'.")
    return fields


# TF's class is named DeviceSpecV2 (the name its errors print).
@tf_export("DeviceSpec")
class DeviceSpecV2:
    """TF's `tf.DeviceSpec`: an immutable (job, replica, task, device_type, device_index)."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_string")

    def __init__(self, job=None, replica=None, task=None, device_type=None,
                 device_index=None):
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        self._device_type = device_type.upper() if device_type in ("cpu", "gpu") else \
            None if device_type is None else str(device_type)
        self._device_index = None if device_index is None else int(device_index)
        self._string = "".join(f"/{field}:{value}" for field, value in (
            ("job", self._job), ("replica", self._replica), ("task", self._task))
            if value is not None)
        if self._device_type is not None:
            index = "*" if self._device_index is None else self._device_index
            self._string += f"/device:{self._device_type}:{index}"

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    def _fields(self) -> dict:
        return {"job": self._job, "replica": self._replica, "task": self._task,
                "device_type": self._device_type, "device_index": self._device_index}

    @classmethod
    def from_string(cls, spec):
        """The spec a device string names ("/job:ps/task:1/device:GPU:0", "/cpu:0")."""
        return cls(**parse_device_spec(spec or "", _KNOWN_TYPES))

    def parse_from_string(self, spec):
        """A new spec from `spec` alone (TF 2's specs are immutable)."""
        return self.from_string(spec)

    def replace(self, **kwargs):
        """A copy with the given fields replaced."""
        return type(self)(**{**self._fields(), **kwargs})

    def make_merged_spec(self, dev):
        """A copy with the fields `dev` sets taken from `dev`."""
        return type(self)(**{k: v if v is not None else getattr(self, k)
                             for k, v in dev._fields().items()})

    def to_string(self) -> str:
        return self._string

    def __eq__(self, other):
        return isinstance(other, DeviceSpecV2) and self._string == other._string

    def __hash__(self):
        return hash(self._string)

    def __repr__(self):
        return "<DeviceSpec(" + ", ".join(f"{k}={v}" for k, v in self._fields().items()) + ")>"


@contextlib.contextmanager
def _no_placement():
    yield


def device(device_name):
    """TF's `tf.device`: a scope naming a device; on flowjit's single device it only checks
    the name."""
    if isinstance(device_name, DeviceSpecV2):
        device_name = device_name.to_string()
    if device_name is not None:
        if not isinstance(device_name, str):
            raise ValueError(f"Expecting a string device name. Got "
                             f"{type(device_name)}({device_name})")
        parse_device_spec(device_name)
    return _no_placement()


def _devices(device_type, prefix, cls, platforms):
    wanted = None if device_type is None else device_type.upper()
    counts: dict = {}
    out = []
    for platform, _ in platforms:
        kind = platform.upper()
        index = counts[kind] = counts.get(kind, -1) + 1
        if wanted is None or wanted == kind:
            out.append(cls(f"{prefix}{kind}:{index}", kind))
    return out


def list_physical_devices(device_type=None):
    """As TF, the host is one physical CPU however many logical devices it is split into;
    listing only CPUs does not start the backend, so a split may still follow."""
    host = [("cpu", 0)]
    if device_type is not None and device_type.upper() == "CPU":
        return _devices(device_type, "/physical_device:", PhysicalDevice, host)
    accelerators = [d for d in xla.platform_devices() if d[0] != "cpu"]
    return _devices(device_type, "/physical_device:", PhysicalDevice, host + accelerators)


def list_logical_devices(device_type=None):
    return _devices(device_type, "/device:", LogicalDevice, xla.platform_devices())


_HOST_CONFIGURATION: list = []


def set_logical_device_configuration(device, logical_devices):
    """Split the physical CPU into `len(logical_devices)` logical CPUs (XLA's host device
    count). Accelerators are not split: jax gives one device per chip."""
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"Unrecognized device: {device!r}")
    if device.device_type != "CPU":
        raise NotImplementedError(f"set_logical_device_configuration: splitting a "
                                  f"{device.device_type} into logical devices is not supported "
                                  f"(XLA gives one device per {device.device_type}); only the "
                                  f"host CPU can be split")
    count = len(logical_devices)
    if spmd.backend_started():
        # TF 2.21: RuntimeError('Virtual devices cannot be modified after being initialized')
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    spmd.set_host_device_count(count)
    _HOST_CONFIGURATION[:] = list(logical_devices)


def get_logical_device_configuration(device):
    """The configuration set for `device` (None when it was never split)."""
    if device.device_type == "CPU" and _HOST_CONFIGURATION:
        return list(_HOST_CONFIGURATION)
    return None
