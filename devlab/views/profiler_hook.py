"""``tf.train.ProfilerHook``: every n steps (or seconds) a traced step, written as a Chrome trace.

As TF's hook: the step after the trigger runs with ``RunOptions(trace_level=FULL_TRACE)``, its
``RunMetadata.step_stats`` becomes ``<output_dir>/timeline-<global step>.json`` (devlab's
timeline, ``chrome_trace.py``: modelled times where a device is simulated) and the run metadata
goes to the directory's summary writer under ``step_<global step>``. It lives beside the
timeline it writes, a layer above the other hooks.
"""
import os

from .. import tf_logging as logging
from ..runtime.protos import RunOptions
from ..train import summary_io
from ..train.basic_session_run_hooks import SecondOrStepTimer, _global_step_read
from ..train.session_run_hook import SessionRunArgs, SessionRunHook
from .chrome_trace import Timeline


class ProfilerHook(SessionRunHook):
    """Saves a timeline of one step every ``save_steps`` steps or ``save_secs`` seconds (exactly one)."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = summary_io.writer_for(output_dir)
        self._show_dataflow, self._show_memory = show_dataflow, show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_read("ProfilerHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(self._next_step)
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:  # the timer starts counting at the first step
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(global_step)
            self._save(global_step, self._output_file.format(global_step), run_values.run_metadata.step_stats)
            if self._file_writer is not None:
                self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step, save_path, step_stats):
        logging.info("Saving timeline for %d into '%s'.", step, save_path)
        trace = Timeline(step_stats).generate_chrome_trace_format(show_dataflow=self._show_dataflow,
                                                                 show_memory=self._show_memory)
        with open(save_path, "w") as f:
            f.write(trace)
