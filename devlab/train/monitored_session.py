"""``MonitoredTrainingSession``: a Session that initialises itself and runs hooks around each step.

The chief initialises the variables (or restores the latest checkpoint in ``checkpoint_dir``);
any other task waits until every global variable is initialised (by the chief, through the
shared parameter servers). ``should_stop()`` turns true when a hook asks, as
``StopAtStepHook`` does at a global step. This is TF's between-graph training loop::

    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(task_index == 0),
                                           hooks=[tf.train.StopAtStepHook(last_step=100)]) as sess:
        while not sess.should_stop():
            sess.run(train_op)
"""
import time

from ..framework.graph import get_default_graph
from ..ops.state_ops import is_variable_initialized
from ..ops.variables import global_variables, global_variables_initializer
from ..runtime.session import Session
from .saver import Saver, latest_checkpoint
from .session_run_hook import CheckpointSaverHook, SessionRunArgs, SessionRunContext, SessionRunValues

POLL_SECONDS = 0.1  # how often a non-chief checks whether the chief has initialised the variables


class Scaffold:
    """The ops a monitored session needs: ``init_op``, ``ready_op`` and a ``saver``."""

    def __init__(self, init_op=None, ready_op=None, saver=None, init_feed_dict=None, init_fn=None, **unused):
        self.init_op, self.ready_op, self.saver = init_op, ready_op, saver
        self.init_feed_dict, self.init_fn = init_feed_dict, init_fn

    def finalize(self):
        if self.init_op is None:
            self.init_op = global_variables_initializer()
        if self.ready_op is None:
            self.ready_op = [is_variable_initialized(v) for v in global_variables()]
        if self.saver is None and global_variables():
            self.saver = Saver()
        return self


def prepare_session(sess, scaffold, is_chief, checkpoint_dir=None, max_wait_secs=7200):
    """The chief restores the latest checkpoint or runs ``init_op``; others wait until ready."""
    if is_chief:
        path = latest_checkpoint(checkpoint_dir) if checkpoint_dir else None
        if path and scaffold.saver is not None:
            scaffold.saver.restore(sess, path)
        else:
            sess.run(scaffold.init_op, feed_dict=scaffold.init_feed_dict)
            if scaffold.init_fn is not None:
                scaffold.init_fn(scaffold, sess)
        return sess
    deadline = time.monotonic() + max_wait_secs
    while not all(sess.run(scaffold.ready_op)):
        if time.monotonic() > deadline:
            raise RuntimeError(f"Session was not ready after waiting {max_wait_secs} secs.")
        time.sleep(POLL_SECONDS)
    return sess


class MonitoredSession:
    """A Session plus hooks: ``run`` runs the hooks' requests with each step."""

    def __init__(self, master="", is_chief=True, scaffold=None, hooks=(), config=None, checkpoint_dir=None,
                 max_wait_secs=7200):
        self.graph = get_default_graph()
        self._hooks = list(hooks)
        self._scaffold = (scaffold or Scaffold()).finalize()
        for hook in self._hooks:
            hook.begin()
        self._sess = Session(master, graph=self.graph, config=config)
        prepare_session(self._sess, self._scaffold, is_chief, checkpoint_dir, max_wait_secs)
        self._should_stop = False
        for hook in self._hooks:
            hook.after_create_session(self._sess, None)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._sess)
        requests = [hook.before_run(context) for hook in self._hooks]
        feeds = dict(feed_dict or {})
        extra = []
        for request in requests:
            extra.append([] if request is None else request.fetches)
            if request is not None and request.feed_dict:
                feeds.update(request.feed_dict)
        results = self._sess.run({"caller": fetches, "hooks": extra}, feeds or None, options, run_metadata)
        for hook, request, value in zip(self._hooks, requests, results["hooks"]):
            hook.after_run(context, SessionRunValues(value, options, run_metadata))
        self._should_stop = self._should_stop or context.stop_requested
        return results["caller"]

    def should_stop(self):
        return self._should_stop

    def close(self):
        if self._sess is not None:
            for hook in self._hooks:
                hook.end(self._sess)
            self._sess.close()
            self._sess = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,  # noqa: N802
                             chief_only_hooks=None, save_checkpoint_secs=None, config=None,
                             save_checkpoint_steps=None, max_wait_secs=7200, **unused):
    """TF's factory: a MonitoredSession whose chief also saves checkpoints in ``checkpoint_dir``
    (every ``save_checkpoint_steps`` steps when given, and at the end)."""
    hooks = list(hooks or [])
    if is_chief:
        hooks += list(chief_only_hooks or [])
        if checkpoint_dir:
            hooks.append(CheckpointSaverHook(checkpoint_dir, save_steps=save_checkpoint_steps,
                                             saver=scaffold.saver if scaffold else None))
    return MonitoredSession(master, is_chief, scaffold, hooks, config, checkpoint_dir, max_wait_secs)
