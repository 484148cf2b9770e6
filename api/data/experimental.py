"""TF's `tf.data.experimental`: the names guides still use (`AUTOTUNE`, `cardinality`,
`assert_cardinality`, `sample_from_datasets`, ...)."""
import flowjit.frontend.data.csv  # noqa: F401  (exports CsvDataset, make_csv_dataset)
import flowjit.frontend.data.experimental  # noqa: F401  (exports its functions)
import flowjit.frontend.data.tfrecord  # noqa: F401  (exports TFRecordWriter)
from flowjit.frontend.export import install as _install

_install(globals(), "data.experimental")
