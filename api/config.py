"""TF's `tf.config`: eager execution of functions, devices, and the graph optimizer's
options (`tf.config.optimizer`)."""
from types import SimpleNamespace

from flowjit.frontend.eager.config import functions_run_eagerly, get_synchronous_execution, run_functions_eagerly, set_synchronous_execution
from flowjit.frontend.eager.config import get_intra_op_parallelism_threads, set_intra_op_parallelism_threads
from flowjit.frontend.eager.device import LogicalDevice, LogicalDeviceConfiguration, PhysicalDevice, get_logical_device_configuration, list_logical_devices, list_physical_devices, set_logical_device_configuration
from flowjit.frontend.function.retracing import get_strict_retracing, set_strict_retracing
from flowjit.frontend.function.warm_start import compilation_cache_dir, disable_compilation_cache, enable_compilation_cache


def set_experimental_options(options: dict):
    """TF's graph-optimizer options (`constant_folding`, `disable_meta_optimizer`, ...):
    validated and stored for the traces that follow."""
    from flowjit.passes.pipeline import set_experimental_options as set_options
    set_options(options)


def get_experimental_options() -> dict:
    from flowjit.passes.pipeline import get_experimental_options as get_options
    return get_options()


optimizer = SimpleNamespace(set_experimental_options=set_experimental_options,
                            get_experimental_options=get_experimental_options)
# TF's older names for logical devices live on in `tf.config.experimental`.
experimental = SimpleNamespace(set_synchronous_execution=set_synchronous_execution,
                               get_synchronous_execution=get_synchronous_execution,
                               set_strict_retracing=set_strict_retracing,
                               get_strict_retracing=get_strict_retracing,
                               enable_compilation_cache=enable_compilation_cache,
                               disable_compilation_cache=disable_compilation_cache,
                               compilation_cache_dir=compilation_cache_dir,
                               set_virtual_device_configuration=set_logical_device_configuration,
                               get_virtual_device_configuration=get_logical_device_configuration,
                               VirtualDeviceConfiguration=LogicalDeviceConfiguration,
                               list_logical_devices=list_logical_devices,
                               list_physical_devices=list_physical_devices)
threading = SimpleNamespace(set_intra_op_parallelism_threads=set_intra_op_parallelism_threads,
                            get_intra_op_parallelism_threads=get_intra_op_parallelism_threads)
del get_experimental_options, set_experimental_options, SimpleNamespace
del get_intra_op_parallelism_threads, set_intra_op_parallelism_threads
del get_synchronous_execution, set_synchronous_execution
del get_strict_retracing, set_strict_retracing
del compilation_cache_dir, disable_compilation_cache, enable_compilation_cache
