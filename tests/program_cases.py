"""TensorArray and AutoGraph programs real code writes, once against a `tf` module:
`tools/record_semantics.py` runs them under TF 2.21 (eagerly where they run eagerly, in a
`tf.function`, with `jit_compile=True`; AutoGraph's also with AUTOGRAPH_STRICT_CONVERSION=1)
and records each outcome in `tests/data/tf_semantics.json`; `tests/frontend/test_programs.py`
runs them under flowjit."""
import os


def tensor_array_cases(tf):
    """name -> (function of one tensor, its input, whether it also runs eagerly)."""
    def none_dim_for(x):
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[None, 3])
        for i in tf.range(3):
            ta = ta.write(i, x * tf.cast(i, tf.float32))
        return ta.stack()

    def none_dim_while_loop(x):
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[None, 3])
        _, ta = tf.while_loop(lambda i, ta: i < 3,
                              lambda i, ta: (i + 1, ta.write(i, x + tf.cast(i, tf.float32))),
                              [0, ta])
        return ta.stack()

    def write_after_continue_fixed(x):
        ta = tf.TensorArray(tf.float32, size=4)
        for i in tf.range(4):
            if x[i] < 0:
                continue
            ta = ta.write(i, x[i] * 2)
        return ta.stack()

    def write_after_continue_dynamic(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        j = 0
        for i in tf.range(4):
            if x[i] < 0:
                continue
            ta = ta.write(j, x[i])
            j += 1
        return ta.stack()

    def split_equal(x):
        ta = tf.TensorArray(tf.float32, size=2)
        return ta.split(tf.reshape(x, [4, 1]), [2, 2]).stack()

    def split_then_read(x):
        ta = tf.TensorArray(tf.float32, size=2)
        return ta.split(x, [2, 2]).read(1)

    def split_unequal(x):
        ta = tf.TensorArray(tf.float32, size=2)
        return ta.split(x, [1, 3]).read(1)

    def split_wrong_sum(x):
        ta = tf.TensorArray(tf.float32, size=2)
        return ta.split(x, [1, 1]).stack()

    def split_scalar(x):
        ta = tf.TensorArray(tf.float32, size=1)
        return ta.split(x[0], [1]).stack()

    def dynamic_size_loop(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(3):
            ta = ta.write(i, x[i])
        return ta.stack()

    x = [1.0, -1.0, 2.0, 3.0]
    return {"none_dim_for": (none_dim_for, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], False),
            "none_dim_while_loop": (none_dim_while_loop, [[1.0, 2.0, 3.0]], False),
            "write_after_continue_fixed": (write_after_continue_fixed, x, False),
            "write_after_continue_dynamic": (write_after_continue_dynamic, x, False),
            "split_equal": (split_equal, x, True), "split_then_read": (split_then_read, x, True),
            "split_unequal": (split_unequal, x, True),
            "split_wrong_sum": (split_wrong_sum, x, True),
            "split_scalar": (split_scalar, x, True),
            "dynamic_size_loop": (dynamic_size_loop, x, False)}


def autograph_cases(tf):
    """name -> (function of one tensor, its input); they run in a `tf.function` only."""
    def for_else(x):
        for i in tf.range(3):
            x += 1.0
        else:
            x += 10.0
        return x

    def while_else(x):
        i = tf.constant(0)
        while i < 3:
            i += 1
        else:
            x += 10.0
        return x

    def generator(x):
        def gen():
            yield x * 2
        return next(gen())

    def return_in_range(x):
        for i in tf.range(4):
            if x[i] > 2:
                return x[i]
        return -1.0

    def break_in_range(x):
        s = 0.0
        for i in tf.range(4):
            if x[i] > 2:
                break
            s += x[i]
        return s

    def dict_key_made_in_loop(x):
        d = {}
        for i in tf.range(3):
            d["a"] = x * tf.cast(i, tf.float32)
        return d["a"]

    def nested_dict_key_in_one_branch(x):
        d = {"a": {}}
        if tf.reduce_sum(x) > 0:
            d["a"]["b"] = x
        return d

    def unbound_after_if(x):
        if tf.reduce_sum(x) > 0:
            y = x
        return y

    def defined_in_loop(x):
        for i in tf.range(3):
            z = x * 2.0
        return z

    def nested_if_return(x):
        if tf.reduce_sum(x) > 0:
            if tf.reduce_max(x) > 3:
                return x * 2.0
        return x

    def nested_if_return_with_else(x):
        if tf.reduce_sum(x) > 0:
            if tf.reduce_max(x) > 3:
                return x * 2.0
        else:
            return -x
        return x + 1.0

    def nested_if_returns_balanced(x):
        if tf.reduce_sum(x) > 0:
            if tf.reduce_max(x) > 3:
                return x * 2.0
            return x * 3.0
        return x

    def elif_return_then_fallthrough(x):
        if tf.reduce_max(x) > 5:
            return x * 2.0
        elif tf.reduce_min(x) > 0:
            return x + 1.0
        return x - 1.0

    return {f.__name__: (f, [1.0, 2.0, 3.0, 4.0]) for f in (
        for_else, while_else, generator, return_in_range, break_in_range, dict_key_made_in_loop,
        nested_dict_key_in_one_branch, unbound_after_if, defined_in_loop, nested_if_return,
        nested_if_return_with_else, nested_if_returns_balanced, elif_return_then_fallthrough)}


def outcome(tf, fn, value, mode, strict=False):
    """{"value": ..., "shape": ...} or {"error": class name, "message": its text's last line
    (after an "in user code:" block, where a trace failed)}."""
    call = fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla")
    before = os.environ.get("AUTOGRAPH_STRICT_CONVERSION")
    os.environ["AUTOGRAPH_STRICT_CONVERSION"] = "1" if strict else "0"
    try:
        out = call(tf.constant(value))
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        text = str(e).strip().split("\n")[-1].strip()
        return {"error": type(e).__name__, "message": text.removeprefix(type(e).__name__ + ": ")}
    finally:
        if before is None:
            del os.environ["AUTOGRAPH_STRICT_CONVERSION"]
        else:
            os.environ["AUTOGRAPH_STRICT_CONVERSION"] = before
    if isinstance(out, dict):
        out = out["a"]["b"]
    return {"shape": list(out.shape), "value": out.numpy().tolist()}
