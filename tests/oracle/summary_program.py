"""One tf.summary program, run by tools/record_tf_summary.py on TF 2.21 and by
tests/frontend/test_summary.py on flowjit; both read the events back with TensorBoard's reader."""
import numpy as np

IMAGES = np.linspace(0.0, 1.0, 2 * 3 * 4 * 3).reshape(2, 3, 4, 3)


def program(tf, logdir):
    """Write summaries; returns the results of the summary calls and the error texts."""
    w = tf.summary.create_file_writer(logdir)
    results, errors = [], []
    with w.as_default(step=3):
        results.append(tf.summary.scalar("loss", 0.5))
        results.append(tf.summary.scalar("int_scalar", tf.constant(7)))
        results.append(tf.summary.histogram("h", [1.0, 2.0, 3.0, 3.0, 10.0]))
        results.append(tf.summary.histogram("h_single", [2.0, 2.0]))
        results.append(tf.summary.histogram("h_empty", tf.zeros([0])))
        results.append(tf.summary.histogram("h_buckets", [0.0, 1.0, 5.0, -1.0], buckets=4))
        results.append(tf.summary.text("t", "hello"))
        results.append(tf.summary.text("t_vec", tf.constant(["a", "bc"])))
        results.append(tf.summary.image("img", tf.constant(IMAGES, tf.float32), step=1,
                                        max_outputs=1))
        with tf.name_scope("scope"):
            results.append(tf.summary.scalar("inner", 1.0))
        with tf.summary.record_if(False):
            results.append(tf.summary.scalar("skipped", 1.0))
    results.append(tf.summary.scalar("no_writer", 1.0, step=1))
    try:
        with w.as_default():
            tf.summary.scalar("nostep", 1.0)
    except ValueError as e:
        errors.append(str(e))

    @tf.function
    def f(x, step):
        with w.as_default(step=step):
            tf.summary.scalar("in_fn", x * 2)
            with tf.summary.record_if(x > 2.5):
                tf.summary.scalar("cond", x)
        return x

    f(tf.constant(2.0), tf.constant(4, tf.int64))
    f(tf.constant(3.0), tf.constant(5, tf.int64))
    step = tf.Variable(10, dtype=tf.int64)
    tf.summary.experimental.set_step(step)
    with w.as_default():
        results.append(tf.summary.scalar("var_step", 1.5))
        step.assign_add(1)
        results.append(tf.summary.scalar("var_step", 2.5))
    tf.summary.experimental.set_step(None)
    w.flush()
    return [bool(r) for r in results], errors


def read_events(logdir):
    """{tag: [(step, dtype name, shape, values, plugin)]} with TensorBoard's own reader."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.util import tensor_util
    acc = EventAccumulator(logdir, size_guidance={"tensors": 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["tensors"]:
        plugin = acc.SummaryMetadata(tag).plugin_data.plugin_name
        for ev in acc.Tensors(tag):
            arr = tensor_util.make_ndarray(ev.tensor_proto)
            values = [v.decode("latin-1") if isinstance(v, bytes) else float(v)
                      for v in arr.ravel().tolist()]
            out.setdefault(tag, []).append([ev.step, str(arr.dtype), list(arr.shape),
                                            values, plugin])
    return out
