"""The default-session stack, so ``tensor.eval()`` and ``op.run()`` find a session.

It is per thread and strictly nested, as TF's ``DefaultStack``: leaving ``as_default()`` blocks
out of order is TF's ``AssertionError("Nesting violated ...")``. Unlike TF, the session being
left is taken off the stack even then, so a mistake never leaves a session registered for good.
"""
import threading

_local = threading.local()


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def push(session):
    _stack().append(session)


def pop(session, raise_on_misnesting=True):
    """Takes ``session`` off the stack. If it is not the innermost default, it is still removed,
    and TF's "Nesting violated" AssertionError is raised (unless ``raise_on_misnesting`` is False,
    which a block that is already leaving on an exception uses, so as not to hide that one)."""
    stack = _stack()
    if stack and stack[-1] is session:
        stack.pop()
        return
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is session:
            del stack[i]
            if raise_on_misnesting:
                raise AssertionError(f"Nesting violated for default stack of {type(session)} objects")
            return


def get_default_session():
    stack = _stack()
    return stack[-1] if stack else None


def get_default_session_or_raise():
    sess = get_default_session()
    if sess is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. "
                         "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    return sess


class _DefaultSessionStack:
    """TF's ``stack._default_session_stack``: the same per-thread stack, through TF's two methods."""

    def get_default(self):
        return get_default_session()

    def reset(self):
        """Empties this thread's stack (TF's tests use it after a nesting error)."""
        _stack().clear()


_default_session_stack = _DefaultSessionStack()
