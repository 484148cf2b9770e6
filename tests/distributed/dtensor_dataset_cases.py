"""`dtensor.DTensorDataset` against TF 2.21's recorded batches and errors
(tests/data/tf_dtensor_dataset.json, from tools/record_dtensor_dataset.py). Run by
test_sharded.py on N forced host CPUs in a subprocess; the cases use a b=2 x m=2 mesh of the
first four."""
import json
import os
import sys

import pytest

import flowjit as tf
from flowjit.experimental import dtensor

sys.path.insert(0, os.path.dirname(__file__))
from dtensor_dataset_spec import CASES, ERRORS, scope  # noqa: E402

N = int(os.environ.get("FLOWJIT_TEST_HOST_DEVICES", "4"))
tf.config.set_logical_device_configuration(tf.config.list_physical_devices("CPU")[0],
                                          [tf.config.LogicalDeviceConfiguration()] * N)

with open(os.path.join(os.path.dirname(__file__), "..", "data", "tf_dtensor_dataset.json")) as f:
    RECORD = json.load(f)
NAMES = scope(tf, dtensor)


def describe(dataset):
    """As the recorder: per batch and component, global shape, specs, rows per b index."""
    out = []
    for element in dataset:
        out.append([{"shape": list(t.shape), "specs": dtensor.fetch_layout(t).sharding_specs,
                     "rows": [dtensor.unpack(t)[k].numpy().tolist() for k in (0, 2)]}
                    for t in tf.nest.flatten(element)])
    return {"batches": out, "element_spec": [[list(s.shape), s.dtype.name]
                                            for s in tf.nest.flatten(dataset.element_spec)]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_batches_are_tf_s(name):
    assert describe(eval(CASES[name], NAMES)) == RECORD["cases"][name]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_arguments_raise_tf_s_error(name):
    cls, message = RECORD["errors"][name]
    with pytest.raises(Exception) as info:
        eval(ERRORS[name], NAMES)
    assert type(info.value).__name__ == cls
    # TF's multi-client message cites its bug tracker; flowjit's stops before it
    assert message.startswith(str(info.value).split("\n")[0])


def test_odd_global_batch_is_refused_up_front():
    # TF fails every batch later with an UnknownError from its layout check
    with pytest.raises(ValueError, match="global_batch_size 3 is not divisible by the 2 "
                                         "replicas of mesh dimension b"):
        dtensor.DTensorDataset(NAMES["ds"], mesh=NAMES["mesh"], layouts=NAMES["lay_b"],
                               global_batch_size=3, batch_dim="b")


def test_iterated_inside_a_function_refused():
    ds = eval(CASES["sharded_on_b"], NAMES)

    @tf.function
    def total():
        s = tf.constant(0)
        for _, y in ds:
            s += tf.reduce_sum(y)
        return s
    with pytest.raises(NotImplementedError, match="iterated eagerly"):
        total()
