"""The image-search user study of Shao, Liu, Zhang, Zhang & Ma (2019) as result pages and ratings.

*On Annotation Methodologies for Image Search Evaluation*, ACM TOIS 37(3), 2019 (its authors'
release, ThuYShao/DataForTOIS): a lab study in which 36 users searched an image search engine for
12 tasks; after each query the user rated their satisfaction with its result page (1, worst, to
5), and assessors judged the topical relevance (0-3) of each of the top ten *rows* of the page's
image grid. The release is not bundled (its terms: research use with the citation); point
:func:`read_image_search` at a folder holding its ``query_satisfaction.csv`` and
``row_judgments.csv``.

What the data is, and is not: one lab study, on one engine; a page is a grid of images whose rows
a browsing model walks top to bottom (row 1 first), not a list of web results; the grade is a
row's, not an image's; the satisfaction is the user's own, given right after the query.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ir_cwla.errors import InputError

#: The files of the release that :func:`read_image_search` reads.
FILES = ("query_satisfaction.csv", "row_judgments.csv")


def query_ids(user: Any, task: Any, query: Any) -> Any:
    """The qid of (user, task, query): six digits, ``UUTTQQ`` (numeric, as gdeval's ERR needs)."""
    return (user.astype(int).map("{:02d}".format) + task.astype(int).map("{:02d}".format)
            + query.astype(int).map("{:02d}".format))


def read_image_search(folder: Any) -> tuple[Any, Any]:
    """``(pages, ratings)`` of the study in ``folder``.

    ``pages``: ``qid, rank, gain`` (rank = row + 1; the row's relevance grade 0-3), the frame
    :func:`ir_cwla.score_gains` scores; ``ratings``: ``qid, rating, user, task, session,
    position, query`` (the satisfaction 1-5; a session is a user's task, its queries in the order of
    their ids), the table :func:`ir_cwla.meta.user_agreement` reads. A query is identified by
    (user, task, query id): :func:`query_ids`.
    """
    import pandas as pd

    folder = Path(os.fspath(folder))
    missing = [f for f in FILES if not (folder / f).is_file()]
    if missing:
        raise InputError(f"{folder}: no {', '.join(missing)} (the files of Shao et al.'s image-search release)")
    satisfaction = pd.read_csv(folder / FILES[0])
    rows = pd.read_csv(folder / FILES[1])
    pages = pd.DataFrame({"qid": query_ids(rows["user"], rows["task_id"], rows["query_id"]),
                          "rank": rows["row_id"].astype(int) + 1, "gain": rows["relevance"]})
    session = satisfaction["user_id"].astype(int).map("{:02d}".format) + "-" + \
        satisfaction["task_id"].astype(int).map("{:02d}".format)
    position = satisfaction.groupby(session)["query_id"].rank(method="first").astype(int)
    ratings = pd.DataFrame({"qid": query_ids(satisfaction["user_id"], satisfaction["task_id"],
                                             satisfaction["query_id"]),
                            "rating": satisfaction["satisfaction"], "user": satisfaction["user_id"].astype(str),
                            "task": satisfaction["task_id"].astype(str), "session": session, "position": position,
                            "query": satisfaction["query"]})
    return (pages.sort_values(["qid", "rank"]).reset_index(drop=True),
            ratings.sort_values("qid").reset_index(drop=True))
