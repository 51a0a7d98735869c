"""Directory put on PYTHONPATH of benchmark processes; holds only ``ordertrap_pytest_plugin``."""
