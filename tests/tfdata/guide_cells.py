"""The code cells of TF's tf.data guides ("tf.data: Build TensorFlow input pipelines" and
"Better performance with the tf.data API"), as functions of the framework module.

Each cell is `cell(tf, folder)` returning what the guide prints, as JSON (`as_json`).
`tools/record_tfdata_guide.py` runs them under TF 2.21 and writes
tests/data/tfdata_guide.json; `test_guide_cells.py` runs them under flowjit and compares.
Cells that download a file get a small file written to `folder` with the same API calls;
where TF's order is random (unseeded shuffles, sampling), a cell returns what does not
depend on the order (sorted values, sums, checks of the property the guide shows). guide_audit.py
lists every code cell of both guides with the cell here that runs it, or why none does
(plots, image codecs, downloads).
"""
import collections
import itertools
import os
import time

import numpy as np

CELLS = {}


def cell(fn):
    CELLS[fn.__name__] = fn
    return fn


def as_json(x):
    """An element (nested tuples/dicts of tensors or arrays) as JSON."""
    if isinstance(x, dict):
        return {str(k): as_json(v) for k, v in sorted(x.items())}
    if isinstance(x, (tuple, list)):
        return [as_json(v) for v in x]
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    a = x.numpy() if hasattr(x, "numpy") else x
    a = np.asarray(a, object) if isinstance(a, bytes) else np.asarray(a)
    if a.dtype.kind in "OS":
        return {"bytes": [b.decode() for b in a.reshape(-1)], "shape": list(a.shape)}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": a.reshape(-1).tolist()}


def run(name, tf, folder):
    """The cell's result as plain JSON values (NumPy scalars as Python numbers)."""
    import json
    return json.loads(json.dumps(CELLS[name](tf, folder), default=lambda o: o.item()))


def _spec(ds):
    return repr(ds.element_spec)


# --- files standing in for the guide's downloads ----------------------------------------------
TITANIC_HEADER = "survived,sex,age,n_siblings_spouses,parch,fare,class,deck,embark_town,alone\n"
TITANIC = ("0,male,22.0,1,0,7.25,Third,unknown,Southampton,n\n"
           "1,female,38.0,1,0,71.2833,First,C,Cherbourg,n\n"
           "1,female,26.0,0,0,7.925,Third,unknown,Southampton,y\n"
           "1,female,35.0,1,0,53.1,First,C,Southampton,n\n"
           "0,male,28.0,0,0,8.4583,Third,unknown,Queenstown,y\n"
           "0,male,2.0,3,1,21.075,Third,unknown,Southampton,n\n"
           "1,female,27.0,0,2,11.1333,Third,unknown,Southampton,n\n"
           "1,female,14.0,1,0,30.0708,Second,unknown,Cherbourg,n\n"
           "1,female,4.0,1,1,16.7,Third,G,Southampton,n\n"
           "0,male,20.0,0,0,8.05,Third,unknown,Southampton,y\n"
           "0,male,39.0,1,5,31.275,Third,unknown,Southampton,n\n"
           "0,female,14.0,0,0,7.8542,Third,unknown,Southampton,y\n")


def _titanic(folder):
    path = os.path.join(folder, "train.csv")
    with open(path, "w") as f:
        f.write(TITANIC_HEADER + TITANIC * 30)   # 361 lines: a header and 360 passengers
    return path


def _illiad(folder):
    paths = []
    for name in ("cowper", "derby", "butler"):
        path = os.path.join(folder, f"{name}.txt")
        with open(path, "w") as f:
            for i in range(12):
                f.write(f"{name} line {i}: Achilles sing, O goddess{'!' * (i % 3)}\n")
        paths.append(path)
    return paths


# --- data.ipynb: basic mechanics --------------------------------------------------------------
@cell
def basic_iterate(tf, folder):
    dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
    out = [elem.numpy() for elem in dataset]
    it = iter(dataset)
    first = next(it).numpy()
    total = dataset.reduce(0, lambda state, value: state + value).numpy()
    return as_json([out, first, total, _spec(dataset)])


@cell
def structure_specs(tf, folder):
    dataset1 = tf.data.Dataset.from_tensor_slices(tf.random.uniform([4, 10]))
    dataset2 = tf.data.Dataset.from_tensor_slices(
        (tf.random.uniform([4]), tf.random.uniform([4, 100], maxval=100, dtype=tf.int32)))
    dataset3 = tf.data.Dataset.zip((dataset1, dataset2))
    return [_spec(dataset1), _spec(dataset2), _spec(dataset3)]


@cell
def structure_iterate(tf, folder):
    dataset1 = tf.data.Dataset.from_tensor_slices(
        tf.random.uniform([4, 10], minval=1, maxval=10, dtype=tf.int32))
    values = [z.numpy() for z in dataset1]
    in_range = all(((v >= 1) & (v < 10)).all() for v in values)
    dataset2 = tf.data.Dataset.from_tensor_slices(
        (tf.random.uniform([4]), tf.random.uniform([4, 100], maxval=100, dtype=tf.int32)))
    dataset3 = tf.data.Dataset.zip((dataset1, dataset2))
    shapes = ['shapes: {a.shape}, {b.shape}, {c.shape}'.format(a=a, b=b, c=c)
              for a, (b, c) in dataset3]
    return [len(values), in_range, shapes]


