"""The files the gate writes, one module each: the only readers and writers of their format."""
