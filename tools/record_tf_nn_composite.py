"""Record TF 2.21's answers to the tf.nn composite cases (tests/composite/nn_cases.py) into
tests/data/tf_nn_composite.json: per case the encoded result, or the error class and text.

Run with a Python that has TensorFlow: `python tools/record_tf_nn_composite.py`."""
import record_tf_composite  # noqa: E402  (this folder is the script's: on sys.path)
import nn_cases  # noqa: E402  (tests/composite, put on sys.path by record_tf_composite)

if __name__ == "__main__":
    record_tf_composite.record(nn_cases, "tf_nn_composite.json")
