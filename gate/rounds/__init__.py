"""The rules of follow-up rounds (``run --budget``): the budget and its one duration grammar
(``config``), the budget clock, the planner that picks who gets a round, and analysis.json's
summary of the rounds. Pure over ``gate/files``, below the configuration, the engine and the
analysis that read them; the loop that drives the rounds is ``gate/adaptive`` above them
(docs/development.md, "Layers")."""
