"""`tf.linalg.LinearOperator` and its common subclasses: matrices known by structure
(diagonal, identity, triangular, products, block-diagonal), each applying itself, solving and
computing determinants from that structure rather than from a dense matrix. Python classes
over flowjit ops, so they work eagerly and inside `tf.function` alike. Real dtypes (the
adjoint is the transpose)."""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir.shapes import TensorShape
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .linalg import band_part, det, inv, matmul, slogdet, solve, triangular_solve
from .matrix import diag, diag_part, matrix_transpose


def _static_batch(*shapes):
    out = ()
    for s in shapes:
        out = _broadcast_dims(out, tuple(s))
    return out


def _broadcast_dims(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(y if x == 1 else x if y == 1 or x == y or y is None else
                 _incompatible(a, b) for x, y in zip(a, b))


def _incompatible(a, b):
    raise ValueError(f"Incompatible batch shapes {list(a)} and {list(b)}")


def _vec(fn, x, adjoint):
    return fn(A.expand_dims(x, -1), adjoint=adjoint)[..., 0]


@tf_export("linalg.LinearOperator")
class LinearOperator:
    """The base class: subclasses give `_shape`, `_to_dense` and may override `_matmul`,
    `_solve`, `_determinant`, `_log_abs_determinant`, `_inverse`, `_adjoint` with what
    their structure makes cheaper; the defaults go through the dense matrix."""

    def __init__(self, dtype, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        self._dtype = D.as_dtype(dtype)
        self.is_non_singular = is_non_singular
        self.is_self_adjoint = is_self_adjoint
        self.is_positive_definite = is_positive_definite
        self._is_square = is_square
        self.name = name or type(self).__name__
        self.parameters = dict(parameters or {})

    # --- shapes -----------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._shape())

    def shape_tensor(self, name="shape_tensor"):
        return A.constant(list(self._shape()), dtype=D.int32)

    @property
    def batch_shape(self) -> TensorShape:
        return TensorShape(self._shape()[:-2])

    @property
    def tensor_rank(self):
        return len(self._shape())

    @property
    def range_dimension(self):
        return self._shape()[-2]

    @property
    def domain_dimension(self):
        return self._shape()[-1]

    @property
    def is_square(self):
        rows, cols = self._shape()[-2:]
        return self._is_square if rows is None or cols is None else rows == cols

    # --- what every operator computes -----------------------------------------------------
    def to_dense(self, name="to_dense"):
        return self._to_dense()

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        x = convert_to_tensor(x, dtype=self.dtype)
        return self._matmul(matrix_transpose(x) if adjoint_arg else x, adjoint)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        return _vec(self._matmul, convert_to_tensor(x, dtype=self.dtype), adjoint)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        rhs = convert_to_tensor(rhs, dtype=self.dtype)
        return self._solve(matrix_transpose(rhs) if adjoint_arg else rhs, adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        return _vec(self._solve, convert_to_tensor(rhs, dtype=self.dtype), adjoint)

    def determinant(self, name="det"):
        return self._determinant()

    def log_abs_determinant(self, name="log_abs_det"):
        return self._log_abs_determinant()

    def inverse(self, name=None):
        return self._inverse()

    def adjoint(self, name=None):
        return self._adjoint()

    H = property(adjoint)

    def diag_part(self, name="diag_part"):
        return diag_part(self.to_dense())

    def trace(self, name="trace"):
        return R.reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        return M.add(self.to_dense(), convert_to_tensor(x, dtype=self.dtype))

    # --- defaults through the dense matrix ------------------------------------------------
    def _matmul(self, x, adjoint):
        return matmul(self.to_dense(), x, transpose_a=adjoint)

    def _solve(self, rhs, adjoint):
        dense = self.to_dense()
        batch = _static_batch(dense.shape[:-2], rhs.shape[:-2])
        dense = A.broadcast_to(dense, list(batch) + list(dense.shape[-2:]))
        rhs = A.broadcast_to(rhs, list(batch) + list(rhs.shape[-2:]))
        return solve(dense, rhs, adjoint=adjoint)

    def _determinant(self):
        return det(self.to_dense())

    def _log_abs_determinant(self):
        return slogdet(self.to_dense())[1]

    def _inverse(self):
        return LinearOperatorInversion(self)

    def _adjoint(self):
        return LinearOperatorAdjoint(self)


@tf_export("linalg.LinearOperatorFullMatrix")
class LinearOperatorFullMatrix(LinearOperator):
    """A dense [..., M, N] matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = convert_to_tensor(matrix)
        super().__init__(self._matrix.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"matrix": matrix})

    def _shape(self):
        return tuple(self._matrix.shape.as_list())

    def _to_dense(self):
        return self._matrix

    def _inverse(self):
        return LinearOperatorFullMatrix(inv(self._matrix))


@tf_export("linalg.LinearOperatorDiag")
class LinearOperatorDiag(LinearOperator):
    """diag(d) for d of shape [..., N]."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,  # noqa: A002
                 is_positive_definite=None, is_square=True, name="LinearOperatorDiag"):
        self._diag = convert_to_tensor(diag)
        if self._diag.shape.rank == 0:
            raise ValueError("Argument diag must have at least 1 dimension.  Found: "
                             f"{self._diag}")
        super().__init__(self._diag.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"diag": diag})

    def _shape(self):
        d = tuple(self._diag.shape.as_list())
        return d + d[-1:]

    def _to_dense(self):
        return diag(self._diag)

    def diag_part(self, name="diag_part"):
        return self._diag

    def _matmul(self, x, adjoint):
        return M.multiply(A.expand_dims(self._diag, -1), x)

    def _solve(self, rhs, adjoint):
        return M.divide(rhs, A.expand_dims(self._diag, -1))

    def _determinant(self):
        return R.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        return R.reduce_sum(M.log(M.abs(self._diag)), axis=-1)

    def _inverse(self):
        return LinearOperatorDiag(M.reciprocal(self._diag))

    def _adjoint(self):
        return self


@tf_export("linalg.LinearOperatorScaledIdentity")
class LinearOperatorScaledIdentity(LinearOperator):
    """multiplier * I for an N x N identity, `multiplier` of shape [...] (the batch)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        self._num_rows = int(num_rows)
        self._multiplier = convert_to_tensor(multiplier)
        super().__init__(self._multiplier.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name,
                         {"num_rows": num_rows, "multiplier": multiplier})

    @property
    def multiplier(self):
        return self._multiplier

    def _shape(self):
        return tuple(self._multiplier.shape.as_list()) + (self._num_rows, self._num_rows)

    def _scale(self):
        return A.expand_dims(A.expand_dims(self._multiplier, -1), -1)

    def _to_dense(self):
        return M.multiply(self._scale(), A.eye(self._num_rows, dtype=self.dtype))

    def _matmul(self, x, adjoint):
        return M.multiply(self._scale(), x)

    def _solve(self, rhs, adjoint):
        return M.divide(rhs, self._scale())

    def _determinant(self):
        return M.pow(self._multiplier, float(self._num_rows))

    def _log_abs_determinant(self):
        return M.multiply(M.log(M.abs(self._multiplier)), float(self._num_rows))

    def _inverse(self):
        return LinearOperatorScaledIdentity(self._num_rows, M.reciprocal(self._multiplier))

    def _adjoint(self):
        return self


@tf_export("linalg.LinearOperatorIdentity")
class LinearOperatorIdentity(LinearOperator):
    """The N x N identity, with an optional batch shape."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        self._num_rows = int(num_rows)
        self._batch = tuple(int(d) for d in (batch_shape or ()))
        super().__init__(dtype or D.float32, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name,
                         {"num_rows": num_rows, "batch_shape": batch_shape})

    def _shape(self):
        return self._batch + (self._num_rows, self._num_rows)

    def _to_dense(self):
        return A.eye(self._num_rows, batch_shape=list(self._batch), dtype=self.dtype)

    def _matmul(self, x, adjoint):
        batch = _static_batch(self._batch, x.shape[:-2])
        return A.broadcast_to(x, list(batch) + list(x.shape[-2:]))

    _solve = _matmul

    def _determinant(self):
        return A.ones(list(self._batch), dtype=self.dtype)

    def _log_abs_determinant(self):
        return A.zeros(list(self._batch), dtype=self.dtype)

    def _inverse(self):
        return self

    def _adjoint(self):
        return self


@tf_export("linalg.LinearOperatorLowerTriangular")
class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of a square [..., N, N] matrix (the rest is ignored)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        self._tril = convert_to_tensor(tril)
        super().__init__(self._tril.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"tril": tril})

    def _shape(self):
        return tuple(self._tril.shape.as_list())

    def _to_dense(self):
        return band_part(self._tril, -1, 0)

    def _solve(self, rhs, adjoint):
        return triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _determinant(self):
        return R.reduce_prod(diag_part(self._tril), axis=-1)

    def _log_abs_determinant(self):
        return R.reduce_sum(M.log(M.abs(diag_part(self._tril))), axis=-1)


