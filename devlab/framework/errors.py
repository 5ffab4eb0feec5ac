"""TensorFlow's error classes (``tf.errors``): each carries the op it concerns and a code."""

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT = 0, 1, 2, 3
NOT_FOUND, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, UNIMPLEMENTED, INTERNAL = 5, 8, 9, 12, 13
DATA_LOSS = 15


class OpError(Exception):
    """An error raised while placing or running a graph; ``op`` is the operation concerned."""

    error_code = UNKNOWN

    def __init__(self, node_def, op, message, *args):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self):
        return self.message


def _error(name, code):
    return type(name, (OpError,), {"error_code": code, "__doc__": f"TensorFlow's {name}."})


CancelledError = _error("CancelledError", CANCELLED)
UnknownError = _error("UnknownError", UNKNOWN)
InvalidArgumentError = _error("InvalidArgumentError", INVALID_ARGUMENT)
NotFoundError = _error("NotFoundError", NOT_FOUND)
ResourceExhaustedError = _error("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _error("FailedPreconditionError", FAILED_PRECONDITION)
UnimplementedError = _error("UnimplementedError", UNIMPLEMENTED)
InternalError = _error("InternalError", INTERNAL)
DataLossError = _error("DataLossError", DATA_LOSS)  # a checkpoint or saved graph that is truncated or corrupt
UnavailableError = _error("UnavailableError", 14)  # UNAVAILABLE: a task of the cluster cannot be reached
DeadlineExceededError = _error("DeadlineExceededError", 4)  # e.g. a task that waited too long for the chief
AbortedError = _error("AbortedError", 10)
OutOfRangeError = _error("OutOfRangeError", 11)  # the end of the input: a clean stop for Coordinator and friends
AlreadyExistsError = _error("AlreadyExistsError", 6)  # e.g. tf.io.gfile.rename onto an existing file
PermissionDeniedError = _error("PermissionDeniedError", 7)
UnauthenticatedError = _error("UnauthenticatedError", 16)


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def exception_type_from_error_code(error_code):
    """TF's ``errors.exception_type_from_error_code``: the error class of a canonical code (KeyError if none)."""
    for cls in (OpError, *_subclasses(OpError)):
        if cls.__name__ != "OpError" and cls.error_code == error_code and cls.__module__ == __name__:
            return cls
    raise KeyError(error_code)


def error_code_from_exception_type(cls):
    """TF's ``errors.error_code_from_exception_type``: the canonical code of an error class; for any
    other class TF warns and returns (not raises) an UnknownError, and so does this."""
    if isinstance(cls, type) and issubclass(cls, OpError) and cls is not OpError and cls.__module__ == __name__:
        return cls.error_code
    import warnings
    warnings.warn("Unknown class exception")
    return UnknownError(None, None, "Unknown class exception", None)


def defined_at(op):
    """The lines TF 2.x appends to a run-time error: the node and the user's line that made it."""
    filename, lineno = op.traceback
    return (f"\n\nDetected at node '{op.name}' defined at (most recent call last):\n"
            f"  File \"{filename}\", line {lineno}")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operator (``bool``, iteration) on a symbolic tensor that only eager TF allows."""


def not_allowed_in_graph(task):
    """TF 2.x's error for ``task`` (``Using a symbolic `tf.Tensor` as a Python `bool```) in graph mode."""
    return OperatorNotAllowedInGraphError(
        f"{task} is not allowed. You can attempt the following resolutions to the problem: If you are running "
        "in Graph mode, use Eager execution mode or decorate this function with @tf.function. If you are using "
        "AutoGraph, you can try decorating this function with @tf.function. If that does not work, then you may "
        "be using an unsupported feature or your source code may not be visible to AutoGraph. See "
        "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/"
        "limitations.md#access-to-source-code for more information.")


class InaccessibleTensorError(ValueError):
    """A tensor built inside a tf.cond branch or a tf.while_loop was fetched from outside it."""
