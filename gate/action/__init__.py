"""The GitHub actions' layer over the verbs (docs/development.md, "Layers"): each action's inputs
declared once and typed (:mod:`gate.action.run_inputs`; the Docker action's in
:class:`gate.github.context.ActionInputs`), the event → revisions rule as a pure function
(:mod:`gate.action.revisions`), and the run action itself (:mod:`gate.action.run_action`), which
calls the verbs' keyword cores in process. The action.yml files only install, call one verb and
upload."""
