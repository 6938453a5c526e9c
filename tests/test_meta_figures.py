"""The meta-evaluation figures.

The paper's order, one style per aggregation, and the same pixels whatever the
row order of the per-query frame.
"""
from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import meta
from ir_cwla.measures._table1 import TABLE1_AGGREGATIONS
from ir_cwla.meta.plots import AGGREGATION_STYLES

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

PAPER_PANELS = ["C: P@10", "C: DCG@10", "C: RBP@10", "C: INST@10", "C: AP@10", "C: ERR@10"]
#: The order pt.Experiment's per-query frame happened to give on the README's main path.
PYTERRIER_ORDER = ["P", "INST", "RBP", "ERR", "DCG", "AP"]


def synthetic_frame(seed: int = 0, systems: int = 10, topics: int = 16) -> pd.DataFrame:
    """A per-query frame of the 39 Table-1 measures over systems of increasing quality.

    The 39 Table-1 measures over systems of increasing quality, rows in PyTerrier's order of
    models (not the paper's); under P, ETG equals ERG exactly (as on real data).
    """
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


def with_standard_measures(frame: pd.DataFrame, names=("nDCG@10", "AP")) -> pd.DataFrame:
    """``frame`` plus ordinary ir-measures measures (the usual case: C/W/L/A next to nDCG@10)."""
    rng = np.random.default_rng(5)
    systems, topics = sorted(frame["name"].unique()), sorted(frame["qid"].unique())
    quality = np.linspace(0.2, 0.7, len(systems))
    rows = [(s, t, name, float(np.clip(quality[i] + rng.normal(0, 0.25), 0, 1)))
            for name in names for i, s in enumerate(systems) for t in topics]
    return pd.concat([frame, pd.DataFrame(rows, columns=list(frame.columns))], ignore_index=True)


@pytest.fixture(scope="module")
def mixed(frame):
    return results(with_standard_measures(frame))


def _not_an_aggregation_style(colour: str, marker: str) -> bool:
    from ir_cwla.meta.plots import EXTRA_STYLES

    styles = list(AGGREGATION_STYLES.values()) + list(EXTRA_STYLES)
    return colour not in {c for c, _ in styles} and marker not in {m for _, m in styles}


def test_aggregations_keep_their_style_next_to_standard_measures(mixed):
    """Aggregations keep their style next to standard measures (issue 19).

    Issue 19: with nDCG@10 and AP beside the 39 Table-1 measures, every C/W/L/A curve, box and tick
    keeps its aggregation's colour and marker, the browsing-model panels keep their titles and names,
    and the standard measures get styles no aggregation has.
    """
    sim, cons, disc = mixed
    fig = disc.plot_asl()
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in panels] == PAPER_PANELS + ["AP", "nDCG@10"]
    seen = 0
    for ax in panels[:6]:
        for line in ax.get_lines()[:-1]:
            colour, marker = AGGREGATION_STYLES[line.get_label().split()[0]]
            assert (to_hex(line.get_color()), line.get_marker()) == (colour, marker)
            seen += 1
    assert seen == 39
    standard = [ax.get_lines()[0] for ax in panels[6:]]
    assert [line.get_label() for line in standard] == ["AP", "nDCG@10"]
    styles = {(to_hex(line.get_color()), line.get_marker()) for line in standard}
    assert len(styles) == 2 and all(_not_an_aggregation_style(c, m) for c, m in styles)
    plt.close(fig)
    fig = cons.plot()
    for ax in fig.axes[:6]:
        for tick in ax.get_xticklabels():
            assert to_hex(tick.get_color()) == AGGREGATION_STYLES[tick.get_text().split()[0]][0]
    assert [t.get_text() for t in fig.axes[6].get_xticklabels()] == ["AP"]
    plt.close(fig)


def test_similarity_leaves_out_families_of_one_and_says_so(mixed):
    sim = mixed[0]
    fig = sim.plot()
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in panels] == PAPER_PANELS             # no empty AP / nDCG@10 panel
    assert all(len(ax.get_yticklabels()) >= 1 for ax in panels)
    assert "left out: AP, nDCG@10 (families of one measure" in fig._suptitle.get_text()
    plt.close(fig)
    table = sim.table()
    assert set(table["group"]) == {t[3:] for t in PAPER_PANELS}
    assert table.attrs["note"].startswith("left out: AP, nDCG@10")


def test_similarity_with_nothing_to_compare_says_so():
    from ir_cwla.errors import DataError
    from ir_cwla.meta import criteria

    rng = np.random.default_rng(1)
    rows = [(f"s{s}", f"q{t}", m, float(rng.random() + s / 4)) for m in ("nDCG@10", "AP") for s in range(6)
            for t in range(8)]
    sim = meta.similarity(pd.DataFrame(rows, columns=["name", "qid", "measure", "value"]), groups=meta.browsing_model)
    table = sim.table()
    assert table.empty and table.attrs["note"].startswith("nothing to compare: every family holds one measure")
    with pytest.raises(DataError, match="no family holds two measures"):
        sim.plot()
    blocks = criteria.CRITERIA["similarity"].section(sim, table)
    assert [type(b).__name__ for b in blocks] == ["Text", "Text"] and "Nothing to compare" in blocks[1].text


def test_one_aggregation_under_several_models_differs_by_line_style(frame):
    """A panel of every measure (no families).

    RBP_max and INST_max keep max's colour and marker and are told apart by
    their browsing model's line style.
    """
    few = frame[frame["measure"].isin([str(m) for m in ir_cwla.table1(10) if m["A"] in ("max", "ERG")
                                       and m["C"] in ("RBP", "INST")])]
    fig = meta.discriminative_power(few, trials=30, progress=False, seed=1).plot_asl()
    lines = {line.get_label().split(" (")[0]: line for line in fig.axes[0].get_lines()[:-1]}
    assert set(lines) == {"RBP_ERG@10 *", "RBP_max@10", "INST_ERG@10 *", "INST_max@10"}
    for name, line in lines.items():
        agg = name.split("_")[1].split("@")[0]
        assert (to_hex(line.get_color()), line.get_marker()) == AGGREGATION_STYLES[agg]
    assert lines["RBP_max@10"].get_linestyle() != lines["INST_max@10"].get_linestyle()
    assert lines["RBP_max@10"].get_linestyle() == lines["RBP_ERG@10 *"].get_linestyle()
    plt.close(fig)
