"""Dollar cost of serving queries on a named public cloud instance.

Santhanam et al. (2023), Sec. 3, ask that every submission be tied to a public cloud
instance type so that its cost can be estimated and its environment reproduced. An
:class:`Instance` is a name and an on-demand price per hour; :func:`instance` looks one up
in a bundled table (``ir_cwla/data/instance_prices.csv``: AWS us-east-1 Linux on-demand
list prices, each row with its ``date`` and ``source``) or in a table of your own.

Two estimates, named by what they are computed from:

* from throughput (the instance is kept busy with batches of queries)::

      usd_per_1M_queries = usd_per_hour / (3600 * QPS) * 1e6

* from latency (one query at a time occupies the whole instance)::

      usd_per_query = usd_per_hour * latency_ms / 3.6e6
"""
from __future__ import annotations

import dataclasses
import difflib
import math
import os
from importlib import resources
from typing import Optional, Union

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ir_cwla._text import shown
from ir_cwla.errors import ArgumentTypeError, DataError, InputError, NotFoundError, ParameterError

REQUIRED_PRICE_COLUMNS = ("instance", "usd_per_hour", "date", "source")


@dataclasses.dataclass(frozen=True)
class Instance:
    """A public cloud instance type and its on-demand price.

    ``Instance('m5.xlarge', usd_per_hour=0.192)`` states the price yourself;
    :func:`instance` (``lb.instance('m5.xlarge')``) takes it from the bundled table.
    """

    name: str
    usd_per_hour: float
    provider: Optional[str] = None
    region: Optional[str] = None
    vcpus: Optional[int] = None
    memory_gib: Optional[float] = None
    gpus: int = 0
    price_date: Optional[str] = None
    source: Optional[str] = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ParameterError("an instance needs a non-empty name")
        price = self.usd_per_hour
        if isinstance(price, bool) or not isinstance(price, (int, float, np.number)) \
                or not math.isfinite(price) or price <= 0:
            raise ParameterError(f"price of instance {self.name!r} must be a positive number of USD per hour, "
                             f"got {shown(price)}")

    def as_dict(self) -> dict:
        """The instance's fields as a dict (:func:`dataclasses.asdict`)."""
        return dataclasses.asdict(self)


def price_table(path: Union[str, os.PathLike, None] = None) -> pd.DataFrame:
    """The table of instance prices: the bundled one, or a CSV of your own at ``path``.

    A table of your own needs at least the columns ``instance, usd_per_hour, date, source``.
    """
    if path is None:
        with resources.files("ir_cwla").joinpath("data").joinpath("instance_prices.csv").open("r") as f:
            table = pd.read_csv(f, dtype={"date": str})
    else:
        table = pd.read_csv(path, dtype={"date": str})
    return _check_table(table)


def _check_table(table: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in REQUIRED_PRICE_COLUMNS if c not in table.columns]
    if missing:
        raise InputError(f"price table lacks column(s) {missing}; needs {list(REQUIRED_PRICE_COLUMNS)}")
    price = pd.to_numeric(table["usd_per_hour"], errors="coerce")
    bad = ~(np.isfinite(price) & (price > 0))
    if bad.any():
        row = table[bad].iloc[0]
        raise InputError(f"price of {row['instance']!r} must be a positive number of USD per hour, "
                         f"got {shown(row['usd_per_hour'])}")
    return table.assign(usd_per_hour=price.astype(float))


def instance(name: str, prices: Union[pd.DataFrame, str, os.PathLike, None] = None,
             region: Optional[str] = None) -> Instance:
    """Looks up instance ``name`` in ``prices`` (default: the bundled table).

    ``prices`` may be a DataFrame or the path of a CSV with the columns of
    :func:`price_table`. When a name is listed for several regions, pass ``region``.
    """
    if not isinstance(name, str) or not name.strip():
        raise ParameterError(f"instance takes the name of an instance type (a string such as 'm5.xlarge'), "
                             f"got {name!r}")
    if region is not None and not isinstance(region, str):
        raise ParameterError(f"region must be a region's name (a string) or None, got {region!r}")
    if isinstance(prices, pd.DataFrame):
        table = _check_table(prices)
    else:
        table = price_table(prices)
    rows = table[table["instance"] == name]
    if region is not None and "region" in rows.columns:
        rows = rows[rows["region"] == region]
    if rows.empty:
        close = difflib.get_close_matches(name, table["instance"].astype(str).tolist(), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise NotFoundError(f"instance {name!r} is not in the price table{hint}; give its price yourself: "
                       f"Instance({name!r}, usd_per_hour=...)")
    if len(rows) > 1:
        raise ParameterError(f"instance {name!r} is listed {len(rows)} times; choose one with region=...")
    row = rows.iloc[0]

    def get(col: str):
        value = row.get(col)
        return None if value is None or (isinstance(value, float) and math.isnan(value)) else value

    return Instance(name=name, usd_per_hour=float(row["usd_per_hour"]), provider=get("provider"),
                    region=get("region"), vcpus=None if get("vcpus") is None else int(get("vcpus")),
                    memory_gib=None if get("memory_gib") is None else float(get("memory_gib")),
                    gpus=int(get("gpus") or 0), price_date=str(row["date"]), source=str(row["source"]))


def as_instance(spec: Union[Instance, str]) -> Instance:
    """An :class:`Instance` as it is, or a name looked up in the bundled table."""
    if isinstance(spec, Instance):
        return spec
    if isinstance(spec, str):
        return instance(spec)
    raise ArgumentTypeError(f"expected an Instance or an instance name, got {type(spec).__name__}")


def _checked(values: ArrayLike, what: str, positive: bool) -> np.ndarray:
    """``values`` as floats, or an error naming the first bad entry.

    A bad entry is negative, zero if ``positive``, NaN or infinite.
    """
    x = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(x) | ((x <= 0) if positive else (x < 0))
    if bad.any():
        where = np.argwhere(bad)[0]
        at = f"[{', '.join(map(str, where))}]" if x.ndim else ""
        raise DataError(f"{what}{at} is {shown(x[tuple(where)])}; it must be "
                         f"{'positive' if positive else 'non-negative'} and finite to compute a cost")
    return x


def usd_per_million_queries(qps: ArrayLike, usd_per_hour: ArrayLike) -> np.ndarray:
    """Cost of 10^6 queries at throughput ``qps``: ``usd_per_hour / (3600 * qps) * 1e6``."""
    qps = _checked(qps, "throughput (qps)", positive=True)
    return _checked(usd_per_hour, "usd_per_hour", positive=False) / (3600.0 * qps) * 1e6


def usd_per_query(latency_ms: ArrayLike, usd_per_hour: ArrayLike) -> np.ndarray:
    """Cost of one query that occupies the instance for ``latency_ms``: ``usd_per_hour * ms / 3.6e6``."""
    latency_ms = _checked(latency_ms, "latency_ms", positive=False)
    return _checked(usd_per_hour, "usd_per_hour", positive=False) * latency_ms / 3.6e6