@cell
def numpy_arrays(tf, folder):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(50, 28, 28)).astype(np.uint8)
    labels = rng.integers(0, 10, size=50).astype(np.uint8)
    images = images / 255
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    first = next(iter(dataset))
    return [_spec(dataset), int(dataset.cardinality()), as_json(first)]


# --- data.ipynb: generators -------------------------------------------------------------------
def _count(stop):
    i = 0
    while i < stop:
        yield i
        i += 1


@cell
def generator_count(tf, folder):
    ds_counter = tf.data.Dataset.from_generator(_count, args=[25], output_types=tf.int32,
                                                output_shapes=(), )
    return [_spec(ds_counter)] + [b.numpy().tolist()
                                  for b in ds_counter.repeat().batch(10).take(10)]


def _gen_series():
    # the guide's series, of sizes that do not depend on a random generator
    for i in range(30):
        yield i, np.linspace(0.5, 1.0, (i * 7) % 10)


@cell
def generator_series(tf, folder):
    ds_series = tf.data.Dataset.from_generator(
        _gen_series, output_types=(tf.int32, tf.float32), output_shapes=((), (None,)))
    ds_series_batch = ds_series.shuffle(20).padded_batch(10, padded_shapes=([], [None]))
    ids, sequence_batch = next(iter(ds_series_batch))
    widths, all_ids = [], []
    for ids_b, seq_b in ds_series.shuffle(20).padded_batch(10):
        all_ids += ids_b.numpy().tolist()
        widths.append(seq_b.shape[1] == max((i * 7) % 10 for i in ids_b.numpy()))
    return [_spec(ds_series), _spec(ds_series_batch), list(ids.shape),
            sequence_batch.shape[0], sorted(all_ids), widths]


@cell
def generator_signature(tf, folder):
    def gen():
        for i in range(5):
            yield {"id": i, "values": np.arange(i, dtype=np.float32)}
    ds = tf.data.Dataset.from_generator(gen, output_signature={
        "id": tf.TensorSpec(shape=(), dtype=tf.int64),
        "values": tf.TensorSpec(shape=(None,), dtype=tf.float32)})
    return [_spec(ds), as_json(list(ds.padded_batch(2).as_numpy_iterator()))]


# --- data.ipynb: text and CSV -----------------------------------------------------------------
@cell
def text_lines(tf, folder):
    file_paths = _illiad(folder)
    dataset = tf.data.TextLineDataset(file_paths)
    first = [line.numpy() for line in dataset.take(5)]
    files_ds = tf.data.Dataset.from_tensor_slices(file_paths)
    lines_ds = files_ds.interleave(tf.data.TextLineDataset, cycle_length=3)
    interleaved = [line.numpy() for line in lines_ds.take(9)]
    return as_json([first, interleaved, _spec(lines_ds)])


@cell
def text_filter(tf, folder):
    titanic_lines = tf.data.TextLineDataset(_titanic(folder))
    head = [line.numpy() for line in titanic_lines.take(10)]

    def survived(line):
        return tf.not_equal(tf.strings.substr(line, 0, 1), "0")

    survivors = titanic_lines.skip(1).filter(survived)
    return as_json([head, [line.numpy() for line in survivors.take(10)]])


@cell
def csv_dict_slices(tf, folder):
    # the guide's pandas DataFrame as its columns
    columns = {"survived": np.array([0, 1, 1]), "sex": np.array([b"male", b"female", b"f"]),
               "age": np.array([22.0, 38.0, 26.0]), "fare": np.array([7.25, 71.3, 7.9])}
    titanic_slices = tf.data.Dataset.from_tensor_slices(dict(columns))
    out = []
    for feature_batch in titanic_slices.take(1):
        for key, value in feature_batch.items():
            out.append([key, as_json(value)])
    return [_spec(titanic_slices), out]


@cell
def csv_dataset(tf, folder):
    titanic_file = _titanic(folder)
    titanic_types = [tf.int32, tf.string, tf.float32, tf.int32, tf.int32, tf.float32,
                     tf.string, tf.string, tf.string, tf.string]
    dataset = tf.data.experimental.CsvDataset(titanic_file, titanic_types, header=True)
    return [_spec(dataset)] + [as_json([item for item in line]) for line in dataset.take(10)]


@cell
def csv_missing(tf, folder):
    path = os.path.join(folder, "missing.csv")
    with open(path, "w") as f:
        f.write("1,2,3,4\n,2,3,4\n1,,3,4\n1,2,,4\n1,2,3,\n,,,\n")
    dataset = tf.data.experimental.CsvDataset(path, [999, 999, 999, 999])
    dataset = dataset.map(lambda *items: tf.stack(items))
    all_cols = [line.numpy().tolist() for line in dataset]
    dataset = tf.data.experimental.CsvDataset(path, [999, 999], select_cols=[1, 3])
    dataset = dataset.map(lambda *items: tf.stack(items))
    return [_spec(dataset), all_cols, [line.numpy().tolist() for line in dataset]]


@cell
def make_csv_dataset(tf, folder):
    titanic_batches = tf.data.experimental.make_csv_dataset(
        _titanic(folder), batch_size=4, label_name="survived")
    out = []
    for feature_batch, label_batch in titanic_batches.take(1):
        out.append(list(label_batch.shape))
        for key, value in feature_batch.items():
            out.append([key, value.dtype.name, list(value.shape)])
    titanic_batches = tf.data.experimental.make_csv_dataset(
        _titanic(folder), batch_size=4, label_name="survived",
        select_columns=['class', 'fare', 'survived'])
    for feature_batch, label_batch in titanic_batches.take(1):
        out.append(sorted(feature_batch))
    return out


