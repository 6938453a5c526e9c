"""Random streams for the randomised procedures: fixed trial chunks, one seed per chunk.

Every randomised analysis in :mod:`ir_cwla.meta` splits its ``trials`` into chunks of a
fixed size (:data:`CHUNK`, or fewer for matrices of more than 10,000 cells, see
:func:`trial_chunk`; the last chunk may be shorter) and draws chunk ``c`` of stream
``s`` from its own generator ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(s, c)))``.
The result therefore depends only on the seed and the data, never on how many workers ran
the chunks or in which order they finished: any executor (in-process, local processes, a
Dask cluster) reproduces the in-process result bit for bit.

Permutations are drawn by :func:`permutations`; its recipe is part of the contract (the
tests re-implement it independently to check the kernels exactly):

- ``k <= 8`` items: one ``Generator.integers(0, k!)`` draw per row, used as an index into
  the lexicographic table of all ``k!`` permutations (``itertools.permutations``). For
  ``k = 2`` this is a fair coin per row, i.e. the sign flip of the paired randomisation test.
- ``k > 8`` items: ``Generator.permuted`` of ``arange(k)`` along each row (Fisher-Yates).
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Union

import numpy as np

from ir_cwla._text import shown
from ir_cwla.errors import ParameterError

#: Trials per chunk. Part of the reproducibility contract: changing it changes the streams.
CHUNK = 200
#: Upper bound on trials x cells of the permuted matrix per chunk (bounds a chunk's memory to
#: ~16 MB per work array); only matrices of more than 10,000 cells get chunks below CHUNK.
MAX_CHUNK_CELLS = 2_000_000

#: Stream ids (the first element of the spawn key).
PERMUTATION_STREAM = 0   # randomised Tukey HSD and paired randomisation test
SPLIT_STREAM = 1         # consistency: random topic halves
CONSISTENCY_TEST_STREAM = 2  # consistency: the Tukey HSD test over the trials x measures matrix
INCOMPLETENESS_STREAM = 3    # incompleteness: judgment subsamples, chunk c = trial c
LABEL_AGREEMENT_STREAM = 4   # label agreement: bootstrap of topics (part 0) and of pairs (part 1)
ASSESSOR_STREAM = 5          # assessor variation: bootstrap of the topics an alternative qrels covers
TWO_SETS_STREAM = 6          # two collections of the same systems: topic resamples of both (disjoint, judge bias)
DISJOINT_NULL_STREAM = 7     # disjoint agreement: the null's two topic sets from one collection
JUDGE_BIAS_STREAM = 8        # judge bias: permutations of the group labels over the runs
CORRECTED_STREAM = 9         # corrected scores: the labelled topics hidden in each validation repetition
USER_AGREEMENT_STREAM = 10   # user agreement: bootstrap of the rated units (or of their users)
PREFERENCE_STREAM = 11       # preference agreement: bootstrap of the preference pairs' clusters
USER_MODEL_STREAM = 12       # user model fit: bootstrap bands (part 0), the users' folds (part 1)
BOOTSTRAP_TEST_STREAM = 16      # comparison: Sakai's paired bootstrap test, topic resamples
BOOTSTRAP_INTERVAL_STREAM = 17  # comparison: bootstrap intervals of means and ranks, topic resamples
MAXT_STREAM = 18                # comparison: MaxT, systems permuted within topics
FINDINGS_STREAM = 19            # examples/findings.py: resamples of topics (part 0) and runs (1), pooled tests (2-4)
REPRODUCIBILITY_STREAM = 20     # comparison: bootstrap of the topics of an original run and its reproduction

#: Up to this many items, permutations are drawn by index into the table of all k! of them.
TABLE_MAX_ITEMS = 8

Seed = Union[int, np.random.SeedSequence]


def as_seed_sequence(seed: Seed) -> np.random.SeedSequence:
    """An int (>= 0) or a ``SeedSequence`` as a ``SeedSequence``; anything else is an error."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative int or a numpy SeedSequence, got {shown(seed)}")
    return np.random.SeedSequence(int(seed))


def derive(seed: Seed, *key: int) -> np.random.SeedSequence:
    """The child ``SeedSequence`` at ``key`` below ``seed`` (stateless, unlike ``spawn``).

    ``derive(s, 3) == SeedSequence(s).spawn(4)[3]`` for an int ``s``, but does not depend on
    how many children were spawned before.
    """
    base = as_seed_sequence(seed)
    return np.random.SeedSequence(base.entropy, spawn_key=tuple(base.spawn_key) + tuple(key))


