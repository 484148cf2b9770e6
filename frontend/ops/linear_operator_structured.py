"""More of `tf.linalg`'s structured LinearOperators: Householder reflections, permutations,
Toeplitz and tridiagonal matrices, Kronecker products, low-rank updates, block lower
triangular matrices and zeros. Each gives its dense form and, where its structure makes them
cheap or exact, its determinant and solve; the rest are the base class's dense defaults.
Real dtypes, as the other operators."""
from __future__ import annotations

import math

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .linalg import matmul
from .linear_operator import (LinearOperator, LinearOperatorFullMatrix,
                              _LinearOperatorOfOperators, _broadcast_dims, _static_batch)
from .matrix import diag, diag_part


def _dims(t):
    return tuple(t.shape.as_list())


@tf_export("linalg.LinearOperatorHouseholder")
class LinearOperatorHouseholder(LinearOperator):
    """I - 2 v v^T / (v^T v): the reflection across the hyperplane orthogonal to
    `reflection_axis` v [..., N]. Self-adjoint, its own inverse, determinant -1."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorHouseholder"):
        self._axis = convert_to_tensor(reflection_axis)
        super().__init__(self._axis.dtype, True, True, False, True, name,
                         {"reflection_axis": reflection_axis})

    @property
    def reflection_axis(self):
        return self._axis

    def _shape(self):
        n = _dims(self._axis)[-1]
        return _dims(self._axis)[:-1] + (n, n)

    def _unit(self):
        return M.divide(self._axis, M.sqrt(R.reduce_sum(M.square(self._axis), -1,
                                                        keepdims=True)))

    def _to_dense(self):
        u = self._unit()
        n = self._shape()[-1]
        outer = M.multiply(A.expand_dims(u, -1), A.expand_dims(u, -2))
        return M.subtract(A.eye(n, dtype=self.dtype), M.multiply(outer, 2.0))

    def _matmul(self, x, adjoint):
        u = A.expand_dims(self._unit(), -1)
        along = matmul(u, x, transpose_a=True)
        return M.subtract(x, M.multiply(matmul(u, along), 2.0))

    def _solve(self, rhs, adjoint):
        return self._matmul(rhs, adjoint)

    def _determinant(self):
        return M.negative(A.ones(list(self._shape()[:-2]), dtype=self.dtype))

    def _log_abs_determinant(self):
        return A.zeros(list(self._shape()[:-2]), dtype=self.dtype)

    def _inverse(self):
        return self

    def _adjoint(self):
        return self


@tf_export("linalg.LinearOperatorPermutation")
class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix P of `perm` [..., N]: row i holds its 1 in column perm[i], so
    P x = x[perm]."""

    def __init__(self, perm, dtype=D.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        self._perm = convert_to_tensor(perm)
        if not self._perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {perm}")
        super().__init__(dtype, True, None, None, True, name, {"perm": perm, "dtype": dtype})

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        n = _dims(self._perm)[-1]
        return _dims(self._perm)[:-1] + (n, n)

    def _to_dense(self):
        return A.one_hot(self._perm, self._shape()[-1], dtype=self.dtype)

    def _inverse(self):
        return LinearOperatorPermutation(A.argsort(self._perm, axis=-1), dtype=self.dtype)

    def _adjoint(self):
        return self._inverse()

    def _solve(self, rhs, adjoint):
        return self._inverse()._matmul(rhs, adjoint)


@tf_export("linalg.LinearOperatorToeplitz")
class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column `col` and first row `row` [..., N] (row[0] is
    ignored: the diagonal is col[0])."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        self._col, self._row = convert_to_tensor(col), convert_to_tensor(row)
        super().__init__(self._col.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"col": col, "row": row})

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        n = _dims(self._col)[-1]
        return _broadcast_dims(_dims(self._col)[:-1], _dims(self._row)[:-1]) + (n, n)

    def _to_dense(self):
        # entry (i, j) is index i - j of [row reversed (without row[0]), col]: col[i - j]
        # for i >= j, row[j - i] above the diagonal
        n = self._shape()[-1]
        batch = list(self._shape()[:-2])
        col = A.broadcast_to(self._col, batch + [n])
        row = A.broadcast_to(self._row, batch + [n])
        values = A.concat([A.reverse(row[..., 1:], [-1]), col], -1)
        index = [[n - 1 + i - j for j in range(n)] for i in range(n)]
        return A.gather(values, index, axis=-1, batch_dims=0)


_TRIDIAG_FORMATS = ("compact", "matrix", "sequence")


