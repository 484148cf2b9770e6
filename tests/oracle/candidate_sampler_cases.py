"""The candidate samplers' cases, shared by the TF recorder
(tools/record_tf_candidate_samplers.py) and tests/ops/test_candidate_samplers.py: per case the
sampler's name below `tf.random` and its keyword arguments (`true_classes` as nested lists,
int64). TF's sampled classes are random; what is recorded is deterministic: the dtypes and
shapes, the expected counts of non-unique draws, each class's probability (the expected count
of one non-unique draw with every class true), and the errors."""
from __future__ import annotations

TRUE = [[0, 3], [9, 1], [9, 9]]
UNIGRAMS = [1, 2, 0.5, 4, 5, 0, 7, 8, 9, 10]
SAMPLERS = {
    "uniform": ("uniform_candidate_sampler", {"range_max": 10}),
    "log_uniform": ("log_uniform_candidate_sampler", {"range_max": 10}),
    "unigram": ("fixed_unigram_candidate_sampler",
                {"range_max": 10, "unigrams": UNIGRAMS, "distortion": 0.75}),
    "learned": ("learned_unigram_candidate_sampler", {"range_max": 10}),
    "unigram_shard": ("fixed_unigram_candidate_sampler",
                      {"range_max": 7, "unigrams": UNIGRAMS + [3, 3], "num_reserved_ids": 2,
                       "num_shards": 2, "shard": 1}),
}


def cases():
    """name -> (sampler, kwargs)."""
    out = {}
    for key, (fn, extra) in SAMPLERS.items():
        n = extra["range_max"]
        classes = [[c % n for c in row] for row in TRUE]
        for unique in (False, True):
            out[f"{key}-unique{unique}"] = (fn, dict(extra, true_classes=classes, num_true=2,
                                                     num_sampled=4, unique=unique))
        out[f"{key}-probability"] = (fn, dict(extra, true_classes=[list(range(n))], num_true=n,
                                              num_sampled=1, unique=False))
    out["all"] = ("all_candidate_sampler", dict(true_classes=TRUE, num_true=2, num_sampled=10,
                                               unique=True))
    errors = {
        "range_too_small": ("uniform_candidate_sampler", dict(
            true_classes=TRUE, num_true=2, num_sampled=11, unique=True, range_max=10)),
        "columns": ("uniform_candidate_sampler", dict(
            true_classes=TRUE, num_true=3, num_sampled=4, unique=True, range_max=10)),
        "not_matrix": ("log_uniform_candidate_sampler", dict(
            true_classes=[0, 3], num_true=2, num_sampled=4, unique=True, range_max=10)),
        "out_of_range": ("uniform_candidate_sampler", dict(
            true_classes=[[0, 13]], num_true=2, num_sampled=4, unique=False, range_max=10)),
        "negative": ("log_uniform_candidate_sampler", dict(
            true_classes=[[0, -1]], num_true=2, num_sampled=4, unique=False, range_max=10)),
        "all_out_of_range": ("all_candidate_sampler", dict(
            true_classes=TRUE, num_true=2, num_sampled=4, unique=True)),
        "no_samples": ("uniform_candidate_sampler", dict(
            true_classes=TRUE, num_true=2, num_sampled=0, unique=False, range_max=10)),
        "learned_columns": ("learned_unigram_candidate_sampler", dict(
            true_classes=TRUE, num_true=3, num_sampled=4, unique=True, range_max=10)),
        "learned_range_too_small": ("learned_unigram_candidate_sampler", dict(
            true_classes=TRUE, num_true=2, num_sampled=11, unique=True, range_max=10)),
        "table_size": ("fixed_unigram_candidate_sampler", dict(
            true_classes=TRUE, num_true=2, num_sampled=3, unique=False, range_max=6,
            unigrams=UNIGRAMS, num_reserved_ids=1, num_shards=2, shard=1)),
    }
    out.update({f"error-{k}": v for k, v in errors.items()})
    return out