# --- data.ipynb: sets of files ----------------------------------------------------------------
@cell
def list_files_read(tf, folder):
    root = os.path.join(folder, "flower_photos")
    for kind in ("daisy", "roses", "tulips"):
        os.makedirs(os.path.join(root, kind), exist_ok=True)
        for i in range(3):
            with open(os.path.join(root, kind, f"{i}.jpg"), "wb") as f:
                f.write(f"{kind} image {i}".encode() * 10)
    list_ds = tf.data.Dataset.list_files(os.path.join(root, "*/*"))
    names = sorted(os.path.relpath(f.numpy().decode(), root) for f in list_ds)

    def process_path(file_path):
        label = tf.strings.split(file_path, os.sep)[-2]
        return tf.io.read_file(file_path), label

    labeled_ds = list_ds.map(process_path)
    pairs = sorted((raw.numpy()[:20].decode(), label.numpy().decode())
                   for raw, label in labeled_ds)
    return [names, _spec(labeled_ds), [list(p) for p in pairs]]


# --- data.ipynb: batching ---------------------------------------------------------------------
@cell
def batch_simple(tf, folder):
    inc_dataset = tf.data.Dataset.range(100)
    dec_dataset = tf.data.Dataset.range(0, -100, -1)
    dataset = tf.data.Dataset.zip((inc_dataset, dec_dataset))
    batched_dataset = dataset.batch(4)
    out = [[arr.numpy().tolist() for arr in batch] for batch in batched_dataset.take(4)]
    return [out, _spec(batched_dataset), _spec(dataset.batch(7, drop_remainder=True))]


@cell
def batch_padded(tf, folder):
    dataset = tf.data.Dataset.range(100)
    dataset = dataset.map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
    dataset = dataset.padded_batch(4, padded_shapes=(None,))
    return [_spec(dataset)] + [as_json(batch) for batch in dataset.take(2)]


# --- data.ipynb: training workflows -----------------------------------------------------------
@cell
def epochs(tf, folder):
    titanic_lines = tf.data.TextLineDataset(_titanic(folder))
    straddle = [batch.shape[0] for batch in titanic_lines.repeat(3).batch(128)]
    separate = [batch.shape[0] for batch in titanic_lines.batch(128).repeat(3)]
    shapes = []
    dataset = titanic_lines.batch(128)
    for epoch in range(3):
        for batch in dataset:
            shapes.append(list(batch.shape))
        shapes.append(f"End of epoch: {epoch}")
    return [straddle, separate, shapes]


@cell
def shuffle_counter(tf, folder):
    lines = tf.data.TextLineDataset(_titanic(folder))
    counter = tf.data.experimental.Counter()
    dataset = tf.data.Dataset.zip((counter, lines))
    dataset = dataset.shuffle(buffer_size=100)
    dataset = dataset.batch(20)
    n, line_batch = next(iter(dataset))
    first_ok = bool((n.numpy() < 120).all()) and len(set(n.numpy().tolist())) == 20

    dataset = tf.data.Dataset.zip((counter, lines))
    shuffled = dataset.shuffle(buffer_size=100).batch(10).repeat(2)
    ids = [n.numpy() for n, line_batch in shuffled]
    # a shuffle before the repeat ends one epoch before the next starts
    epoch1 = sorted(np.concatenate(ids[:37]).tolist())
    epoch2 = sorted(np.concatenate(ids[37:]).tolist())
    mixed = tf.data.Dataset.zip((counter, lines)).repeat(2).shuffle(buffer_size=100).batch(10)
    all_mixed = sorted(np.concatenate([n.numpy() for n, _ in mixed]).tolist())
    return [_spec(dataset.shuffle(100).batch(20)), first_ok, len(ids),
            epoch1 == epoch2 == list(range(361)), all_mixed == sorted(list(range(361)) * 2)]


# --- data.ipynb: preprocessing ----------------------------------------------------------------
@cell
def py_function_map(tf, folder):
    images = np.arange(2 * 8 * 8 * 3, dtype=np.float32).reshape(2, 8, 8, 3) / 100.0
    images_ds = tf.data.Dataset.from_tensor_slices((images, np.array([b"a", b"b"])))

    def flip_image(image):
        return np.flip(image.numpy() if hasattr(image, "numpy") else image, axis=1)

    def tf_flip_image(image, label):
        im_shape = image.shape
        [image, ] = tf.py_function(flip_image, [image], [tf.float32])
        image.set_shape(im_shape)
        return image, label

    rot_ds = images_ds.map(tf_flip_image)
    return [_spec(rot_ds), as_json(list(rot_ds.take(2)))]


@cell
def time_series_batch(tf, folder):
    range_ds = tf.data.Dataset.range(100000)
    batches = range_ds.batch(10, drop_remainder=True)
    out = [[batch.numpy().tolist() for batch in batches.take(5)]]

    def dense_1_step(batch):
        return batch[:-1], batch[1:]

    out.append([as_json(x) for x in batches.map(dense_1_step).take(3)])
    batches = range_ds.batch(15, drop_remainder=True)

    def label_next_5_steps(batch):
        return (batch[:-5], batch[-5:])

    out.append([as_json(x) for x in batches.map(label_next_5_steps).take(3)])
    features = range_ds.batch(10, drop_remainder=True)
    labels = range_ds.batch(10).skip(1).map(lambda labels: labels[:-5])
    predict_5_steps = tf.data.Dataset.zip((features, labels))
    out.append([as_json(x) for x in predict_5_steps.take(3)])
    return out


