"""µOpTime calibration (Japke et al., TOSEM 2025, ../shared/papers/004_*.txt): ``dataset`` reads
full-configuration logs, ``search`` finds each benchmark's cheapest stable configuration, ``audit``
replays version pairs with the minimal and the full configurations. The file they produce is
gate/files/calibration_json.py."""
