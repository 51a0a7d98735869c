"""The configuration a run obeys: .ordertrap.toml, and which revision it and the calibration are read from (the trust rule)."""
