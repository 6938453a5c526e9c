"""What a measure is: the ``CWLA`` measure, its browsing models, aggregations, parameters and names.

The engine's second room (above :mod:`ir_cwla.io`, below :mod:`ir_cwla.scoring`). A C/W/L/A
measure is ``M = sum_i L(i) A(i)``: a browsing model C (:func:`register_browsing_model`;
:data:`BROWSING_MODELS` holds P, DCG, RBP, INST, INSQ, AP, ERR, RR and cwl_eval's others) gives
the share L(i) of users who stop at rank i, an aggregation A (:func:`register_aggregation`;
:data:`AGGREGATIONS`) what a user who stops there gets. Here are the measure (:data:`CWLA`,
validated against the registries), the parameters models and aggregations declare
(:class:`Param`), its vocabulary (how grades become gains, :class:`GainSpec`; what documents
cost, :class:`CostSpec`; the tails, :data:`TAILS`; the unjudged policies), the one grammar of
names (:func:`parse_measure`, :func:`short_name`) and the paper's Table 1 (:func:`table1`).

Nothing here reads a run or scores one: :mod:`ir_cwla.scoring` does, with what is declared here.
Everything is also importable from ``ir_cwla`` itself.
"""
from __future__ import annotations

from ir_cwla.measures._aggregation import (
    AGGREGATIONS,
    Aggregation,
    AggregationInput,
    AggregationTail,
    AggregationTailInput,
    register_aggregation,
)
from ir_cwla.measures._browsing import BROWSING_MODELS, TAILS, BrowsingModel, register_browsing_model
from ir_cwla.measures._costs import CostSpec, allow_cost_files
from ir_cwla.measures._gains import GAIN_NAMES, UNJUDGED_POLICIES, GainSpec
from ir_cwla.measures._measure import CWLA, is_cwla, needs_element_types
from ir_cwla.measures._names import family, parse_measure, parse_measures, short_name
from ir_cwla.measures._params import MEASURE_PARAMS, Param
from ir_cwla.measures._table1 import MeasureList, canonical, is_canonical, table1
from ir_cwla.measures._tails import (
    BrowsingInput,
    TailInput,
    TailSums,
    ap_like_tail,
    flat_tail,
    lerch_phi_1,
    never_stopping_tail,
    precision_tail,
    range_sum,
    rbp_tail,
)

__all__ = [
    # the measure and its names
    "CWLA", "is_cwla", "parse_measure", "parse_measures", "short_name", "family", "needs_element_types",
    # the paper's Table 1
    "table1", "canonical", "is_canonical", "MeasureList",
    # browsing models and aggregations, and what they declare
    "register_browsing_model", "BROWSING_MODELS", "BrowsingModel", "BrowsingInput", "TailInput", "TailSums",
    # the closed forms of the zero-gain tails, for a model's own tail= (ir_cwla.measures._tails)
    "rbp_tail", "lerch_phi_1", "flat_tail", "precision_tail", "never_stopping_tail", "ap_like_tail", "range_sum",
    "register_aggregation", "AGGREGATIONS", "Aggregation", "AggregationInput", "AggregationTailInput",
    "AggregationTail", "Param", "MEASURE_PARAMS",
    # the measure's vocabulary: gains, costs, tails, unjudged documents
    "GainSpec", "GAIN_NAMES", "CostSpec", "allow_cost_files", "TAILS", "UNJUDGED_POLICIES",
]
