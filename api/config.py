"""TF's `tf.config`: eager execution of functions, devices, and the graph optimizer's
options (`tf.config.optimizer`)."""
from types import SimpleNamespace

from flowjit.frontend.config import functions_run_eagerly, run_functions_eagerly
from flowjit.frontend.device import (LogicalDevice, PhysicalDevice, list_logical_devices,
                                     list_physical_devices)
from flowjit.passes.pipeline import get_experimental_options, set_experimental_options

optimizer = SimpleNamespace(set_experimental_options=set_experimental_options,
                            get_experimental_options=get_experimental_options)
del get_experimental_options, set_experimental_options, SimpleNamespace
