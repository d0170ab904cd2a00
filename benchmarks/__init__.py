"""gpulint's benchmarks (imported as `gpulint.benchmarks`).

Two kinds live here:

- `engine_speed.py`: how fast gpulint lints real code, against the floor of any `ast`-based
  linter and against peer linters (a script: `python benchmarks/engine_speed.py`).
- One benchmark per rule, `<family>/<stem>.py` with the rule's own family and stem (e.g.
  `dataframe/iterrows_loop.py` for GPU102): the rule's first flagged example, before and
  after gpulint's rewrite, executed on generated data of growing size, with the results
  compared before anything is timed. `harness.py` runs them (`gpulint bench`, or
  `pytest benchmarks/ --benchmark-only`), `results/` holds the committed runs.

Importing this package is cheap: the data-science libraries are imported only when a
benchmark runs, never by the linter.
"""
