"""The meta-evaluation figures: the paper's order, one style per aggregation, and the same
pixels whatever the row order of the per-query frame."""
from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import meta
from ir_cwla.meta.plots import AGGREGATION_STYLES
from ir_cwla.table1 import TABLE1_AGGREGATIONS

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

PAPER_PANELS = ["C: P@10", "C: DCG@10", "C: RBP@10", "C: INST@10", "C: AP@10", "C: ERR@10"]
#: The order pt.Experiment's per-query frame happened to give on the README's main path.
PYTERRIER_ORDER = ["P", "INST", "RBP", "ERR", "DCG", "AP"]


def synthetic_frame(seed: int = 0, systems: int = 10, topics: int = 16) -> pd.DataFrame:
    """The 39 Table-1 measures over systems of increasing quality, rows in PyTerrier's order of
    models (not the paper's); under P, ETG equals ERG exactly (as on real data)."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.2, 0.7, systems)
    measures = sorted(ir_cwla.table1(10), key=lambda m: (PYTERRIER_ORDER.index(m["C"]), -len(m["A"]), m["A"]))
    rows = []
    erg_p = None
    for m in measures:
        values = np.clip(quality + rng.normal(0, 0.25, (topics, systems)), 0, 1)
        if m["C"] == "P" and m["A"] == "ERG":
            erg_p = values
        if m["C"] == "P" and m["A"] == "ETG":
            values = erg_p if erg_p is not None else values
        for t in range(topics):
            for s in range(systems):
                rows.append((f"sys{s:02d}", f"q{t:02d}", str(m), float(values[t, s])))
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def results(frame: pd.DataFrame):
    groups = meta.browsing_model
    return (meta.similarity(frame, groups=groups),
            meta.consistency(frame, trials=40, test_trials=40, groups=groups, progress=False, seed=1),
            meta.discriminative_power(frame, trials=60, groups=groups, progress=False, seed=1))


def pixels(fig) -> np.ndarray:
    fig.canvas.draw()
    out = np.asarray(fig.canvas.buffer_rgba()).copy()
    plt.close(fig)
    return out


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return synthetic_frame()


@pytest.fixture(scope="module")
def analyses(frame):
    return results(frame)


@pytest.mark.slow   # draws every figure twice and compares pixels
def test_figures_are_identical_whatever_the_row_order(frame, analyses):
    shuffled = frame.sample(frac=1.0, random_state=7).reset_index(drop=True)
    assert list(dict.fromkeys(shuffled["measure"]))[:6] != list(dict.fromkeys(frame["measure"]))[:6]
    again = results(shuffled)
    for draw in (lambda r: r[0].plot(), lambda r: r[1].plot(), lambda r: r[2].plot_asl()):
        np.testing.assert_array_equal(pixels(draw(analyses)), pixels(draw(again)))


def test_panels_in_the_papers_order_and_measures_in_table_1s(analyses):
    sim, cons, disc = analyses
    for fig in (sim.plot(), cons.plot(), disc.plot_asl()):
        panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
        assert [ax.get_title() for ax in panels] == PAPER_PANELS
        plt.close(fig)
    fig = cons.plot()
    inst = fig.axes[3]
    assert [t.get_text() for t in inst.get_xticklabels()] == ["ERG *", "ETG", "avg", "max", "fin", "PE", "ERR"]
    plt.close(fig)


def test_one_colour_and_marker_per_aggregation_in_every_panel(analyses):
    sim, cons, disc = analyses
    fig = disc.plot_asl()
    seen = 0
    for ax in fig.axes[:6]:
        for line in ax.get_lines()[:-1]:                  # the last line is alpha
            agg = line.get_label().split()[0]
            colour, marker = AGGREGATION_STYLES[agg]
            assert to_hex(line.get_color()) == colour and line.get_marker() == marker
            assert line.get_linewidth() == (2.2 if "*" in line.get_label().split("(")[0] else 1.3)
            seen += 1
    assert seen == 39
    plt.close(fig)
    for fig in (sim.plot(), cons.plot()):
        for ax in fig.axes[:6]:
            for tick in ax.get_xticklabels():
                assert to_hex(tick.get_color()) == AGGREGATION_STYLES[tick.get_text().split()[0]][0]
        plt.close(fig)
    assert tuple(AGGREGATION_STYLES) == TABLE1_AGGREGATIONS
    assert len({c for c, _ in AGGREGATION_STYLES.values()}) == len({m for _, m in AGGREGATION_STYLES.values()}) == 7


def test_coinciding_asl_curves_are_all_drawn_and_named(analyses):
    fig = analyses[2].plot_asl()
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert "ETG (= ERG *)" in labels and "ERG *" in labels
    plt.close(fig)


def test_asl_axis_ends_where_the_curves_leave_the_plot(analyses):
    disc = analyses[2]
    fig = disc.plot_asl()
    right = fig.axes[0].get_xlim()[1]
    curves = disc.asl()
    last = int((curves.to_numpy() <= fig.axes[0].get_ylim()[1]).sum(axis=0).max())
    assert last <= right <= max(5, 1.15 * last + 2) and right < len(curves)
    plt.close(fig)


def test_measure_labels_are_never_mathtext(frame):
    erg = [m for m in frame["measure"].unique() if "A='ERG'" in m][:4]    # one panel, named by label
    few = frame[frame["measure"].isin(erg)]
    labels = {m: f"${m[:5]}$ \\frac{{1}}{{$" for m in few["measure"].unique()}
    sim = meta.similarity(few, labels=labels)
    fig = sim.plot()
    assert all("\\$" in t.get_text() for t in fig.axes[0].get_yticklabels())
    pixels(fig)                                          # draws (mathtext would choke on some names)


def test_other_measures_get_a_style_each_in_measure_order():
    rng = np.random.default_rng(3)
    rows = [(f"s{s}", f"q{t}", m, float(rng.random() + s / 5)) for m in ("nDCG@10", "AP", "P@5")
            for s in range(6) for t in range(8)]
    df = pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])
    disc = meta.discriminative_power(df, trials=30, progress=False)
    fig = disc.plot_asl()
    lines = fig.axes[0].get_lines()[:-1]
    assert [line.get_label() for line in lines] == ["AP", "P@5", "nDCG@10"]
    assert len({to_hex(line.get_color()) for line in lines}) == 3
    plt.close(fig)
