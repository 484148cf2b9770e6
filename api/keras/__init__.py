"""TF's `tf.keras`.

With Keras 3 installed (flowjit's `keras` extra) this is Keras 3 itself, its TensorFlow
backend computing with flowjit (frontend/keras/), loaded on the first attribute asked for.
Without Keras only `tf.keras.optimizers` exists: flowjit's own SGD and Adam (Keras 3's update
formulas), enough to train with a `GradientTape`.
"""
import importlib.util as _importlib_util


def _keras():
    """The flowjit-bound Keras as TF presents it (`keras._tf_keras.keras`), or None when
    Keras is not installed."""
    if _importlib_util.find_spec("keras") is None:
        return None
    from flowjit.frontend.keras.loader import load_keras
    return load_keras()._tf_keras.keras


def _own_optimizers():
    import types
    from flowjit.frontend.state import optimizers
    return types.SimpleNamespace(SGD=optimizers.SGD, Adam=optimizers.Adam,
                                 Optimizer=optimizers.Optimizer)


def __getattr__(name):
    if name.startswith("__") and name != "__version__":
        raise AttributeError(name)
    keras = _keras()
    if keras is not None:
        return getattr(keras, name)
    if name == "optimizers":
        return _own_optimizers()
    raise AttributeError(f"flowjit.keras has no {name!r} without Keras 3 installed "
                         "(pip install 'flowjit[keras]')")


def __dir__():
    keras = _keras()
    return sorted(dir(keras)) if keras is not None else ["optimizers"]