#: The most trials (permutations, resamples, splits, subsets) of any Monte-Carlo count: a bound checked
#: before any work (:func:`check_trials`); what the trials keep is bounded apart
#: (:func:`ir_cwla.analysis.montecarlo.check_result_memory`).
MAX_TRIALS = 10 ** 9


def check_trials(trials: int, what: str = "trials", least: int = 1) -> int:
    """``trials`` checked as an int in ``[least, MAX_TRIALS]``; a :class:`ParameterError` otherwise."""
    if isinstance(trials, (bool, np.bool_)) or not isinstance(trials, (int, np.integer)):
        raise ParameterError(f"{what} must be an int >= {least}, got {shown(trials)}")
    if trials < least:
        raise ParameterError(f"{what} must be >= {least}, got {trials}")
    if trials > MAX_TRIALS:
        raise ParameterError(f"{what} must be at most {MAX_TRIALS:,} (ir_cwla.analysis.streams.MAX_TRIALS), "
                             f"got {int(trials):,}")
    return int(trials)


def check_tested_trials(trials: int, what: str = "trials") -> int:
    """The trials of an experiment whose measures a randomised Tukey HSD test compares over them: an int >= 2."""
    if isinstance(trials, (int, np.integer)) and not isinstance(trials, (bool, np.bool_)) and trials == 1:
        raise ParameterError(f"{what} must be >= 2: the randomised Tukey HSD test compares the measures over "
                             f"the trials (paired by trial), got 1")
    return check_trials(trials, what)


def trial_chunk(cells: int) -> int:
    """Trials per chunk for a permuted matrix of ``cells`` entries.

    :data:`CHUNK`, or fewer for very large matrices. Depends on the data's shape
    only, never on the executor.
    """
    return max(1, min(CHUNK, MAX_CHUNK_CELLS // max(1, cells)))


def chunk_sizes(trials: int, chunk: int = CHUNK) -> list[int]:
    """Sizes of the fixed chunks ``trials`` is split into: ``[chunk, chunk, ..., rest]``."""
    trials = check_trials(trials)
    full, rest = divmod(trials, chunk)
    return [chunk] * full + ([rest] if rest else [])


def chunk_pieces(trials: int, chunk: int = CHUNK, start: int = 0) -> list[tuple[int, int, int]]:
    """The trials ``start, ..., start + trials - 1`` of a stream as ``(chunk index, skip, size)`` pieces.

    Piece ``(c, k, n)`` is the trials ``k, ..., k + n - 1`` of chunk ``c``; ``skip`` is 0 but for
    the first piece of a run that continues another inside a chunk. With ``start = 0`` the
    pieces are :func:`chunk_sizes`'s chunks.
    """
    trials = check_trials(trials)
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or start < 0:
        raise ParameterError(f"start must be an int >= 0, got {shown(start)}")
    pieces = []
    first, stop = int(start), int(start) + trials
    while first < stop:
        index, skip = divmod(first, chunk)
        size = min(chunk - skip, stop - first)
        pieces.append((index, skip, size))
        first += size
    return pieces


def chunk_rng(seed: Seed, stream: int, index: int) -> np.random.Generator:
    """The generator of chunk ``index`` of ``stream`` below ``seed``."""
    return np.random.default_rng(derive(seed, stream, index))


@lru_cache(maxsize=16)
def permutation_table(k: int) -> np.ndarray:
    """All ``k!`` permutations of ``range(k)`` in lexicographic order, shape ``(k!, k)``."""
    table = np.array(list(itertools.permutations(range(k))), dtype=np.intp).reshape(math.factorial(k), k)
    table.setflags(write=False)
    return table


def permutations(rng: np.random.Generator, shape: tuple[int, ...], k: int) -> np.ndarray:
    """Independent uniform permutations of ``range(k)``: an int array of ``shape + (k,)``.

    See the module docstring for the exact recipe (it is part of the reproducibility contract).
    """
    n = int(np.prod(shape))
    if k <= TABLE_MAX_ITEMS:
        idx = rng.integers(0, math.factorial(k), size=n)
        out = permutation_table(k)[idx]
    else:
        out = rng.permuted(np.broadcast_to(np.arange(k, dtype=np.intp), (n, k)), axis=1)
    return out.reshape(*shape, k)