class _LinearOperatorOfOperators(LinearOperator):
    """An operator made of `operators`, named by joining theirs with `_JOINER`."""
    _JOINER = "_o_"
    _EMPTY = "Expected a non-empty list of operators. Found: {}"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operators = list(operators)
        if not self._operators:
            raise ValueError(self._EMPTY.format(operators))
        super().__init__(self._operators[0].dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square,
                         name or self._JOINER.join(op.name for op in self._operators),
                         {"operators": operators})

    @property
    def operators(self):
        return self._operators


@tf_export("linalg.LinearOperatorComposition")
class LinearOperatorComposition(_LinearOperatorOfOperators):
    """operators[0] @ operators[1] @ ... as one operator."""

    def _shape(self):
        batch = _static_batch(*(op._shape()[:-2] for op in self._operators))
        return batch + (self._operators[0]._shape()[-2], self._operators[-1]._shape()[-1])

    def _to_dense(self):
        out = self._operators[-1].to_dense()
        for op in reversed(self._operators[:-1]):
            out = op.matmul(out)
        return out

    def _matmul(self, x, adjoint):
        order = self._operators if adjoint else reversed(self._operators)
        for op in order:
            x = op._matmul(x, adjoint)
        return x

    def _solve(self, rhs, adjoint):
        order = reversed(self._operators) if adjoint else self._operators
        for op in order:
            rhs = op._solve(rhs, adjoint)
        return rhs

    def _determinant(self):
        out = self._operators[0].determinant()
        for op in self._operators[1:]:
            out = M.multiply(out, op.determinant())
        return out

    def _log_abs_determinant(self):
        out = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            out = M.add(out, op.log_abs_determinant())
        return out

    def _inverse(self):
        return LinearOperatorComposition([op.inverse() for op in reversed(self._operators)])

    def _adjoint(self):
        return LinearOperatorComposition([op.adjoint() for op in reversed(self._operators)])


