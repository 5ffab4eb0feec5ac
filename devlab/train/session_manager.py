"""``SessionManager``: opens a Session whose model is ready, as TF's Supervisor and MonitoredSession do.

The chief (``prepare_session``) restores the newest checkpoint of ``checkpoint_dir`` or runs the
init op, then runs the local init op and checks that the *ready op* (``report_uninitialized_
variables``) comes back empty. Any other task (``wait_for_session``) never initialises shared
variables: it waits until the ready-for-local-init op is empty (the chief is done), runs its own
local init op, and checks the ready op.

One difference on purpose: TF closes its session and sleeps ``recovery_wait_secs`` (30 s by
default) between two checks; devlab keeps the session and checks again every ``POLL_SECONDS``, so
a waiting task starts as soon as the chief is done. Both give up after ``max_wait_secs``.
"""
import time

import numpy as np

from ..framework import errors
from ..framework.graph import get_default_graph
from ..runtime.session import Session
from .. import tf_logging as logging
from .saver import latest_checkpoint

POLL_SECONDS = 0.1


def _maybe_name(obj):
    if obj is None:
        return "None"
    return obj.name if hasattr(obj, "name") else f"<no name for {type(obj)}>"


class SessionManager:
    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        self._local_init_op, self._ready_op = local_init_op, ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = get_default_graph() if graph is None else graph
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_run_options, self._local_init_feed_dict = local_init_run_options, local_init_feed_dict
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                             f"ready_for_local_init_op [{ready_for_local_init_op}]")

    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                            wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """(a new Session, whether it was restored from a checkpoint)."""
        sess = Session(master, graph=self._graph, config=config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        waited = 0
        path = latest_checkpoint(checkpoint_dir)
        while path is None:
            if not (wait_for_checkpoint and waited < max_wait_secs):
                return sess, False
            logging.info("Waiting for checkpoint to be available.")
            time.sleep(self._recovery_wait_secs)
            waited += self._recovery_wait_secs
            path = latest_checkpoint(checkpoint_dir)
        saver.restore(sess, path)
        return sess, True

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False, max_wait_secs=7200,
                        config=None, init_feed_dict=None, init_fn=None):
        """The chief's Session: restored from the newest checkpoint, else initialised by ``init_op``
        and ``init_fn``; then the local init op runs and the model must be ready."""
        sess, restored = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                  wait_for_checkpoint, max_wait_secs, config)
        if not restored:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        ok, msg = self._try_run_local_init_op(sess)
        if not ok:
            raise RuntimeError(f"Init operations did not make model ready for local_init.  Init op: "
                               f"{_maybe_name(init_op)}, init fn: {init_fn}, error: {msg}")
        ready, msg = self._model_ready(sess)
        if not ready:
            raise RuntimeError(f"Init operations did not make model ready.  Init op: {_maybe_name(init_op)}, "
                               f"init fn: {init_fn}, local_init_op: {self._local_init_op}, error: {msg}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """(a Session, whether it was restored and is ready); never runs the init op."""
        sess, restored = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                  wait_for_checkpoint, max_wait_secs, config)
        ok, msg = self._try_run_local_init_op(sess)
        if not restored:
            return sess, False
        source = checkpoint_dir or checkpoint_filename_with_path
        if not ok:
            logging.info("Restoring model from %s did not make model ready for local init: %s", source, msg)
            return sess, False
        ready, msg = self._model_ready(sess)
        if not ready:
            logging.info("Restoring model from %s did not make model ready: %s", source, msg)
            return sess, False
        logging.info("Restored model from %s", source)
        return sess, True

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A Session once the model is ready (the chief has initialised it); DeadlineExceededError
        after ``max_wait_secs``."""
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        deadline = time.monotonic() + max_wait_secs
        sess = Session(master, graph=self._graph, config=config)
        next_log = time.monotonic()
        while True:
            not_ready, not_ready_local = None, None
            ok, not_ready_local = self._try_run_local_init_op(sess)
            if ok:
                ready, not_ready = self._model_ready(sess)
                if ready:
                    return sess
            if deadline - time.monotonic() < POLL_SECONDS:
                sess.close()
                raise errors.DeadlineExceededError(None, None,
                                                   f"Session was not ready after waiting {max_wait_secs} secs.")
            if time.monotonic() >= next_log:
                logging.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s",
                             not_ready_local, not_ready)
                next_log += self._recovery_wait_secs
            time.sleep(POLL_SECONDS)

    def _model_ready(self, sess):
        return _ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess):
        return _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess):
        if self._local_init_op is None:
            return True, None
        ready, msg = self._model_ready_for_local_init(sess)
        if not ready:
            return False, msg
        logging.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict, options=self._local_init_run_options)
        logging.info("Done running local_init_op.")
        return True, None


def _ready(op, sess, msg):
    """(True, None) when ``op`` is None or gives no names; else (False, which variables are not initialized)."""
    if op is None:
        return True, None
    try:
        value = sess.run(op)
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            logging.warning("%s : error [%s]", msg, str(e))
            raise
        return False, str(e)
    if value is None or np.asarray(value).dtype == np.int32 or np.asarray(value).size == 0:
        return True, None
    names = ", ".join(v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in np.asarray(value).reshape(-1))
    return False, "Variables not initialized: " + names
