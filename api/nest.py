"""TF's `tf.nest`: nested structures of tensors."""
from flowjit.frontend.nest import (assert_same_structure, flatten, is_nested, map_structure,
                                   pack_sequence_as)
