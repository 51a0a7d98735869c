"""One module per subcommand; see :mod:`gate.cli` for the protocol."""