@cell
def time_series_window(tf, folder):
    range_ds = tf.data.Dataset.range(100000)
    window_size = 5
    windows = range_ds.window(window_size, shift=1)
    subs = [_spec(sub_ds) for sub_ds in windows.take(5)]
    flat = [x.numpy() for x in windows.flat_map(lambda x: x).take(30)]

    def sub_to_batch(sub):
        return sub.batch(window_size, drop_remainder=True)

    batched = [example.numpy().tolist() for example in windows.flat_map(sub_to_batch).take(5)]

    def make_window_dataset(ds, window_size=5, shift=1, stride=1):
        windows = ds.window(window_size, shift=shift, stride=stride)

        def sub_to_batch(sub):
            return sub.batch(window_size, drop_remainder=True)

        return windows.flat_map(sub_to_batch)

    ds = make_window_dataset(range_ds, window_size=10, shift=5, stride=3)
    strided = [example.numpy().tolist() for example in ds.take(10)]
    dense = [as_json(x) for x in ds.map(lambda b: (b[:-1], b[1:])).take(3)]
    return [_spec(windows), subs, as_json(flat), batched, strided, dense]


def _creditcard(tf):
    rng = np.random.default_rng(5)
    labels = (rng.random(5000) < 0.02).astype(np.int32)
    features = rng.normal(size=(5000, 4)).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices((features, labels)).batch(1024), labels


@cell
def resample_counts(tf, folder):
    creditcard_ds, labels = _creditcard(tf)

    def count(counts, batch):
        features, labels = batch
        class_1 = tf.cast(labels == 1, tf.int32)
        class_0 = tf.cast(labels == 0, tf.int32)
        counts['class_0'] += tf.reduce_sum(class_0)
        counts['class_1'] += tf.reduce_sum(class_1)
        return counts

    counts = creditcard_ds.take(10).reduce(initial_state={'class_0': 0, 'class_1': 0},
                                           reduce_func=count)
    counts = np.array([counts['class_0'].numpy(), counts['class_1'].numpy()]).astype(
        np.float32)
    return as_json(counts / counts.sum())


@cell
def resample_sampling(tf, folder):
    creditcard_ds, _ = _creditcard(tf)
    negative_ds = creditcard_ds.unbatch().filter(lambda features, label: label == 0).repeat()
    positive_ds = creditcard_ds.unbatch().filter(lambda features, label: label == 1).repeat()
    positives = [label.numpy().tolist() for features, label in positive_ds.batch(10).take(1)]
    balanced_ds = tf.data.experimental.sample_from_datasets(
        [negative_ds, positive_ds], [0.5, 0.5]).batch(10)
    seen = np.concatenate([labels.numpy() for features, labels in balanced_ds.take(50)])
    # the guide's point: about half of the sampled labels are 1
    return [positives, _spec(balanced_ds), len(seen), bool(0.35 < seen.mean() < 0.65)]


@cell
def resample_rejection(tf, folder):
    # seeded, and 400 elements per balance check: without initial_dist flowjit's class
    # estimate starts from the first few elements' counts, and with 100 elements 1 run in
    # 10 fell outside the check's range
    tf.random.set_seed(7)
    creditcard_ds, labels = _creditcard(tf)
    fractions = np.array([1 - labels.mean(), labels.mean()], np.float32)

    def class_func(features, label):
        return label

    resampler = tf.data.experimental.rejection_resample(
        class_func, target_dist=[0.5, 0.5], initial_dist=fractions)
    resample_ds = creditcard_ds.unbatch().apply(resampler).batch(10)
    balanced_ds = resample_ds.map(lambda extra_label, features_and_label: features_and_label)
    seen = np.concatenate([labels.numpy() for features, labels in balanced_ds.take(40)])
    method = creditcard_ds.unbatch().rejection_resample(class_func, target_dist=[0.5, 0.5])
    extra = np.concatenate([np.stack([k.numpy(), fl[1].numpy()], 1)
                            for k, fl in method.batch(10).take(40)])
    return [_spec(resample_ds), _spec(balanced_ds), bool(0.3 < seen.mean() < 0.7),
            bool((extra[:, 0] == extra[:, 1]).all()), bool(0.3 < extra[:, 1].mean() < 0.7)]


@cell
def iterator_checkpoint(tf, folder):
    range_ds = tf.data.Dataset.range(20)
    iterator = iter(range_ds)
    ckpt = tf.train.Checkpoint(step=tf.Variable(0), iterator=iterator)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(folder, "my_ckpt"), max_to_keep=3)
    out = [[next(iterator).numpy() for _ in range(5)]]
    manager.save()
    out.append([next(iterator).numpy() for _ in range(5)])
    ckpt.restore(manager.latest_checkpoint)
    out.append([next(iterator).numpy() for _ in range(5)])
    return as_json(out)


# --- data_performance.ipynb -------------------------------------------------------------------
def _artificial_dataset(tf, delay):
    class ArtificialDataset(tf.data.Dataset):
        def _generator(num_samples):
            time.sleep(delay)   # opening the file
            for sample_idx in range(num_samples):
                time.sleep(delay)   # reading a record
                yield (sample_idx,)

        def __new__(cls, num_samples=3):
            return tf.data.Dataset.from_generator(
                cls._generator, output_signature=tf.TensorSpec(shape=(1,), dtype=tf.int64),
                args=(num_samples,))

    return ArtificialDataset


