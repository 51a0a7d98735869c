"""Follow-up rounds (``run --budget``): the loop that analyses the run's own log between rounds and
runs more interleaved trials for what is still unresolved. It sits above the analysis and the
engine it drives; the engine runs the trials it is given (docs/development.md, "Layers")."""
