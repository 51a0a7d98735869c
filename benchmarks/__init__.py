"""Speed benchmarks of the gate itself (README "Speed of the gate itself")."""