def _benchmark(dataset, num_epochs=2):
    seen = []
    for epoch_num in range(num_epochs):
        for sample in dataset:
            seen.append(sample.numpy().tolist())
    return seen


@cell
def perf_prefetch_interleave(tf, folder):
    ArtificialDataset = _artificial_dataset(tf, 0.001)
    out = [_benchmark(ArtificialDataset()),
           _benchmark(ArtificialDataset().prefetch(tf.data.AUTOTUNE)),
           _benchmark(tf.data.Dataset.range(2).interleave(lambda _: ArtificialDataset())),
           _benchmark(tf.data.Dataset.range(2).interleave(
               lambda _: ArtificialDataset(), num_parallel_calls=tf.data.AUTOTUNE))]
    return out


@cell
def perf_map_cache(tf, folder):
    ArtificialDataset = _artificial_dataset(tf, 0.001)

    def mapped_function(s):
        # a time-consuming preprocessing step
        tf.py_function(lambda: time.sleep(0.001), [], ())
        return s

    out = [_benchmark(ArtificialDataset().map(mapped_function)),
           _benchmark(ArtificialDataset().map(mapped_function,
                                               num_parallel_calls=tf.data.AUTOTUNE)),
           _benchmark(ArtificialDataset().map(mapped_function).cache(), 5)]
    return out


@cell
def perf_vectorize(tf, folder):
    fast_dataset = tf.data.Dataset.range(10000)

    def fast_benchmark(dataset, num_epochs=2):
        total = 0
        for _ in tf.data.Dataset.range(num_epochs):
            for _ in dataset:
                total += 1
        return total

    def increment(x):
        return x + 1

    scalar = fast_dataset.map(increment).batch(256)
    vector = fast_dataset.batch(256).map(increment)
    sums = [int(sum(b.numpy().sum() for b in d)) for d in (scalar, vector)]
    return [fast_benchmark(scalar), fast_benchmark(vector), _spec(scalar), _spec(vector), sums]


def _time_measured_dataset(tf):
    instances = itertools.count()
    epochs = collections.defaultdict(itertools.count)

    class TimeMeasuredDataset(tf.data.Dataset):
        OUTPUT_SIGNATURE = (tf.TensorSpec(shape=(2, 1), dtype=tf.string),
                            tf.TensorSpec(shape=(2, 2), dtype=tf.float32),
                            tf.TensorSpec(shape=(2, 3), dtype=tf.int32))

        def _generator(instance_idx, num_samples):
            epoch_idx = next(epochs[instance_idx])
            open_enter = time.perf_counter()
            open_elapsed = time.perf_counter() - open_enter
            for sample_idx in range(num_samples):
                read_enter = time.perf_counter()
                read_elapsed = time.perf_counter() - read_enter
                yield ([("Open",), ("Read",)],
                       [(open_enter, open_elapsed), (read_enter, read_elapsed)],
                       [(instance_idx, epoch_idx, -1), (instance_idx, epoch_idx, sample_idx)])
                open_enter, open_elapsed = -1., -1.

        def __new__(cls, num_samples=3):
            return tf.data.Dataset.from_generator(
                cls._generator, output_signature=cls.OUTPUT_SIGNATURE,
                args=(next(instances), num_samples))

    return TimeMeasuredDataset


def _map_decorator(tf, func):
    def wrapper(steps, times, values):
        return tf.py_function(func, inp=(steps, times, values),
                              Tout=(steps.dtype, times.dtype, values.dtype))
    return wrapper


def _timelined_benchmark(tf, dataset, num_epochs=2):
    steps_acc = tf.zeros([0, 1], dtype=tf.dtypes.string)
    times_acc = tf.zeros([0, 2], dtype=tf.dtypes.float32)
    values_acc = tf.zeros([0, 3], dtype=tf.dtypes.int32)
    for epoch_num in range(num_epochs):
        for (steps, times, values) in dataset:
            steps_acc = tf.concat((steps_acc, steps), axis=0)
            times_acc = tf.concat((times_acc, times), axis=0)
            values_acc = tf.concat((values_acc, values), axis=0)
    return {"steps": steps_acc, "values": values_acc}


@cell
def perf_timelined(tf, folder):
    TimeMeasuredDataset = _time_measured_dataset(tf)

    def naive_map(steps, times, values):
        map_enter = time.perf_counter()
        map_elapsed = time.perf_counter() - map_enter
        return (tf.concat((steps, [["Map"]]), axis=0),
                tf.concat((times, [[map_enter, map_elapsed]]), axis=0),
                tf.concat((values, [values[-1]]), axis=0))

    naive = (tf.data.Dataset.range(2)
             .flat_map(lambda _: TimeMeasuredDataset())
             .map(_map_decorator(tf, naive_map)))
    naive_out = _timelined_benchmark(tf, naive)

    def fast_map(steps, times, values):
        return (tf.concat((steps, tf.tile([[["Map"]]], [tf.shape(steps)[0], 1, 1])), axis=1),
                tf.concat((times, tf.zeros([tf.shape(times)[0], 1, 2])), axis=1),
                tf.concat((values, values[:, -1:]), axis=1))

    optimized = (tf.data.Dataset.range(2)
                 .interleave(lambda _: TimeMeasuredDataset(),
                             num_parallel_calls=tf.data.AUTOTUNE)
                 .batch(256, num_parallel_calls=tf.data.AUTOTUNE, drop_remainder=False)
                 .map(fast_map, num_parallel_calls=tf.data.AUTOTUNE)
                 .cache()
                 .prefetch(tf.data.AUTOTUNE)
                 .unbatch())
    opt_out = _timelined_benchmark(tf, optimized)
    # the samples and steps (perf_timelined_guide compares the instance and epoch indices)
    return [_spec(naive), _spec(optimized)] + [
        [sorted(out["values"].numpy()[:, 2].tolist()),
         sorted(s.decode() for s in out["steps"].numpy().reshape(-1))]
        for out in (naive_out, opt_out)]


