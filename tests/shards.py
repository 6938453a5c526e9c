"""Writing a run in each stored layout :func:`ir_cwla.sharding.shards` reads (for the sharding tests)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests import synthetic

LAYOUTS = ("files", "partitions", "row_groups", "byte_ranges")


def topic_groups(run: pd.DataFrame, parts: int) -> list[list[str]]:
    """The run's topics (sorted) in ``parts`` consecutive groups."""
    topics = sorted(pd.unique(run["query_id"].astype(str)).tolist())
    return [list(g) for g in np.array_split(np.array(topics, dtype=object), min(parts, len(topics))) if len(g)]


def by_topic(run: pd.DataFrame) -> pd.DataFrame:
    """The run's lines grouped by topic (sorted), each topic's lines in their order."""
    run = run.assign(query_id=run["query_id"].astype(str))
    return run.sort_values("query_id", kind="stable").reset_index(drop=True)


def write(run: pd.DataFrame, directory: Path, layout: str, parts: int = 5) -> Path:
    """``run`` (``query_id, doc_id, score``, file order) stored in ``layout``.

    Returns the path to give :func:`ir_cwla.sharding.shards`. Every layout keeps each
    topic's lines in their order.
    """
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    ordered = by_topic(run)
    groups = topic_groups(run, parts)
    if layout == "files":
        folder = directory / "files"
        folder.mkdir(exist_ok=True)
        for i, group in enumerate(groups):           # every other one gzipped
            part = ordered[ordered["query_id"].isin(group)]
            synthetic.write_trec_run(part, folder / (f"part{i:03d}.gz" if i % 2 else f"part{i:03d}.trec"))
        return folder
    table = pa.table({"query_id": ordered["query_id"].to_numpy(dtype=object),
                      "doc_id": ordered["doc_id"].astype(str).to_numpy(dtype=object),
                      "score": ordered["score"].to_numpy(dtype=np.float64)})
    if layout == "partitions":
        folder = directory / "hive"
        ds.write_dataset(table, folder, format="parquet", partitioning=["query_id"], partitioning_flavor="hive",
                         existing_data_behavior="delete_matching")
        return folder
    if layout == "row_groups":
        path = directory / "run.parquet"
        with pq.ParquetWriter(path, table.schema) as writer:
            for group in groups:
                mask = ordered["query_id"].isin(group).to_numpy()
                writer.write_table(table.filter(pa.array(mask)))
        return path
    if layout == "byte_ranges":
        path = directory / "run.trec"
        synthetic.write_trec_run(ordered, path)
        return path
    raise ValueError(layout)  # noqa: TRY003  (a test helper)
