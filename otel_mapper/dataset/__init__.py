"""Regression datasets from bundles (the AT spec's *Dataset*): selection, rights, re-redaction, labels, manifest.
Pure: the ``dataset build`` command reads and writes the files."""