@cell
def loop_in_function(tf, folder):
    # the typical pipeline of the guides, iterated eagerly and in a tf.function
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    ds = tf.data.Dataset.from_tensor_slices((x, np.arange(20))).shuffle(10, seed=3).batch(8)

    @tf.function
    def epoch_sum(dataset):
        total = tf.constant(0.0)
        count = tf.constant(0, tf.int64)
        for xb, yb in dataset:
            total += tf.reduce_sum(xb)
            count += tf.reduce_sum(yb)
        return total, count

    eager = [sum(float(tf.reduce_sum(xb)) for xb, _ in ds),
             sorted(int(v) for _, yb in ds for v in yb.numpy())]
    staged = epoch_sum(ds)
    return [eager, float(staged[0]), int(staged[1]), [b[0].shape[0] for b in ds]]


# --- composite elements: data.ipynb's sparse cells, and ragged_tensor.ipynb's "Datasets" -----
# section (its `feature_tensors` come from tf.io.parse_example of four tf.train.Examples;
# here the same ragged features are built directly)
def _composite_json(x):
    """`as_json`, with a SparseTensor as its three arrays and a RaggedTensor as its rows."""
    if isinstance(x, dict):
        return {str(k): _composite_json(v) for k, v in sorted(x.items())}
    if hasattr(x, "dense_shape"):
        return {"sparse": [as_json(x.indices), as_json(x.values), as_json(x.dense_shape)]}
    if hasattr(x, "nested_row_splits"):
        return {"ragged": _decoded(x.to_list()), "dtype": x.dtype.name}
    return as_json(x)


def _decoded(rows):
    if isinstance(rows, list):
        return [_decoded(r) for r in rows]
    return rows.decode() if isinstance(rows, bytes) else rows


@cell
def structure_sparse(tf, folder):
    dataset4 = tf.data.Dataset.from_tensors(
        tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4]))
    return [_spec(dataset4), dataset4.element_spec.value_type.__name__,
            [_composite_json(e) for e in dataset4]]


def _feature_tensors(tf):
    return {"colors": tf.ragged.constant([["red", "blue"], ["orange"], ["black", "yellow"],
                                          ["green"]]),
            "lengths": tf.ragged.constant([[7], [], [1, 3], [3, 5, 2]], dtype=tf.int64)}


def _dictionary_dataset(dataset):
    # the guide's print_dictionary_dataset, returning what it prints
    return [_composite_json(element) for element in dataset]


@cell
def ragged_dataset_slices(tf, folder):
    dataset = tf.data.Dataset.from_tensor_slices(_feature_tensors(tf))
    return [_spec(dataset), _dictionary_dataset(dataset)]


@cell
def ragged_dataset_batch_unbatch(tf, folder):
    dataset = tf.data.Dataset.from_tensor_slices(_feature_tensors(tf))
    batched_dataset = dataset.batch(2)
    unbatched_dataset = batched_dataset.unbatch()
    return [_spec(batched_dataset), _dictionary_dataset(batched_dataset),
            _spec(unbatched_dataset), _dictionary_dataset(unbatched_dataset)]


@cell
def ragged_dense_to_ragged_batch(tf, folder):
    non_ragged_dataset = tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8])
    non_ragged_dataset = non_ragged_dataset.map(tf.range)
    batched_non_ragged_dataset = non_ragged_dataset.apply(
        tf.data.experimental.dense_to_ragged_batch(2))
    return [_spec(batched_non_ragged_dataset),
            [_composite_json(element) for element in batched_non_ragged_dataset]]


@cell
def ragged_dataset_map(tf, folder):
    dataset = tf.data.Dataset.from_tensor_slices(_feature_tensors(tf))

    def transform_lengths(features):
        return {
            'mean_length': tf.math.reduce_mean(features['lengths']),
            'length_ranges': tf.ragged.range(features['lengths'])}
    transformed_dataset = dataset.map(transform_lengths)
    return [_spec(transformed_dataset), _dictionary_dataset(transformed_dataset)]


# --- the guides' cells the first rounds left out, and the current guides' variants ----------------
@cell
def generator_images(tf, folder):
    """The ImageDataGenerator cells' dataset: a generator of (32 images, 32 one-hot labels)
    batches standing in for `flow_from_directory` (which decodes JPEGs)."""
    def flow():
        rng = np.random.default_rng(4)
        for _ in range(3):
            yield (rng.random((32, 256, 256, 3), np.float32),
                   np.eye(5, dtype=np.float32)[rng.integers(0, 5, 32)])

    ds = tf.data.Dataset.from_generator(
        flow, output_types=(tf.float32, tf.float32),
        output_shapes=([32, 256, 256, 3], [32, 5]))
    out = [_spec(ds)]
    for images, label in ds.take(1):
        out += [list(images.shape), list(label.shape), float(tf.reduce_sum(label))]
    return out