@tf_export("linalg.LinearOperatorTridiag")
class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix from `diagonals`: "compact" [..., 3, N] (superdiagonal, its last
    entry ignored; diagonal; subdiagonal, its first entry ignored), "sequence" (those three
    [..., N] tensors) or "matrix" [..., N, N] (entries off the three diagonals ignored)."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        if diagonals_format not in _TRIDIAG_FORMATS:
            raise ValueError(f"Diagonals Format must be one of compact, matrix, sequence, got "
                             f": {diagonals_format}")
        self._format = diagonals_format
        if diagonals_format == "sequence":
            self._diagonals = [convert_to_tensor(d) for d in diagonals]
            dtype = self._diagonals[0].dtype
        else:
            self._diagonals = convert_to_tensor(diagonals)
            dtype = self._diagonals.dtype
        super().__init__(dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, {"diagonals": diagonals, "diagonals_format": diagonals_format})

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._format

    def _shape(self):
        if self._format == "sequence":
            n = _dims(self._diagonals[1])[-1]
            return _static_batch(*(_dims(d)[:-1] for d in self._diagonals)) + (n, n)
        dims = _dims(self._diagonals)
        return dims[:-2] + (dims[-1], dims[-1])

    def _bands(self):
        """(superdiagonal, diagonal, subdiagonal), each [..., N - 1] / [..., N] / [..., N - 1]."""
        if self._format == "matrix":
            m = self._diagonals
            return (M.add(A.zeros_like(m[..., 0, 1:]), _band(m, 1)), _band(m, 0),
                    _band(m, -1))
        if self._format == "compact":
            sup, main, sub = (self._diagonals[..., i, :] for i in range(3))
        else:
            sup, main, sub = self._diagonals
        return sup[..., :-1], main, sub[..., 1:]

    def _banded(self):
        sup, main, sub = self._bands()
        return M.add(diag(main), M.add(diag(sup, k=1), diag(sub, k=-1)))

    def _to_dense(self):
        # TF's dense form of a "matrix" operator is that matrix, entries off the bands too
        return self._diagonals if self._format == "matrix" else self._banded()

    def _matmul(self, x, adjoint):
        return matmul(self._banded(), x, transpose_a=adjoint)

    def _solve(self, rhs, adjoint):
        return LinearOperatorFullMatrix(self._banded())._solve(rhs, adjoint)

    def _inverse(self):
        return LinearOperatorFullMatrix(self._banded()).inverse()


def _band(m, k):
    return diag_part(m, k=k)


