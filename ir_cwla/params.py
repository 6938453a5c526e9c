"""The parameters a browsing model or an aggregation reads: the typed extension point.

Every ``continuation(gains, params)``, tail, check and aggregation of :mod:`ir_cwla.browsing`,
:mod:`ir_cwla.cwl_models` and :mod:`ir_cwla.aggregation` receives the measure's numeric
parameters as one :data:`Params` mapping (:meth:`ir_cwla.CWLA.model_params`), whichever of
them it reads; a model or aggregation registered by a user reads the same keys:

============  ======================================  ============  =====================================
key           meaning                                 key           meaning
============  ======================================  ============  =====================================
``p``         RBP persistence                         ``R1``        IFT goal rationality
``T``         INST/INSQ target gain, IFT's goal       ``rate``      IFT expected rate of gain per cost
``beta``      peak-end weight                         ``b2``        IFT rate intercept
``K``         BPM/BPMD cost budget                    ``R2``        IFT rate rationality
``hb``        BPMD gain-budget step                   ``phi``       NERR10 persistence
``hc``        BPMD cost-budget step                   ``discount``  NPV discount rate
``gain_med``  BPMD gain that moves no budget          ``exponent``  SET diminishing returns
``b1``        IFT goal intercept                      ``halflife``  TBG half-life
``L``         U-measure patience                      ``cutoff``    the cutoff k (int) or None
============  ======================================  ============  =====================================

Every float key is always present (its default when the measure does not set it);
defaults and ranges are ``CWLA.SUPPORTED_PARAMS``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: What a model, tail, check or aggregation receives: the keys of :data:`MODEL_PARAMS` (floats)
#: and ``cutoff`` (an int or None).
Params = Mapping[str, Any]

#: The float parameters, in declaration order (the one list :mod:`ir_cwla.measure` uses).
MODEL_PARAMS: tuple[str, ...] = ("p", "T", "beta", "K", "hb", "hc", "gain_med", "b1", "R1", "rate", "b2", "R2",
                                 "phi", "discount", "exponent", "halflife", "L")
