"""Differential fuzzing of gpulint's fixes: programs built from each rule's idioms, run
before and after the fix on the same data, their results compared by kind of difference.

- `values`: data at the edges (int64 bounds, small int dtypes, NaN, empty, text, 2-D...);
- `expressions`: random expression trees over an element;
- `programs`: program templates per rule with a rewrite (`PROGRAMS`);
- `execution`: one run of a program on a deep copy of its inputs, with a time limit;
- `compare`: the difference classes between two results;
- `fuzz`: one check (fix, run, judge) and the table of what each rule's fix may change;
- `known`: the failure classes found before, recognised in the long mode's log;
- `__main__`: the long mode, `python -m tests.differential --examples 5000`.
"""