@tf_export("linalg.LinearOperatorKronecker")
class LinearOperatorKronecker(_LinearOperatorOfOperators):
    """The Kronecker product of `operators`, the first the outermost: entry ((i, k), (j, l))
    of A kron B is A[i, j] B[k, l]. Its determinant is the product of det(A_i) to the power
    of the other factors' size."""
    _JOINER = "_x_"
    _EMPTY = "Expected a list of >=1 operators. Found: {}"

    def _shape(self):
        batch = _static_batch(*(op._shape()[:-2] for op in self._operators))
        rows = math.prod(op._shape()[-2] for op in self._operators)
        cols = math.prod(op._shape()[-1] for op in self._operators)
        return batch + (rows, cols)

    def _to_dense(self):
        out = self._operators[0].to_dense()
        for op in self._operators[1:]:
            b = op.to_dense()
            (r, c), (s, t) = _dims(out)[-2:], _dims(b)[-2:]
            product = M.multiply(out[..., :, None, :, None], b[..., None, :, None, :])
            batch = list(_static_batch(_dims(out)[:-2], _dims(b)[:-2]))
            out = A.reshape(product, batch + [r * s, c * t])
        return out

    def _determinant(self):
        n = self._shape()[-1]
        out = None
        for op in self._operators:
            part = M.pow(op.determinant(), float(n // op._shape()[-1]))
            out = part if out is None else M.multiply(out, part)
        return out

    def _log_abs_determinant(self):
        n = self._shape()[-1]
        out = None
        for op in self._operators:
            part = M.multiply(op.log_abs_determinant(), float(n // op._shape()[-1]))
            out = part if out is None else M.add(out, part)
        return out


@tf_export("linalg.LinearOperatorLowRankUpdate")
class LinearOperatorLowRankUpdate(LinearOperator):
    """base + U D V^T, with U [..., M, K], D = diag(diag_update) [..., K] (identity when
    None) and V = U when None."""

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorLowRankUpdate"):
        self._base = base_operator
        self._u = convert_to_tensor(u, dtype=base_operator.dtype)
        self._v = self._u if v is None else convert_to_tensor(v, dtype=base_operator.dtype)
        self._diag = None if diag_update is None else \
            convert_to_tensor(diag_update, dtype=base_operator.dtype)
        if is_self_adjoint is None and v is None:
            is_self_adjoint = base_operator.is_self_adjoint
        super().__init__(base_operator.dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"base_operator": base_operator, "u": u, "diag_update": diag_update,
                          "v": v})

    @property
    def base_operator(self):
        return self._base

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def diag_update(self):
        return self._diag

    def _shape(self):
        return _static_batch(self._base._shape()[:-2], _dims(self._u)[:-2]) + \
            tuple(self._base._shape()[-2:])

    def _to_dense(self):
        u = self._u if self._diag is None else M.multiply(self._u,
                                                          A.expand_dims(self._diag, -2))
        return M.add(self._base.to_dense(), matmul(u, self._v, transpose_b=True))


@tf_export("linalg.LinearOperatorBlockLowerTriangular")
class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower triangular matrix: `operators[i]` is row i's blocks, i + 1 of them, the
    last one square (on the diagonal). Its determinant is the product of the diagonal
    blocks' determinants."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._rows = [list(row) for row in operators]
        if not self._rows:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. "
                             f"Received: {operators}.")
        for i, row in enumerate(self._rows):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. "
                                 f"Received: {len(row)} blocks.")
        diagonal = [row[-1] for row in self._rows]
        super().__init__(diagonal[0].dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, True,
                         name or "_ds_".join(op.name for op in diagonal),
                         {"operators": operators})

    @property
    def operators(self):
        return self._rows

    def _batch(self):
        return _static_batch(*(op._shape()[:-2] for row in self._rows for op in row))

    def _sizes(self):
        return [row[-1]._shape()[-1] for row in self._rows]

    def _shape(self):
        n = sum(self._sizes())
        return self._batch() + (n, n)

    def _to_dense(self):
        batch, sizes = list(self._batch()), self._sizes()
        rows = []
        for i, row in enumerate(self._rows):
            blocks = [A.broadcast_to(op.to_dense(), batch + list(op._shape()[-2:]))
                      for op in row]
            right = A.zeros(batch + [sizes[i], sum(sizes[i + 1:])], dtype=self.dtype)
            rows.append(A.concat(blocks + [right], -1))
        return A.concat(rows, -2)

    def _determinant(self):
        out = None
        for row in self._rows:
            part = row[-1].determinant()
            out = part if out is None else M.multiply(out, part)
        return out

    def _log_abs_determinant(self):
        out = None
        for row in self._rows:
            part = row[-1].log_abs_determinant()
            out = part if out is None else M.add(out, part)
        return out


@tf_export("linalg.LinearOperatorZeros")
class LinearOperatorZeros(LinearOperator):
    """The [batch_shape..., num_rows, num_columns] zero matrix: singular, self-adjoint when
    square."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        columns = num_rows if num_columns is None else num_columns
        if is_non_singular:
            raise ValueError("A Zeros operator is always singular.")
        if is_positive_definite:
            raise ValueError("A Zeros operator is never positive-definite.")
        if is_square and num_rows != columns:
            raise ValueError(f"LinearOperatorZeros initialized as is_square=True, but got "
                             f"num_rows({num_rows}) != num_columns({columns})")
        if is_self_adjoint and num_rows != columns:
            raise ValueError("A self-adjoint matrix is always square.")
        self._size = (int(num_rows), int(columns))
        self._batch = tuple(int(d) for d in (batch_shape or ()))
        super().__init__(dtype or D.float32, False, is_self_adjoint, False, is_square, name,
                         {"num_rows": num_rows, "num_columns": num_columns,
                          "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return self._batch + self._size

    def _to_dense(self):
        return A.zeros(list(self._shape()), dtype=self.dtype)

    def _matmul(self, x, adjoint):
        rows, cols = self._size[::-1] if adjoint else self._size
        batch = list(_static_batch(self._batch, _dims(x)[:-2]))
        return A.zeros(batch + [rows, _dims(x)[-1]], dtype=self.dtype)

    def _solve(self, rhs, adjoint):
        raise NotImplementedError("Exact solve not implemented for an operator that is "
                                  "expected to be singular.")

    def _determinant(self):
        return A.zeros(list(self._batch), dtype=self.dtype)

    def _log_abs_determinant(self):
        return M.multiply(A.ones(list(self._batch), dtype=self.dtype), -math.inf)

    def _adjoint(self):
        return LinearOperatorZeros(self._size[1], self._size[0], self._batch, self.dtype,
                                   is_self_adjoint=self.is_self_adjoint,
                                   is_square=self._is_square)
