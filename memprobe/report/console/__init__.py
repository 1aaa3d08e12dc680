"""The console: each verb's view a module of its own (run, diff, explain, bisect, sweep, gate, estimate, policies),
rendered with rich from the verb's record; :mod:`.shared` holds what every view shares."""
