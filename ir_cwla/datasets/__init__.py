"""Datasets: ir_datasets ids (``irds:ID``) and the bundled Cranfield collection.

This sub-package is the only place that knows about ``irds:`` ids and about Cranfield;
the engine (:mod:`ir_cwla.io`) only offers a hook (:func:`ir_cwla.io.register_source`)
that :mod:`.irds` fills in when ``ir_cwla`` is imported.

* :mod:`.irds` -- ``irds:ID`` specs: load a dataset, its qrels, its scored documents;
* :mod:`.cranfield` -- Cranfield 1400 bundled offline, with its grade conventions.
"""
from ir_cwla.datasets.cranfield import (
    CRANFIELD,
    CRANFIELD_GRADE_REMAP,
    MINUS_ONE_CONVENTIONS,
    MinusOne,
    RawCranfieldWarning,
    as_pyterrier_qrels,
    bundled_cranfield_archive,
    cranfield_cache_path,
    cranfield_qrels,
    cranfield_topics,
    ensure_cranfield,
    looks_raw,
    remap_cranfield_grades,
    warn_if_raw_grades,
)
from ir_cwla.datasets.irds import (
    IRDS_PREFIX,
    DownloadError,
    conventions_note,
    dataset_id,
    is_cranfield,
    load,
    load_qrels,
    load_run,
    register,
)

__all__ = [
    "CRANFIELD", "CRANFIELD_GRADE_REMAP", "MINUS_ONE_CONVENTIONS", "MinusOne", "as_pyterrier_qrels",
    "bundled_cranfield_archive", "cranfield_cache_path", "cranfield_qrels", "cranfield_topics",
    "ensure_cranfield", "remap_cranfield_grades", "IRDS_PREFIX", "dataset_id", "is_cranfield", "load",
    "load_qrels", "load_run", "register", "conventions_note", "DownloadError", "RawCranfieldWarning",
    "looks_raw", "warn_if_raw_grades",
]
