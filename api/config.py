"""TF's `tf.config`: eager execution of functions, devices, and the graph optimizer's
options (`tf.config.optimizer`)."""
from types import SimpleNamespace

from flowjit.frontend.eager.config import functions_run_eagerly, get_synchronous_execution, run_functions_eagerly, set_synchronous_execution
from flowjit.frontend.eager.device import LogicalDevice, LogicalDeviceConfiguration, PhysicalDevice, get_logical_device_configuration, list_logical_devices, list_physical_devices, set_logical_device_configuration
from flowjit.passes.pipeline import get_experimental_options, set_experimental_options

optimizer = SimpleNamespace(set_experimental_options=set_experimental_options,
                            get_experimental_options=get_experimental_options)
# TF's older names for logical devices live on in `tf.config.experimental`.
experimental = SimpleNamespace(set_synchronous_execution=set_synchronous_execution,
                               get_synchronous_execution=get_synchronous_execution,
                               set_virtual_device_configuration=set_logical_device_configuration,
                               get_virtual_device_configuration=get_logical_device_configuration,
                               VirtualDeviceConfiguration=LogicalDeviceConfiguration,
                               list_logical_devices=list_logical_devices,
                               list_physical_devices=list_physical_devices)
del get_experimental_options, set_experimental_options, SimpleNamespace
del get_synchronous_execution, set_synchronous_execution
