"""Do the measures order result pages as the users do? Agreement with users' preferences.

Sanderson, Paramita, Clough & Kanoulas (2010, "Do user preferences and evaluation measures line
up?", SIGIR) showed users two result pages side by side and asked which they preferred; a
measure agrees with a preference when it scores the preferred page higher. :func:`preference_agreement`
gives, for every measure of a per-query frame, the share of the preference pairs it orders as the
users did, with a bootstrap interval.

Pairs. A preference table has one row per pair: ``qid_a``, ``qid_b`` (the pages' queries in the
per-query frame), ``preferred`` (``'a'`` or ``'b'``; a pair with no preference is left out and
counted), optionally ``name_a``/``name_b`` (the systems whose pages they are, where the frame
holds several: side by side on one query, ``qid_a == qid_b``) and ``user``. A study with ratings
only has no pairs: :func:`derive_pairs` makes them from each user's ratings within a task (every
two queries of the same user and task with different ratings; the higher rated is preferred), and
the result says so (``derived``).

Ties. A measure that scores both pages alike orders neither: ``ties='half'`` counts such a pair
as half agreeing (the default), ``'exclude'`` leaves it out of that measure's share, ``'disagree'``
counts it as not agreeing; the table gives the share of pairs each measure ties.

Bootstrap. The clusters are the users (where the pairs name them: a user's preferences are not
independent), else the pairs; chunk ``c`` draws ``Generator.integers(0, G, size=(chunk, G))``
from ``default_rng(SeedSequence(seed, spawn_key=(PREFERENCE_STREAM, c)))``, clusters in sorted
order; the interval is the percentile interval of the replicates' shares.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.analysis import naming, streams
from ir_cwla.analysis.frame import Groups, resolve_groups
from ir_cwla.errors import DataError, InputError, ParameterError
from ir_cwla.meta import criteria, ratings
from ir_cwla.meta.satisfaction import cluster_counts, percentile_interval

#: ``ties=`` values: how a pair the measure ties counts.
TIES = ("half", "exclude", "disagree")
PAIR_COLUMNS = ("qid_a", "qid_b", "preferred")


def derive_pairs(table: pd.DataFrame, within: Sequence[str] = ("user", "task")) -> pd.DataFrame:
    """Preference pairs from ratings: every two queries of one user and task with different ratings.

    The higher rated page is preferred. ``within``: the columns a pair shares (both must be in the
    ratings; ``('user',)`` pairs across a user's tasks). The pairs are in sorted order of
    ``within``, then of the two qids.
    """
    missing = [c for c in within if c not in table.columns]
    if missing:
        raise DataError(f"pairs are derived from ratings within {', '.join(within)}: the ratings have no "
                        f"{', '.join(map(repr, missing))} column")
    rows = []
    names = "name" in table.columns
    for key, group in table.sort_values(list(within) + ["qid"], kind="stable").groupby(list(within), sort=True):
        qid = group["qid"].to_numpy()
        rating = group["rating"].to_numpy()
        name = group["name"].to_numpy() if names else None
        i, j = np.triu_indices(len(group), k=1)
        keep = rating[i] != rating[j]
        i, j = i[keep], j[keep]
        part = {"qid_a": qid[i], "qid_b": qid[j], "preferred": np.where(rating[i] > rating[j], "a", "b")}
        if name is not None:
            part.update(name_a=name[i], name_b=name[j])
        for c, value in zip(within, key if isinstance(key, tuple) else (key,)):
            part[c] = value
        rows.append(pd.DataFrame(part))
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=list(PAIR_COLUMNS) + list(within))
    out.attrs["derived"] = f"derived from the ratings within the same {' and '.join(within)}"
    return out


def read_preferences(source: Any, name: Optional[str] = None) -> pd.DataFrame:
    """A preference table (a DataFrame or a CSV/TSV file) checked: :data:`PAIR_COLUMNS`, optionally ``name_a``, ``name_b``, ``user``."""
    frame, name = ratings.read_table(source, "preferences", name)
    missing = [c for c in PAIR_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"preferences {name}: no column {', '.join(map(repr, missing))} (a preference table has "
                         f"{', '.join(PAIR_COLUMNS)} and optionally name_a, name_b, user)")
    frame = frame.reset_index(drop=True)
    preferred = frame["preferred"].astype(str).str.strip().str.lower()
    bad = np.flatnonzero(~preferred.isin(["a", "b", "", "none", "tie"]).to_numpy())
    if len(bad):
        i = int(bad[0])
        raise InputError(f"preferences {name}, row {i + 1}: preferred {shown(frame['preferred'].iloc[i])} is not "
                         "'a' or 'b' (or empty: no preference)")
    out = frame.assign(preferred=preferred, qid_a=frame["qid_a"].astype(str), qid_b=frame["qid_b"].astype(str))
    out.attrs.update(frame.attrs)
    return out


@dataclass
class PreferenceAgreement:
    """What :func:`preference_agreement` found: ``estimates`` (measures x agreement, low, high, ties, pairs)."""

    estimates: pd.DataFrame
    replicates: np.ndarray
    groups: dict[Hashable, list[str]]
    labels: dict[str, str]
    pairs: int
    clusters: str
    n_clusters: int
    ties: str
    level: float
    trials: int
    derived: str = ""
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """What the pairs are and how they were resampled, in one sentence."""
        source = f"{self.pairs} preference pairs" + (f" {self.derived}" if self.derived else "")
        how = (f"a cluster bootstrap over {self.n_clusters} users" if self.clusters == "users"
               else "a bootstrap over the pairs")
        return (f"{source}; a tie of the measure counts {'as half' if self.ties == 'half' else self.ties + 'd' if self.ties == 'exclude' else 'as disagreeing'}; "
                f"{self.level:.0%} percentile intervals from {how} ({self.trials} replicates)")

    def table(self) -> pd.DataFrame:
        """One row per measure: ``measure``, ``group`` (its family), ``agreement``, ``low``, ``high``, ``tied`` (share), ``pairs``."""
        family = {m: g for g, members in self.groups.items() for m in members}
        out = self.estimates.reset_index().assign(group=lambda f: f["measure"].map(family),
                                                  measure=lambda f: f["measure"].map(lambda m: self.labels.get(m, m)))
        out = out[["measure", "group", "agreement", "low", "high", "tied", "pairs"]]
        out.attrs["note"] = "; ".join([self.describe()] + self.notes)
        return out


def _pair_scores(per_query: pd.DataFrame, pairs: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, np.ndarray, str]:
    """(scores of page a, of page b) (P, M) and a note on the pairs left out."""
    frame = per_query.assign(qid=per_query["qid"].astype(str))
    if "name" not in frame.columns:
        frame = frame.assign(name="")
    systems = pd.unique(frame["name"].astype(str))
    wide = frame[frame["measure"].isin(names)].pivot_table(index=["name", "qid"], columns="measure", values="value",
                                                           aggfunc="first")[names]
    if len(systems) > 1 and not {"name_a", "name_b"} <= set(pairs.columns):
        raise DataError(f"per_query holds {len(systems)} systems: the pairs need name_a and name_b columns")
    name_a = pairs["name_a"].astype(str) if "name_a" in pairs.columns and len(systems) > 1 else systems[0]
    name_b = pairs["name_b"].astype(str) if "name_b" in pairs.columns and len(systems) > 1 else systems[0]
    ia = pd.MultiIndex.from_arrays([np.broadcast_to(np.asarray(name_a, dtype=object), len(pairs)), pairs["qid_a"]])
    ib = pd.MultiIndex.from_arrays([np.broadcast_to(np.asarray(name_b, dtype=object), len(pairs)), pairs["qid_b"]])
    a = wide.reindex(ia).to_numpy(dtype=np.float64)
    b = wide.reindex(ib).to_numpy(dtype=np.float64)
    return a, b, ""


def preference_agreement(per_query: pd.DataFrame, preferences: Any = None, *, satisfaction: Any = None,
                         measures: Optional[Sequence[str]] = None, ties: str = "half", trials: int = 2000,
                         level: float = 0.95, seed: streams.Seed = 0, groups: Groups = None,
                         within: Sequence[str] = ("user", "task"), labels: Any = None) -> PreferenceAgreement:
    """The share of users' preference pairs each measure orders as the users did (see the module docstring).

    ``preferences``: the pairs (:func:`read_preferences`); or ``satisfaction``: ratings, from which
    the pairs are derived within ``within`` (:func:`derive_pairs`). Pairs whose pages are not scored
    are left out with one warning giving their count; fewer than 10 pairs are refused.
    """
    import warnings

    from ir_cwla.errors import InputWarning

    trials = streams.check_trials(trials)
    if ties not in TIES:
        raise ParameterError(f"ties={ties!r}; choose from {', '.join(TIES)}")
    if not (isinstance(level, float) and 0 < level < 1):
        raise ParameterError(f"level={level!r} must be a number in (0, 1)")
    if (preferences is None) == (satisfaction is None):
        raise ParameterError("give the preference pairs (preferences=) or the ratings to derive them from "
                             "(satisfaction=), one of the two")
    derived = ""
    if preferences is not None:
        pairs = read_preferences(preferences)
    else:
        pairs = derive_pairs(ratings.read_ratings(satisfaction), within)
        derived = pairs.attrs["derived"]
    notes = []
    undecided = pairs["preferred"].isin(["", "none", "tie"]).to_numpy()
    if undecided.any():
        notes.append(f"{int(undecided.sum())} pairs without a preference left out")
        pairs = pairs[~undecided]
    names = list(pd.unique(per_query["measure"])) if measures is None else list(measures)
    names = naming.measure_order(names)
    a, b, _ = _pair_scores(per_query, pairs, names)
    unscored = np.isnan(a).any(axis=1) | np.isnan(b).any(axis=1)
    if unscored.any():
        note = f"{int(unscored.sum())} of {len(pairs)} pairs have a page that is not scored; they are left out"
        warnings.warn(f"{note}", InputWarning, stacklevel=2)
        notes.append(note)
        pairs, a, b = pairs[~unscored], a[~unscored], b[~unscored]
    if len(pairs) < ratings.MIN_UNITS:
        raise DataError(f"{len(pairs)} preference pairs: an agreement over fewer than {ratings.MIN_UNITS} is refused")
    sign = np.where(pairs["preferred"].to_numpy() == "a", 1.0, -1.0)[:, None]
    d = np.sign(a - b) * sign                            # 1 agrees, -1 disagrees, 0 tied
    tied = d == 0
    if ties == "half":
        value, counted = np.where(tied, 0.5, (d > 0).astype(np.float64)), np.ones_like(d)
    elif ties == "exclude":
        value, counted = (d > 0).astype(np.float64), (~tied).astype(np.float64)
    else:
        value, counted = (d > 0).astype(np.float64), np.ones_like(d)
    by_user = "user" in pairs.columns
    clusters = pd.factorize(pairs["user"].astype(str), sort=True)[0] if by_user else np.arange(len(pairs))
    n_clusters = int(clusters.max()) + 1
    reps = []
    for c, size in enumerate(streams.chunk_sizes(trials)):
        rng = np.random.default_rng(streams.derive(seed, streams.PREFERENCE_STREAM, c))
        w = cluster_counts(n_clusters, rng, size)[:, clusters]
        with np.errstate(invalid="ignore", divide="ignore"):
            reps.append((w @ (value * counted)) / (w @ counted))
    replicates = np.concatenate(reps, axis=0)
    low, high, _ = percentile_interval(replicates, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = (value * counted).sum(axis=0) / counted.sum(axis=0)
    estimates = pd.DataFrame({"agreement": share, "low": low, "high": high, "tied": tied.mean(axis=0),
                              "pairs": counted.sum(axis=0).astype(np.int64)},
                             index=pd.Index(names, name="measure"))
    return PreferenceAgreement(estimates, replicates, resolve_groups(names, groups),
                               naming.resolve_labels(names, labels), len(pairs), "users" if by_user else "pairs",
                               n_clusters, ties, level, trials, derived, notes)


# -- the criterion ------------------------------------------------------------------------------

def _section(result: PreferenceAgreement, summary: pd.DataFrame) -> list:
    return [criteria.Text(f"The share of the users' preferences between two result pages that each measure orders "
                          f"as the user did (Sanderson et al. 2010): {result.describe()}."
                          + (" " + "; ".join(result.notes) + "." if result.notes else "")),
            criteria.Table(summary, "agreement with the users' preferences", "preference_agreement.csv")]


def _compute(inputs: criteria.Inputs, trials: int, ties: str, level: float) -> PreferenceAgreement:
    if inputs.preferences is not None:
        return preference_agreement(inputs.per_query, inputs.preferences, trials=trials, ties=ties, level=level,
                                    seed=inputs.seed, groups=inputs.groups)
    return preference_agreement(inputs.per_query, satisfaction=inputs.satisfaction, trials=trials, ties=ties,
                                level=level, seed=inputs.seed, groups=inputs.groups)


def _ties(value: Any, where: str) -> str:
    if value not in TIES:
        raise ParameterError(f"{where}: {value!r}; choose from {', '.join(TIES)}")
    return value


def _options() -> tuple[criteria.Option, ...]:
    from ir_cwla.meta.satisfaction import CRITERION as USERS

    shared = {o.name: o for o in USERS.options}
    return (shared["trials"], criteria.Option("ties", "half", "how a pair the measure ties "
                                              "counts (half, exclude, disagree)", cli="preference_ties", check=_ties),
            shared["level"])


CRITERION = criteria.register_criterion(criteria.Criterion(
    "preference_agreement", "agreement with users' preferences",
    "Does each measure order two result pages as the user who compared them did (Sanderson et al. 2010)?",
    compute=_compute, summary=lambda result, inputs, **options: result.table(), section=_section,
    needs_any=("preferences", "satisfaction"), options=_options(), precision=3, order=81, best=("agreement", True)),
    replace=True)
