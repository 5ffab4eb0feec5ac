"""``tf.train``: optimizers, moving averages, parameter-server placement, saving, clusters and TF's
training loops (Supervisor, MonitoredTrainingSession, their hooks)."""
from ..unimplemented import module_getattr
from ..graphs.encode import write_graph  # noqa: F401
from ..runtime.cluster import ClusterSpec, Server  # noqa: F401
from .device_setter import STANDARD_PS_OPS, replica_device_setter  # noqa: F401
from .training_util import (assert_global_step, create_global_step, get_global_step,  # noqa: F401
                          get_or_create_global_step, global_step)
from .meta_graph import export_meta_graph, import_meta_graph  # noqa: F401
from .moving_averages import ExponentialMovingAverage  # noqa: F401
from .optimizers import AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer, Optimizer  # noqa: F401
from .adaptive_optimizers import (AdadeltaOptimizer, AdagradOptimizer, FtrlOptimizer,  # noqa: F401
                                  ProximalAdagradOptimizer, ProximalGradientDescentOptimizer, RMSPropOptimizer)
from .saver import Saver, latest_checkpoint  # noqa: F401
from .saver_graph import SaverDef  # noqa: F401
from .coordinator import Coordinator, LooperThread  # noqa: F401
from .learning_rate_decay import (cosine_decay, cosine_decay_restarts, exponential_decay,  # noqa: F401
                                  inverse_time_decay, linear_cosine_decay, natural_exp_decay, piecewise_constant,
                                  polynomial_decay)
from .scaffold import Scaffold  # noqa: F401
from .session_manager import SessionManager  # noqa: F401
from .monitored_session import (ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession,  # noqa: F401
                                SessionCreator, SingularMonitoredSession, WorkerSessionCreator)
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues  # noqa: F401
from .basic_session_run_hooks import (CheckpointSaverHook, CheckpointSaverListener, FeedFnHook,  # noqa: F401
                                      FinalOpsHook, GlobalStepWaiterHook, LoggingTensorHook,
                                      NanLossDuringTrainingError, NanTensorHook, SecondOrStepTimer,
                                      StepCounterHook, StopAtStepHook, SummarySaverHook)
from .supervisor import Supervisor  # noqa: F401
from .summary_io import summary_iterator  # noqa: F401
from .queue_runner import QueueRunner, add_queue_runner, start_queue_runners  # noqa: F401
from .sync_replicas_optimizer import SyncReplicasOptimizer  # noqa: F401
from .checkpoint_utils import list_variables, load_variable  # noqa: F401
from .input import (batch, batch_join, input_producer, limit_epochs, match_filenames_once,  # noqa: F401
                    range_input_producer, shuffle_batch, shuffle_batch_join, slice_input_producer,
                    string_input_producer)
from ..ops.example_proto import BytesList, Example, Feature, Features, FloatList, Int64List  # noqa: F401

__getattr__ = module_getattr("tf.train", __name__)
