"""``tf.train.Supervisor``: TF 1.x's older helper for a training loop with a chief.

``managed_session(master)`` gives a Session that the chief has initialised (or restored from
``logdir``) and that other tasks wait for, and closes it at the end; ``should_stop()`` and
``request_stop()`` share one stop flag between the loop and whatever wants it to end::

    sv = tf.train.Supervisor(is_chief=(task_index == 0), logdir=logdir, global_step=global_step)
    with sv.managed_session(server.target) as sess:
        while not sv.should_stop() and step < 1000:
            _, step = sess.run([train_op, global_step])

devlab starts no background services (summaries, periodic checkpoints); the chief saves a
checkpoint in ``logdir`` when the managed session ends.
"""
import contextlib
import os

from ..framework.graph import get_default_graph
from .global_step import get_global_step
from .monitored_session import Scaffold, prepare_session
from ..runtime.session import Session

USE_DEFAULT = 0


class Supervisor:
    USE_DEFAULT = USE_DEFAULT

    def __init__(self, graph=None, ready_op=USE_DEFAULT, is_chief=True, init_op=USE_DEFAULT, init_feed_dict=None,
                 logdir=None, saver=USE_DEFAULT, global_step=USE_DEFAULT, recovery_wait_secs=30,
                 checkpoint_basename="model.ckpt", init_fn=None, **unused):
        self.graph = graph or get_default_graph()
        with self.graph.as_default():
            self._scaffold = Scaffold(None if init_op is USE_DEFAULT else init_op,
                                      None if ready_op is USE_DEFAULT else ready_op,
                                      None if saver is USE_DEFAULT else saver, init_feed_dict,
                                      None if init_fn is None else (lambda scaffold, sess: init_fn(sess))).finalize()
            self.global_step = get_global_step() if global_step is USE_DEFAULT else global_step
        self.is_chief, self.logdir = is_chief, logdir
        self.save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        self._stop = False

    @property
    def saver(self):
        return self._scaffold.saver

    @property
    def init_op(self):
        return self._scaffold.init_op

    @property
    def ready_op(self):
        return self._scaffold.ready_op

    def prepare_or_wait_for_session(self, master="", config=None, max_wait_secs=7200, **unused):
        """The chief: a Session with the variables initialised or restored. Others: a Session
        once the chief has done so."""
        sess = Session(master, graph=self.graph, config=config)
        prepare_session(sess, self._scaffold, self.is_chief, self.logdir, max_wait_secs)
        return sess

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, **unused):
        sess = self.prepare_or_wait_for_session(master, config)
        try:
            yield sess
        except Exception:
            self.request_stop()
            raise
        finally:
            self.stop()
            if self.is_chief and self.save_path and self.saver is not None:
                os.makedirs(self.logdir, exist_ok=True)
                step = self.global_step if self.global_step is not None else None
                self.saver.save(sess, self.save_path, global_step=step)
            sess.close()

    def should_stop(self):
        return self._stop

    def request_stop(self, ex=None):
        self._stop = True

    def stop(self, *unused, **kwargs):
        self._stop = True
