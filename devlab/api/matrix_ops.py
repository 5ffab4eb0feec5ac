"""Matrix diagonals, identity matrices and QR, as TF builds them: ``tf.eye`` (a ``MatrixDiagV3``
of ones, or a ``MatrixSetDiagV3`` of ones into zeros), ``tf.linalg.diag``/``set_diag`` (the main
diagonal only: another band ``k`` is refused by name), ``tf.diag_part``, ``tf.qr`` and
``tf.linalg.matrix_transpose``."""
import numbers

from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..ops.build import apply_op, convert_to_tensor, op_output
from ..unimplemented import argument
from . import array_ops


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """A matrix (a batch of them) with ``diagonal`` on its main diagonal, ``padding_value`` elsewhere."""
    if k != 0:
        raise argument("k", "tf.linalg.diag (a band other than the main diagonal)")
    if getattr(diagonal, "dtype", None) == dtypes.bool:
        padding_value = bool(padding_value)
    with name_scope(name, "MatrixDiagV3", [diagonal]) as scope:  # the inputs' Consts inside, as TF's wrapper
        diagonal = convert_to_tensor(diagonal, name="diagonal")
        return op_output("MatrixDiagV3", scope, [("diagonal", diagonal, None), ("k", k, dtypes.int32),
                                                 ("num_rows", num_rows, dtypes.int32),
                                                 ("num_cols", num_cols, dtypes.int32),
                                                 ("padding_value", padding_value, diagonal.dtype.base_dtype)],
                         {"align": align})


def matrix_set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """``input`` with its main diagonal replaced by ``diagonal``."""
    if k != 0:
        raise argument("k", "tf.linalg.set_diag (a band other than the main diagonal)")
    return op_output("MatrixSetDiagV3", name, [("input", input, None), ("diagonal", diagonal, None),
                                               ("k", k, dtypes.int32)], {"align": align})


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """The identity matrix (``num_rows`` x ``num_columns``, a batch of them with ``batch_shape``)."""
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor) or isinstance(batch_shape, Tensor):
            raise argument("num_rows", "tf.eye (sizes given as tensors)")
        if not isinstance(num_rows, numbers.Integral) or not isinstance(num_columns, numbers.Integral):
            raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer values. Received: "
                            f"num_rows={num_rows}, num_columns={num_columns}")
        is_square = num_rows == num_columns
        diag_shape = list(batch_shape) + [min(num_rows, num_columns)]
        diag_ones = array_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        zero_matrix = array_ops.zeros(list(batch_shape) + [num_rows, num_columns], dtype=dtype)
        return matrix_set_diag(zero_matrix, diag_ones)


def diag_part(input, name=None):  # noqa: A002 - TF's name
    """The diagonal of a tensor of shape ``[d1..dk, d1..dk]`` (shape ``[d1..dk]``)."""
    return op_output("DiagPart", name, [("input", input, None)])


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's name
    """``(q, r)`` of each inner matrix of ``input``: q with orthonormal columns, r upper triangular."""
    with name_scope(name, "Qr", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        return tuple(apply_op("Qr", [x], {"full_matrices": bool(full_matrices)}, scope).outputs)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """``a`` with its two innermost dimensions swapped."""
    if conjugate:
        raise argument("conjugate", "tf.linalg.matrix_transpose")
    with name_scope(name, values=[a]):
        a = convert_to_tensor(a, name="a")
        ndims = a.shape.ndims
        if ndims is None:
            raise argument("a", "tf.linalg.matrix_transpose (a tensor of unknown rank)")
        if ndims < 2:
            raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with "
                             f"shape: {a.shape}")
        return array_ops.transpose(a, perm=list(range(ndims - 2)) + [ndims - 1, ndims - 2])
