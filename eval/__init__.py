"""Evaluation scripts: the tables of README and docs/ on reference data (eval/reference_data.py)."""
