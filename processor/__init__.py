"""The running service and everything with state, time or I/O: config, receiver, assembler, detector chain,
exporters, artifact writers and the CLI."""