@cell
def time_series_zip(tf, folder):
    """The guide's current overlap of features and labels (label_length = 3)."""
    range_ds = tf.data.Dataset.range(100000)
    feature_length = 10
    label_length = 3
    features = range_ds.batch(feature_length, drop_remainder=True)
    labels = range_ds.batch(feature_length).skip(1).map(lambda labels: labels[:label_length])
    predicted_steps = tf.data.Dataset.zip((features, labels))
    return [_spec(predicted_steps)] + [as_json(x) for x in predicted_steps.take(5)]


@cell
def resample_csv(tf, folder):
    """The credit card file read as the guide reads it: 30 float columns and an int label
    with `column_defaults`. 2048 rows are two batches of 1024 per (shuffled) epoch, so the
    class counts of ten batches do not depend on the order."""
    rng = np.random.default_rng(6)
    path = os.path.join(folder, "creditcard.csv")
    names = ["Time"] + [f"V{i}" for i in range(1, 29)] + ["Amount", "Class"]
    with open(path, "w") as f:
        f.write(",".join(f'"{n}"' for n in names) + "\n")
        for i in range(2048):
            values = rng.normal(size=30).round(4)
            f.write(",".join(map(str, values)) + f",{int(i % 16 == 0)}\n")
    creditcard_ds = tf.data.experimental.make_csv_dataset(
        path, batch_size=1024, label_name="Class",
        column_defaults=[float()] * 30 + [int()])

    def count(counts, batch):
        features, labels = batch
        class_1 = tf.cast(labels == 1, tf.int32)
        class_0 = tf.cast(labels == 0, tf.int32)
        counts['class_0'] += tf.reduce_sum(class_0)
        counts['class_1'] += tf.reduce_sum(class_1)
        return counts

    counts = creditcard_ds.take(10).reduce(initial_state={'class_0': 0, 'class_1': 0},
                                           reduce_func=count)
    counts = np.array([counts['class_0'].numpy(), counts['class_1'].numpy()]).astype(
        np.float32)
    features, labels = next(iter(creditcard_ds))
    return [_spec(creditcard_ds), as_json(counts / counts.sum()), sorted(features),
            features["V1"].dtype.name, labels.dtype.name]


@cell
def perf_timelined_guide(tf, folder):
    """The guide's current pipelines comparison: a naive flat_map -> map -> batch -> unbatch
    and the optimized interleave -> batch -> map -> cache -> map -> prefetch -> unbatch, on
    fewer samples and epochs and without the sleeps; the sorted samples and steps (the
    order and timings are the threads')."""
    TimeMeasuredDataset = _time_measured_dataset(tf)
    items = 6

    def dataset_generator_fun(*args):
        return TimeMeasuredDataset(num_samples=items)

    @_map_decorator_of(tf)
    def naive_map(steps, times, values):
        map_enter = time.perf_counter()
        map_elapsed = time.perf_counter() - map_enter
        return (tf.concat((steps, [["Map"]]), axis=0),
                tf.concat((times, [[map_enter, map_elapsed]]), axis=0),
                tf.concat((values, [values[-1]]), axis=0))

    naive = (tf.data.Dataset.range(2).flat_map(dataset_generator_fun).map(naive_map)
             .batch(items, drop_remainder=True).unbatch())

    def batched_map(label):
        @_map_decorator_of(tf)
        def mapped(steps, times, values):
            map_enter = time.perf_counter()
            map_elapsed = time.perf_counter() - map_enter
            return (
                tf.concat((steps, tf.tile([[[label]]], [steps.shape[0], 1, 1])), axis=1),
                tf.concat((times, tf.tile([[[map_enter, map_elapsed]]],
                                          [times.shape[0], 1, 1])), axis=1),
                tf.concat((values, tf.tile([[values[:][-1][0]]], [values.shape[0], 1, 1])),
                          axis=1))
        return mapped

    optimized = (tf.data.Dataset.range(2)
                 .interleave(dataset_generator_fun, num_parallel_calls=tf.data.AUTOTUNE)
                 .batch(items, drop_remainder=True)
                 .map(batched_map("1st map"), num_parallel_calls=tf.data.AUTOTUNE)
                 .cache()
                 .map(batched_map("2nd map"), num_parallel_calls=tf.data.AUTOTUNE)
                 .prefetch(tf.data.AUTOTUNE)
                 .unbatch())
    out = [_spec(naive), _spec(optimized)]
    for dataset in (naive, optimized):
        timeline = _timelined_benchmark(tf, dataset, 3)
        out.append([sorted(map(tuple, timeline["values"].numpy().tolist())),
                    sorted(s.decode() for s in timeline["steps"].numpy().reshape(-1))])
    return out


def _map_decorator_of(tf):
    def decorator(func):
        return _map_decorator(tf, func)
    return decorator


# --- data.ipynb: Using tf.data with tf.keras ------------------------------------------------------
# TOLERANCES: cells whose floats come from training, compared to this relative tolerance
# (float32 sums in another order); every other cell is compared exactly.
TOLERANCES = {}


