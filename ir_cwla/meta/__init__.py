"""Meta-evaluation of measures from PyTerrier results (Chen & Sakai, Sections 4-6).

Every analysis takes the long per-query frame of ``pt.Experiment(..., perquery=True)``
(columns ``name, qid, measure, value``), which :func:`evaluate` also produces from TREC run
files without PyTerrier::

    from ir_cwla import meta, table1
    per_query = meta.evaluate(runs, qrels, table1())          # or pt.Experiment(..., perquery=True)
    sim  = meta.similarity(per_query)                          # Kendall's tau between rankings
    cons = meta.consistency(per_query, trials=1000, seed=0)   # tau between random topic halves
    disc = meta.discriminative_power(per_query, trials=2000, alpha=0.05, seed=0)
    cons.table(); disc.table(); disc.plot_asl(); sim.plot()

Beyond the paper, two robustness analyses re-score the runs under reduced qrels (without
ranking them again) and compare the system rankings with the full-qrels one::

    inc  = meta.incompleteness(runs, qrels, table1(), trials=20, seed=0)   # random shares of judgments
    pool = meta.pooling_bias(runs, qrels, table1(), depths=[10])          # leave one run out
    inc.table(); inc.plot(); pool.table(); pool.plot()

Two more compare the relevance labels themselves: :func:`label_agreement` (confusion matrix,
Cohen's kappa, Krippendorff's alpha of a reference qrels against other assessors', per topic and
overall, with bootstrap intervals) and :func:`combine_qrels` (one consensus qrels from several
assessors: majority, mean or median grade, or the first that judged)::

    agree = meta.label_agreement(nist_qrels, {"a": qrels_a, "b": qrels_b}, trials=1000, seed=0)
    agree.table(); agree.confusion(alternative="a"); agree.plot()
    consensus = meta.combine_qrels([qrels_a, qrels_b, nist_qrels], method="first")

and :func:`assessor_variation` asks whether each measure ranks the systems the same way when
other assessors judge (ranking agreement, per-topic correlation, rank moves, discriminative power
and consistency under both, with bootstrap intervals)::

    var = meta.assessor_variation(runs, nist_qrels, {"a": qrels_a, "b": qrels_b}, table1(), seed=0,
                                  groups=meta.browsing_model)
    var.table(); var.robustness(); var.moves_table(); var.plot()

Three ask whether the measures agree with the users of a satisfaction study (Moffat et al. 2022;
Sanderson et al. 2010), from their ratings of the result pages they saw (:func:`ir_cwla.score_gains`
scores the pages)::

    per_query = ir_cwla.score_gains(pages, table1())                    # pages: qid, rank, gain
    users = meta.user_agreement(per_query, ratings, trials=2000, seed=0)  # ratings: qid, rating[, user]
    users.table(); users.comparisons_table(significant_only=True); users.plot()
    prefs = meta.preference_agreement(per_query, satisfaction=ratings)  # pairs within a user's task
    fit = meta.fit_user_model(pages, ratings, trials=2000, folds=5)     # RBP's p, INST's T, DCG's k
    fit.table(); fit.plot()

LLM judges as assessors (issue 32): :func:`judge_ranking` ranks many judges' label agreement with
intervals (:func:`read_judges` reads their files, mapping ids with :func:`read_id_map`);
:func:`disjoint_agreement` compares two topic-disjoint collections of the same systems (NIST's
topics against an LLM's others) beside a null from one of them; :func:`judge_bias` tests whether
runs built on the judge's model family gain under it; :func:`corrected_scores` corrects cheap
labels' scores by a few human-labelled topics (prediction-powered inference) and
:func:`validate_corrected` checks its intervals' coverage; :func:`read_score_files` reads
``trec_eval -q`` output where the runs are absent, and :func:`score_variation` is
:func:`assessor_variation` from such scores::

    agree = meta.label_agreement(nist, meta.read_judges("labels/"), trials=2000, grade_map={5: 3})
    meta.judge_ranking(agree).plot()
    dis = meta.disjoint_agreement(per_query_nist, per_query_gpt4, bootstrap=1000, null_trials=1000, seed=0)
    bias = meta.judge_bias(nist_scores, judge_scores, meta.runs_using("run-models.csv", "GPT.*"))

Every comparison of rankings can use top-weighted statistics: ``meta.tau_ap`` (Yilmaz et
al. 2008) and ``meta.rbo`` (Webber et al. 2010), also as ``agreement='tau_ap'`` or ``'rbo'``
in :func:`similarity` and :func:`consistency` (Kendall's tau stays the default).

Pass ``groups=meta.browsing_model`` to compare aggregations within each browsing model, as
the paper does. :func:`sweep` runs many measures (:func:`grid`) over several collections at
once. Every heavy step takes ``executor=`` (a ``dask.distributed.Client``), ``n_jobs=`` or
``scheduler='tcp://host:8786'``; randomised procedures are exactly reproducible from their
seed, whichever executor runs them (:mod:`ir_cwla.analysis.streams`).
"""
from typing import Any

