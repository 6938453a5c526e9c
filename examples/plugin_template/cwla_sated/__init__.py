"""SATED: a browsing model whose users are sated by the gain they collect (an ir_cwla plugin).

C(i) = q (1 - s r_i): a user goes on to the next document with probability ``q`` (the
persistence, RBP's p) after a document without gain, and less often after a relevant one,
by the share ``s`` of its gain r_i in [0, 1] (the satiation). ``s = 0`` is RBP with p = q.

ir_cwla runs :func:`register` when it is imported (this package's entry point of the group
``ir_cwla.plugins``, setup.cfg), so ``ir-cwla eval -m SATED_ERG@10``,
``CWLA(C='SATED', A='ERG', s=0.8)@10``, ``SATED(s=0.8)_ERG@10`` and ``ir-cwla measures``
know the model.
"""
from __future__ import annotations


def sated(inp, params):
    """SATED: C(i) = q (1 - s r_i), a user sated by the gain collected (s = 0: RBP with p = q).

    ``inp`` is an ``ir_cwla.BrowsingInput``: ``inp.gains`` the (topics x ranks) gains r_i,
    ``inp.ranks`` the ranks, ``inp.costs`` the document costs.
    """
    return float(params["q"]) * (1.0 - float(params["s"]) * inp.gains)


def register():
    """Registers SATED with ir_cwla (run once, when ir_cwla is imported)."""
    import ir_cwla

    ir_cwla.register_browsing_model(
        "SATED", sated,
        params={"q": ir_cwla.Param(0.8, bounds=(0.0, 1.0), closed="neither",
                                   doc="persistence: the chance of going on after a document without gain"),
                "s": ir_cwla.Param(0.5, bounds=(0.0, 1.0),
                                   doc="satiation: how much a relevant document lowers that chance")})
