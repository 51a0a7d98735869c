"""Speed benchmarks of the gate itself (docs/performance.md "Speed of the gate itself")."""
