"""TF's orthogonal convolution kernels (``convolutional_orthogonal_1d/2d/3d``, Xiao et al. 2018):
a kernel whose convolution is an orthogonal map. For ``d`` spatial dimensions and kernel size
``k`` it is an orthogonal ``cin x cout`` matrix times the "matrix convolution" of ``k - 1`` block
factors; each factor holds, at every corner of a ``2 x ... x 2`` block, the product of ``d``
random symmetric projections ``P`` or their complements ``I - P``. Built from the same ops, in
the same order, as TF builds them, so each random draw takes the seed TF's takes."""
import itertools

from ..framework import dtypes
from . import array_ops, math_ops, matrix_ops, random_ops
from .init_ops import Initializer, _assert_float_dtype


class ConvolutionOrthogonal(Initializer):
    """The shared part: random orthogonal matrices and symmetric projections, a seed that moves on
    after each draw (as TF's), and the block construction for ``self.rank`` spatial dimensions."""

    rank = None  # spatial dimensions: 1, 2 or 3

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.dtype, self.seed = gain, _assert_float_dtype(dtype), seed

    def _next_seed(self):
        if self.seed:
            self.seed += 1

    def _orthogonal_matrix(self, n):
        a = random_ops.random_normal([n, n], dtype=self.dtype, seed=self.seed)
        self._next_seed()
        q, r = matrix_ops.qr(a)
        q *= math_ops.sign(matrix_ops.diag_part(r))
        return q

    def _symmetric_projection(self, n):
        q = self._orthogonal_matrix(n)
        mask = math_ops.cast(random_ops.random_normal([n], seed=self.seed) > 0, self.dtype)
        self._next_seed()
        c = math_ops.multiply(q, mask)
        return math_ops.matmul(c, matrix_ops.matrix_transpose(c))

    def _check_shape(self, shape):
        rank = self.rank
        if len(shape) != rank + 2:
            words = {1: "three", 2: "four", 3: "five"}[rank]
            raise ValueError(f"The tensor to initialize, specified by argument `shape` must be {words}-dimensional. "
                             f"Received shape={shape}")
        if shape[-2] > shape[-1]:
            raise ValueError(f"In_filters, specified by shape[-2]={shape[-2]} cannot be greater than out_filters, "
                             f"specified by shape[-1]={shape[-1]}.")
        if rank == 2 and shape[0] != shape[1]:
            raise ValueError(f"Kernel sizes, specified by shape[0]={shape[0]} and shape[1]={shape[1]} must be equal.")
        if rank == 3 and len(set(shape[:3])) != 1:
            raise ValueError(f"Kernel sizes, specified by shape[0]={shape[0]},  shape[1]={shape[1]} and "
                             f"shape[2]={shape[2]} must be equal.")

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        self._check_shape(shape)
        kernel = self._orthogonal_kernel(shape[0], shape[-2], shape[-1])
        kernel *= math_ops.cast(self.gain, dtype=dtype)
        return kernel

    def _block_orth(self, projections):
        """{corner: product of P or I - P along each dimension}, corners in {0, 1}^rank."""
        n = projections[0].shape.as_list()[0]
        eye = matrix_ops.eye(n, dtype=self.dtype)
        sides = [(p, eye - p) for p in projections]
        block = {}
        for corner in itertools.product((0, 1), repeat=self.rank):
            product = sides[0][corner[0]]
            for axis in range(1, self.rank):
                product = math_ops.matmul(product, sides[axis][corner[axis]])
            block[corner] = product
        return block

    def _matrix_conv(self, m1, m2):
        """The convolution of two blocks of matrices (sizes k and l per dimension: k + l - 1)."""
        n = next(iter(m1.values())).shape.as_list()[0]
        k = max(i[0] for i in m1) + 1
        l = max(i[0] for i in m2) + 1
        result = {}
        for out in itertools.product(range(k + l - 1), repeat=self.rank):
            result[out] = array_ops.zeros([n, n], self.dtype)
            for a in itertools.product(*[range(min(k, o + 1)) for o in out]):
                b = tuple(o - i for o, i in zip(out, a))
                if all(j < l for j in b):
                    result[out] += math_ops.matmul(m1[a], m2[b])
        return result

    def _stack(self, block, ksize, prefix=()):
        if len(prefix) == self.rank:
            return block[prefix]
        return array_ops.stack([self._stack(block, ksize, prefix + (i,)) for i in range(ksize)])

    def _orthogonal_kernel(self, ksize, cin, cout):
        if cin > cout:
            raise ValueError(f"The number of input channels (cin={cin}) cannot exceed the number of output channels "
                             f"(cout={cout}).")
        orth = self._orthogonal_matrix(cout)[0:cin, :]
        if ksize == 1:
            for _ in range(self.rank):
                orth = array_ops.expand_dims(orth, 0)
            return orth
        p = self._block_orth([self._symmetric_projection(cout) for _ in range(self.rank)])
        for _ in range(ksize - 2):
            p = self._matrix_conv(p, self._block_orth([self._symmetric_projection(cout) for _ in range(self.rank)]))
        for index in itertools.product(range(ksize), repeat=self.rank):
            p[index] = math_ops.matmul(orth, p[index])
        return self._stack(p, ksize)


class ConvolutionOrthogonal1D(ConvolutionOrthogonal):
    rank = 1

    def _block_orth(self, projections):  # TF's 1-D block is P and I - P themselves (no product)
        n = projections[0].shape.as_list()[0]
        eye = matrix_ops.eye(n, dtype=self.dtype)
        return {(0,): projections[0], (1,): eye - projections[0]}


class ConvolutionOrthogonal2D(ConvolutionOrthogonal):
    rank = 2


class ConvolutionOrthogonal3D(ConvolutionOrthogonal):
    rank = 3


convolutional_orthogonal_1d = ConvolutionOrthogonal1D
convolutional_orthogonal_2d = ConvolutionOrthogonal2D
convolutional_orthogonal_3d = ConvolutionOrthogonal3D
