"""The ground that meta-evaluation and comparison stand on (issue 29).

Below :mod:`ir_cwla.meta` and :mod:`ir_cwla.comparison`, above the engine:

- :mod:`.frame` and :mod:`.naming`: the long per-query frame as a measures x topics x systems
  :class:`~ir_cwla.analysis.frame.ScoreCube`, and the measures' short labels and order;
- :mod:`.executors`, :mod:`.streams`, :mod:`.montecarlo`: where independent tasks run, the seeded
  random streams in fixed chunks, and the streaming Monte-Carlo driver that counts trials;
- the statistical tests' kernels: :mod:`.paired` (t, Wilcoxon, sign, Sakai's bootstrap test),
  :mod:`.pairwise` (Fisher's randomisation test), :mod:`.tukey` (the randomised Tukey HSD test,
  two-way), :mod:`.anova` (two-way ANOVA without replication, Tukey's HSD after it).
"""