@tf_export("linalg.LinearOperatorBlockDiag")
class LinearOperatorBlockDiag(_LinearOperatorOfOperators):
    """Square operators placed along the diagonal of one block matrix."""
    _JOINER = "_ds_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        super().__init__(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name)

    def _batch(self):
        return _static_batch(*(op._shape()[:-2] for op in self._operators))

    def _sizes(self):
        return [op._shape()[-1] for op in self._operators]

    def _shape(self):
        n = sum(self._sizes())
        return self._batch() + (n, n)

    def _to_dense(self):
        batch, sizes = list(self._batch()), self._sizes()
        rows = []
        for i, op in enumerate(self._operators):
            dense = op.to_dense()
            dense = A.broadcast_to(dense, batch + list(dense.shape[-2:]))
            left = A.zeros(batch + [sizes[i], sum(sizes[:i])], dtype=self.dtype)
            right = A.zeros(batch + [sizes[i], sum(sizes[i + 1:])], dtype=self.dtype)
            rows.append(A.concat([left, dense, right], -1))
        return A.concat(rows, -2)

    def _blockwise(self, method, x, adjoint):
        parts = A.split(x, self._sizes(), axis=-2)
        outs = [getattr(op, method)(part, adjoint) for op, part in zip(self._operators, parts)]
        batch = _static_batch(*(o.shape[:-2] for o in outs))
        outs = [A.broadcast_to(o, list(batch) + list(o.shape[-2:])) for o in outs]
        return A.concat(outs, -2)

    def _matmul(self, x, adjoint):
        return self._blockwise("_matmul", x, adjoint)

    def _solve(self, rhs, adjoint):
        return self._blockwise("_solve", rhs, adjoint)

    _determinant = LinearOperatorComposition._determinant
    _log_abs_determinant = LinearOperatorComposition._log_abs_determinant

    def _inverse(self):
        return LinearOperatorBlockDiag([op.inverse() for op in self._operators])

    def _adjoint(self):
        return LinearOperatorBlockDiag([op.adjoint() for op in self._operators])


@tf_export("linalg.LinearOperatorAdjoint")
class LinearOperatorAdjoint(LinearOperator):
    """The adjoint (transpose) of another operator."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self.operator = operator
        super().__init__(operator.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name or operator.name + "_adjoint",
                         {"operator": operator})

    def _shape(self):
        s = self.operator._shape()
        return s[:-2] + (s[-1], s[-2])

    def _to_dense(self):
        return matrix_transpose(self.operator.to_dense())

    def _matmul(self, x, adjoint):
        return self.operator._matmul(x, not adjoint)

    def _solve(self, rhs, adjoint):
        return self.operator._solve(rhs, not adjoint)

    def _determinant(self):
        return self.operator.determinant()

    def _log_abs_determinant(self):
        return self.operator.log_abs_determinant()

    def _adjoint(self):
        return self.operator


@tf_export("linalg.LinearOperatorInversion")
class LinearOperatorInversion(LinearOperator):
    """The inverse of another (square, non-singular) operator."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self.operator = operator
        super().__init__(operator.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name or operator.name + "_inv",
                         {"operator": operator})

    def _shape(self):
        return self.operator._shape()

    def _to_dense(self):
        return inv(self.operator.to_dense())

    def _matmul(self, x, adjoint):
        return self.operator._solve(x, adjoint)

    def _solve(self, rhs, adjoint):
        return self.operator._matmul(rhs, adjoint)

    def _determinant(self):
        return M.reciprocal(self.operator.determinant())

    def _log_abs_determinant(self):
        return M.negative(self.operator.log_abs_determinant())

    def _inverse(self):
        return self.operator
