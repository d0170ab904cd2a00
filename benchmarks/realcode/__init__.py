"""The pinned real-code corpus: public data-science repositories listed in `repos.toml`,
extracted from their mirrors by `extract.py` (never committed), and `fix_audit.py`, which
checks `gpulint check --fix --unsafe-fixes` on them. Scripts, run from a checkout."""
