"""``ir-cwla meta``'s inputs from a user study: ``--satisfaction``, ``--gains``, ``--preferences``.

A user study has the users' ratings (``--satisfaction FILE``: ``qid, rating``, optionally ``user``,
``task``, ``session``, ``position``, ``name``), often the result pages they rated instead of runs
(``--gains FILE``: ``qid, rank, gain``, optionally ``cost``; scored by :func:`ir_cwla.score_gains`),
and sometimes their preferences between pages (``--preferences FILE``: ``qid_a, qid_b,
preferred``). Files are CSV with a header (TSV where the name ends in ``.tsv``). With ``--gains``
no QRELS or RUNS are given, and only the criteria that read the users run by default (the others
compare systems, and a study's pages are one).
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ir_cwla.errors import UsageError

#: The inputs of :data:`ir_cwla.meta.criteria.NEEDS` a user study adds.
USER_INPUTS = ("satisfaction", "gains", "preferences")
#: How ``--criteria`` says where each of them comes from.
HOW = {"satisfaction": "give the users' ratings with --satisfaction FILE",
       "gains": "give the result pages the users rated with --gains FILE (qid, rank, gain)",
       "preferences": "give preference pairs with --preferences FILE, or ratings with --satisfaction FILE"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--satisfaction``, ``--gains`` and ``--preferences`` of ``ir-cwla meta``."""
    p.add_argument("--satisfaction", metavar="FILE",
                   help="users' ratings, CSV: qid,rating[,user,task,session,position,name]: adds the user criteria")
    p.add_argument("--gains", metavar="FILE",
                   help="the result pages the users rated, CSV: qid,rank,gain[,cost] (rank 1 first; gain: the "
                        "rank's grade), scored by ir_cwla.score_gains in place of QRELS and RUNS")
    p.add_argument("--preferences", metavar="FILE",
                   help="users' preferences between pages, CSV: qid_a,qid_b,preferred[,name_a,name_b,user] "
                        "(preferred: a or b); without it, pairs are derived from --satisfaction")


@dataclass(frozen=True)
class Study:
    """The files of a user study given to ``ir-cwla meta`` (None: not given)."""

    satisfaction: Optional[str] = None
    gains: Optional[str] = None
    preferences: Optional[str] = None

    @staticmethod
    def from_args(args: argparse.Namespace) -> Study:
        """The study's files from the parsed arguments, each checked to exist before any work."""
        import os

        study = Study(getattr(args, "satisfaction", None), getattr(args, "gains", None),
                      getattr(args, "preferences", None))
        for flag, path in (("--satisfaction", study.satisfaction), ("--gains", study.gains),
                           ("--preferences", study.preferences)):
            if path is not None and not os.path.isfile(path):
                raise UsageError(f"{flag}: file not found: {path}")
        if study.gains is not None and study.satisfaction is None:
            raise UsageError("--gains: the result pages are scored to be compared with the users' ratings; give "
                             "them with --satisfaction FILE")
        return study

    def available(self) -> list[str]:
        """The inputs the study adds (names of :data:`ir_cwla.meta.criteria.NEEDS`)."""
        return [n for n in USER_INPUTS if getattr(self, n) is not None]

    def files(self) -> list[str]:
        """The files it reads (a report is never written over them)."""
        return [p for p in (self.satisfaction, self.gains, self.preferences) if p is not None]

    def read(self) -> dict[str, Any]:
        """``{satisfaction, gains, preferences}`` as the criteria read them (checked frames, or None)."""
        from ir_cwla.meta.preferences import read_preferences
        from ir_cwla.meta.ratings import read_ratings, read_table
        from ir_cwla.provider import check_pages

        gains = None
        if self.gains is not None:
            frame, name = read_table(self.gains, "gains")
            gains = check_pages(frame, name)
        return {"satisfaction": read_ratings(self.satisfaction) if self.satisfaction else None, "gains": gains,
                "preferences": read_preferences(self.preferences) if self.preferences else None}


def check_positionals(qrels: Optional[str], runs: Sequence[str], study: Study) -> None:
    """QRELS and RUNS, or a per-query file, or ``--gains``: one of the three."""
    if study.gains is not None and (qrels is not None or runs):
        raise UsageError("--gains FILE: the result pages are scored in place of QRELS and RUNS (or a per-query "
                         "file); give one or the other")
    if study.gains is None and qrels is None:
        raise UsageError("give QRELS and RUNS, a per-query file, or a user study's result pages with --gains FILE "
                         "and ratings with --satisfaction FILE")


def default_criteria(names: Optional[list[str]], available: Sequence[str], pages_only: bool) -> Optional[list[str]]:
    """The criteria to run: those asked; with result pages and no runs, by default those that read the users."""
    from ir_cwla.meta import criteria

    if names is not None or not pages_only:
        return names
    return [n for n, c in criteria.CRITERIA.items() if c.allowed(available)
            and set(c.needs + c.needs_any) & set(USER_INPUTS)]
