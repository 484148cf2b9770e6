"""Keras-style optimizers: `SGD` and `Adam` with `apply_gradients(zip(grads, vars))`.

The update formulas are Keras 3's (what `tf.keras.optimizers` runs in TF 2.16+), written with
flowjit ops and Variable updates, so the same step runs eagerly, traced into a graph, or under
XLA (where the Variables, slots included, are donated). Slot variables (momenta) are created on
the first `apply_gradients` for a variable; inside a traced function that is the first trace,
and they are created outside the graph (`init_scope`) from zeros.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ..eager import dispatch
from ..distribute import distribute
from ..function import func_graph
from ..composite.indexed_slices import IndexedSlices
from ..gradients.tape import GradientTape, densify
from ..ops import math
from .variables import Variable


# Set by frontend/state/checkpoint.py while a restore has values for slots not created yet.
_slots_hook = None


class Optimizer:
    """Shared machinery: the iteration counter, the learning rate and slot variables."""

    _SLOTS: tuple = ()

    def __init__(self, learning_rate, name):
        self.name = name
        with func_graph.init_scope():
            self._iterations = Variable(np.int64(0), trainable=False, name=f"{name}/iteration")
            self._schedule = learning_rate if callable(learning_rate) else None
            self._lr = Variable(np.float32(0.0 if self._schedule else learning_rate),
                                trainable=False, name=f"{name}/learning_rate")
        self._slots: dict = {}

    # --- properties ------------------------------------------------------------------------
    @property
    def iterations(self) -> Variable:
        return self._iterations

    @property
    def learning_rate(self):
        if self._schedule is not None:
            return self._schedule(self._iterations)
        return self._lr

    @learning_rate.setter
    def learning_rate(self, value):
        if callable(value):
            self._schedule = value
        else:
            self._schedule = None
            self._lr.assign(float(value))

    @property
    def variables(self) -> list:
        out = [self._iterations, self._lr]
        for slots in self._slots.values():
            out.extend(slots.values())
        return out

    # --- slots -----------------------------------------------------------------------------
    def _slot(self, var, name) -> Variable:
        return self._slots[var.ref()][name]

    def _ensure_slots(self, var):
        key = var.ref()
        if key in self._slots:
            return
        if not var.shape.is_fully_defined():
            raise ValueError(f"{type(self).__name__}: variable {var.name} has shape "
                             f"{var.shape}; optimizer slots need a fully defined shape")
        with func_graph.init_scope():
            base = var.name.split(":")[0]
            self._slots[key] = {
                s: Variable(np.zeros(var.shape.as_list(), var.dtype.np), trainable=False,
                            name=f"{self.name}/{base}_{s}") for s in self._SLOTS}
        if _slots_hook is not None:   # a checkpoint restore waits for these slots
            _slots_hook(self, var, self._slots[key])

    def build(self, var_list):
        """Create the slots of every variable in `var_list` now instead of at the first step
        (Keras's `build`): a pending checkpoint restore fills them at once."""
        for var in var_list:
            self._ensure_slots(var)

    # --- applying ----------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False,
                        **kwargs):
        """Apply one update per (gradient, variable); variables with a None gradient are
        skipped. Returns the iteration counter (incremented)."""
        pairs = []
        for g, v in grads_and_vars:
            if not isinstance(v, Variable):
                raise TypeError(f"{type(self).__name__}.apply_gradients: expected "
                                f"(gradient, Variable) pairs, got a {type(v).__name__}")
            if isinstance(g, IndexedSlices):   # kept sparse: Adam squares its rows
                pairs.append((IndexedSlices(math.cast(g.values, v.dtype), g.indices,
                                            g.dense_shape), v))
            elif g is not None:
                pairs.append((dispatch.convert_to_tensor(g, dtype=v.dtype), v))
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        if not skip_gradients_aggregation:   # summed over the replicas of a strategy's run
            summed = distribute.aggregate_gradients([g for g, _ in pairs])
            pairs = [(g, v) for g, (_, v) in zip(summed, pairs)]
        for _, v in pairs:
            self._ensure_slots(v)
        lr = dispatch.convert_to_tensor(self.learning_rate, dtype=D.float32)
        for g, v in pairs:
            lr_v = lr if v.dtype is D.float32 else math.cast(lr, v.dtype)
            self._update(g, v, lr_v)
        self._iterations.assign_add(np.int64(1))
        return self._iterations

    def minimize(self, loss, var_list, tape=None):
        """Compute the gradients of `loss` (a callable, or a tensor recorded by `tape`) for
        `var_list` and apply them."""
        if callable(loss):
            with GradientTape() as tape:
                value = loss()
        elif tape is None:
            raise ValueError("minimize: `tape` is required when `loss` is a Tensor.")
        else:
            value = loss
        var_list = list(var_list() if callable(var_list) else var_list)
        grads = tape.gradient(value, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def _update(self, grad, var, lr):
        raise NotImplementedError


class SGD(Optimizer):
    """Gradient descent, with optional (Nesterov) momentum, as Keras:
    m = momentum * m - lr * g; var += m (Nesterov: var += momentum * m - lr * g)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        if not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError(f"SGD: `momentum` must be a float between [0, 1], got {momentum}")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        self._SLOTS = ("momentum",) if self.momentum else ()
        super().__init__(learning_rate, name)

    def _update(self, grad, var, lr):
        if isinstance(grad, IndexedSlices):   # Keras scales the rows, then scatters them
            step = IndexedSlices(grad.values * lr, grad.indices, grad.dense_shape)._as_tensor()
        else:
            step = grad * lr
        if not self.momentum:
            var.assign_sub(step)
            return
        m = self._slot(var, "momentum")
        m.assign(m * self.momentum - step)
        var.assign_add(m * self.momentum - step if self.nesterov else m)


class Adam(Optimizer):
    """Adam (Kingma & Ba) in Keras's form: alpha = lr * sqrt(1 - b2^t) / (1 - b1^t);
    m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2); var -= m * alpha / (sqrt(v) + epsilon)."""

    _SLOTS = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs):
        if amsgrad:
            raise NotImplementedError("Adam(amsgrad=True) is not supported")
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        super().__init__(learning_rate, name)

    def _update(self, grad, var, lr):
        dt = var.dtype
        t = math.cast(self._iterations + np.int64(1), dt)
        b1 = dispatch.convert_to_tensor(self.beta_1, dtype=dt)
        b2 = dispatch.convert_to_tensor(self.beta_2, dtype=dt)
        alpha = lr * math.sqrt(1.0 - math.pow(b2, t)) / (1.0 - math.pow(b1, t))
        m, v = self._slot(var, "m"), self._slot(var, "v")
        # Keras squares an IndexedSlices row by row: a repeated row adds its squares
        square = IndexedSlices(math.square(grad.values), grad.indices, grad.dense_shape) \
            if isinstance(grad, IndexedSlices) else math.square(grad)
        grad, square = densify(grad), densify(square)
        m.assign_add((grad - m) * (1.0 - self.beta_1))
        v.assign_add((square - v) * (1.0 - self.beta_2))
        var.assign_sub(m * alpha / (math.sqrt(v) + self.epsilon))