from ir_cwla.analysis.executors import Dask, InProcess, LocalProcesses, get_executor
from ir_cwla.analysis.frame import ScoreCube, to_cube
from ir_cwla.analysis.naming import browsing_model, label
from ir_cwla.analysis.pairwise import paired_randomisation_test, paired_t_test
from ir_cwla.analysis.tukey import randomised_tukey_hsd
from ir_cwla.meta.agreement import rbo, tau_ap
from ir_cwla.meta.assessors import AssessorVariation, assessor_variation, score_variation
from ir_cwla.meta.consensus import combine_qrels
from ir_cwla.meta.consistency import Consistency, consistency
from ir_cwla.meta.corrected import (
    CorrectedScores,
    CorrectedValidation,
    corrected_scores,
    label_units,
    validate_corrected,
)
from ir_cwla.meta.criteria import CRITERIA, Criterion, Inputs, Option, get_criterion, register_criterion
from ir_cwla.meta.discriminative_power import DiscriminativePower, discriminative_power
from ir_cwla.meta.disjoint import DisjointAgreement, disjoint_agreement
from ir_cwla.meta.evaluation import evaluate, run_name
from ir_cwla.meta.incompleteness import Incompleteness, incompleteness
from ir_cwla.meta.judge_bias import JudgeBias, judge_bias, read_run_models, runs_using
from ir_cwla.meta.judges import JudgeRanking, judge_ranking, map_ids, read_id_map, read_judges
from ir_cwla.meta.kendall import fieller_ci, tau_b_matrix, tau_b_rows
from ir_cwla.meta.labels import LabelAgreement, label_agreement
from ir_cwla.meta.pooling import PoolingBias, pooling_bias
from ir_cwla.meta.preferences import PreferenceAgreement, derive_pairs, preference_agreement, read_preferences
from ir_cwla.meta.ratings import read_ratings
from ir_cwla.meta.satisfaction import UserAgreement, user_agreement
from ir_cwla.meta.scorefiles import read_score_files, read_trec_eval
from ir_cwla.meta.similarity import Similarity, similarity
from ir_cwla.meta.sweep import Sweep, grid, sweep
from ir_cwla.meta.topic_set_size import TopicSetSize, topic_set_sizes
from ir_cwla.meta.user_model import UserModelFit, fit_user_model

__all__ = [
    "evaluate", "similarity", "consistency", "discriminative_power", "randomised_tukey_hsd",
    "paired_randomisation_test", "paired_t_test", "Similarity", "Consistency", "DiscriminativePower",
    "ScoreCube", "to_cube", "browsing_model", "label", "run_name", "tau_b_rows", "tau_b_matrix",
    "fieller_ci", "InProcess", "LocalProcesses", "Dask", "get_executor", "sweep", "grid", "Sweep",
    "CRITERIA", "Criterion", "Inputs", "Option", "register_criterion", "get_criterion", "criteria",
    "incompleteness", "Incompleteness", "pooling_bias", "PoolingBias", "tau_ap", "rbo",
    "label_agreement", "LabelAgreement", "combine_qrels", "topic_set_sizes", "TopicSetSize",
    "assessor_variation", "AssessorVariation", "user_agreement", "UserAgreement", "read_ratings",
    "preference_agreement", "PreferenceAgreement", "derive_pairs", "read_preferences",
    "fit_user_model", "UserModelFit",
    "assessor_variation", "AssessorVariation", "score_variation", "disjoint_agreement", "DisjointAgreement",
    "judge_bias", "JudgeBias", "runs_using", "read_run_models", "corrected_scores", "CorrectedScores",
    "validate_corrected", "CorrectedValidation", "label_units", "judge_ranking", "JudgeRanking", "read_judges",
    "read_id_map", "map_ids", "read_score_files", "read_trec_eval",
]


def __getattr__(name: str) -> Any:
    """``meta.naming``, ``meta.streams``, ...: the modules that moved to :mod:`ir_cwla.analysis` (issue 29).

    Their old paths still work, each name taken from them with an ``IrCwlaDeprecationWarning``
    naming where it is now (``ir_cwla._facade.MOVED``).
    """
    from ir_cwla import _facade
    return _facade.old_submodule(__name__, name)
