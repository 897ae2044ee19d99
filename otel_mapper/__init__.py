"""Pure, I/O-free transformations: OTLP spans -> trajectory -> AT bundle, Forensic Ledger, annotated spans.

Nothing in this package opens sockets, files or threads, or reads a clock.
"""