def _fashion_mnist_like():
    """fashion_mnist's training arrays in miniature: 28x28 uint8 images scaled by 1/255, int32
    labels in 0..9 that depend on the images (so training has something to learn)."""
    rng = np.random.default_rng(11)
    images = rng.integers(0, 256, size=(400, 28, 28)).astype(np.uint8)
    projection = rng.normal(size=(28 * 28, 10))
    labels = np.argmax(images.reshape(400, -1) @ projection, axis=1).astype(np.uint8)
    return images / 255.0, labels.astype(np.int32)


def _keras_model(tf):
    """The guide's model, built and given the same seeded weights in every framework."""
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
    model.build((None, 28, 28))
    rng = np.random.default_rng(12)
    model.set_weights([rng.uniform(-0.05, 0.05, size=w.shape).astype(np.float32)
                       for w in model.get_weights()])
    return model


def _history(history):
    return {k: [float(v) for v in vs] for k, vs in sorted(history.history.items())}


@cell
def keras_fit_evaluate_predict(tf, folder):
    """The guide's fit/evaluate/predict on a dataset. The guide shuffles with shuffle(5000),
    whose order is TF's own and training depends on it, so here the batches come in order;
    the model starts from seeded weights (`_keras_model`)."""
    images, labels = _fashion_mnist_like()
    fmnist_train_ds = tf.data.Dataset.from_tensor_slices((images, labels))
    fmnist_train_ds = fmnist_train_ds.batch(32)
    model = _keras_model(tf)
    model.compile(optimizer='adam',
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy'])
    out = {"spec": _spec(fmnist_train_ds)}
    out["fit"] = _history(model.fit(fmnist_train_ds, epochs=2, verbose=0))
    out["fit_repeat"] = _history(model.fit(fmnist_train_ds.repeat(), epochs=2,
                                           steps_per_epoch=20, verbose=0))
    loss, accuracy = model.evaluate(fmnist_train_ds, verbose=0)
    out["evaluate"] = [float(loss), float(accuracy)]
    loss, accuracy = model.evaluate(fmnist_train_ds.repeat(), steps=10, verbose=0)
    out["evaluate_steps"] = [float(loss), float(accuracy)]
    predict_ds = tf.data.Dataset.from_tensor_slices(images).batch(32)
    result = model.predict(predict_ds, steps=10, verbose=0)
    out["predict"] = [list(result.shape), result[::37].tolist()]
    result = model.predict(fmnist_train_ds, steps=10, verbose=0)
    out["predict_with_labels"] = [list(result.shape), result[::53].tolist()]
    return out


TOLERANCES["keras_fit_evaluate_predict"] = 1e-4


# --- data.ipynb: TFRecord files and tf.train.Example ------------------------------------------
# The guide downloads FSNS's test file (street-name signs as PNGs); its stand-in is a small
# TFRecord file of the same features written with TFRecordWriter, whose 'image/encoded' is
# raw bytes (no PNG codec: the cells skip decode_png and the plot).
_STREETS = ["Rue Perreyon", "Avenue de la Gare", "Place du March\u00e9", "Quai Saint-Michel",
            "Rue des \u00c9coles", "Boulevard Voltaire", "Impasse", "All\u00e9e des Tilleuls",
            "Rue Victor Hugo", "Chemin Vert", "Rue de Rivoli", "Cours Mirabeau"]


def _fsns(tf, folder):
    path = os.path.join(folder, "fsns.tfrec")
    with tf.io.TFRecordWriter(path) as writer:
        for i, street in enumerate(_STREETS):
            feature = {
                "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[bytes([137, 80, 78, 71, i]) + bytes(range(i, i + 30))])),
                "image/text": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[street.encode()])),
                "image/class": tf.train.Feature(int64_list=tf.train.Int64List(
                    value=[ord(c) % 134 for c in street])),
                "image/width": tf.train.Feature(int64_list=tf.train.Int64List(value=[600])),
            }
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())
    return path


@cell
def tfrecord_consume(tf, folder):
    fsns_test_file = _fsns(tf, folder)
    dataset = tf.data.TFRecordDataset(filenames=[fsns_test_file])
    raw_example = next(iter(dataset))
    parsed = tf.train.Example.FromString(raw_example.numpy())
    third = tf.train.Example.FromString(next(iter(dataset.skip(2))).numpy())  # UTF-8 text
    return [repr(dataset), str(parsed.features.feature["image/text"]),
            list(parsed.features.feature["image/class"].int64_list.value),
            str(third.features.feature["image/text"])]


@cell
def tf_example_parse(tf, folder):
    dataset = tf.data.TFRecordDataset(filenames=[_fsns(tf, folder)])
    raw_example = next(iter(dataset))
    parsed = tf.train.Example.FromString(raw_example.numpy())
    feature = parsed.features.feature
    raw_img = feature["image/encoded"].bytes_list.value[0]
    title = feature["image/text"].bytes_list.value[0]

    def tf_parse(eg):
        example = tf.io.parse_example(
            eg[tf.newaxis], {
                "image/encoded": tf.io.FixedLenFeature(shape=(), dtype=tf.string),
                "image/text": tf.io.FixedLenFeature(shape=(), dtype=tf.string)
            })
        return example["image/encoded"][0], example["image/text"][0]

    img, txt = tf_parse(raw_example)
    decoded = dataset.map(tf_parse)
    image_batch, text_batch = next(iter(decoded.batch(10)))
    return [raw_img.hex(), title.decode(), txt.numpy().decode(), repr(img.numpy()[:20]),
            _spec(decoded), list(image_batch.shape), as_json(text_batch)]
