"""The default-session stack, so ``tensor.eval()`` and ``op.run()`` find a session."""
import threading

_local = threading.local()


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def push(session):
    _stack().append(session)


def pop(session):
    stack = _stack()
    if stack and stack[-1] is session:
        stack.pop()


def get_default_session():
    stack = _stack()
    return stack[-1] if stack else None


def get_default_session_or_raise():
    sess = get_default_session()
    if sess is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. "
                         "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    return sess
