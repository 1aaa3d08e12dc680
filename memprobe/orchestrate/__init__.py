"""Orchestration: the verbs that need several probes (diff, bisect, explain, gate, budget) run each in a
process of its own (:mod:`.process`) and work on the run directories those write."""
