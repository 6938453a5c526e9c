"""C/W/L/A measures in ``pt.Experiment``, on real retrieval, offline.

Cranfield ships with ir_cwla: ``datasets.ensure_cranfield()`` puts it in the ir_datasets
cache, so ``pt.get_dataset('irds:cranfield')`` works without network. Its judgments need two
conventions (``datasets.cranfield_qrels``): Cleverdon's grades run the wrong way (1 = complete
answer), so they are remapped 1->4, 2->3, 3->2, 4->1; grade -1 (the query's source paper)
is judged non-relevant. Four systems are indexed with pyterrier-pisa and bm25s (no Java).

Run:  python examples/pyterrier_experiment.py     (needs: pip install 'ir-cwla[systems]'; --help: options)
"""
import argparse
import tempfile


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--systems", default="PISA-BM25,PISA-DPH,PISA-QLD-mu1000,bm25s-bm25l",
                    help="comma-separated systems of ir_cwla.app.systems (the first is the baseline)")
    args = ap.parse_args(argv)                   # --help stops here, before any import or work

    import pandas as pd
    import pyterrier as pt
    from ir_measures import AP, nDCG

    import ir_cwla
    from ir_cwla import CWLA, datasets
    from ir_cwla.app import systems

    datasets.ensure_cranfield()
    topics = pt.get_dataset("irds:cranfield").get_topics()
    qrels = datasets.as_pyterrier_qrels(datasets.cranfield_qrels())

    measures = [nDCG @ 10, AP, *ir_cwla.canonical(), CWLA(C="RBP", A="max") @ 10,
                CWLA(C="INST", A="PE", beta=0.3) @ 10]
    chosen = [n.strip() for n in args.systems.split(",") if n.strip()]

    with tempfile.TemporaryDirectory() as workdir:
        retrievers = systems.cranfield_systems(workdir, chosen)
        table = pt.Experiment(list(retrievers.values()), topics, qrels, eval_metrics=measures,
                              names=list(retrievers), baseline=0, correction="holm")

    # pt.Experiment names its columns str(measure); short_name gives the paper's names (RBP_max@10)
    names = {str(m): ir_cwla.short_name(m) for m in measures}
    table = table.rename(columns=lambda c: next((c.replace(k, v, 1) for k, v in names.items() if c.startswith(k)), c))

    with pd.option_context("display.width", 200, "display.max_columns", 12):
        print(table[["name", *names.values()]].round(4).to_string(index=False))
        print(f"\nHolm-corrected p-values of the paired t-test against {chosen[0]}:")
        print(table[["name", *(f"{v} p-value corrected" for v in list(names.values())[:4])]].round(4)
              .to_string(index=False))


if __name__ == "__main__":
    main()
