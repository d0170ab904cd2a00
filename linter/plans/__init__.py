"""Plans: what a fixable rule hands its fixer about one finding.

A rule decides, on `ast`, how a finding may be fixed (`Facts.applicability`) and what the
rewrite needs; its fixer renders exactly that. The plan types live here, one module per
fixable rule, so that a fixer reads its rule's decision without importing the rule.
"""
