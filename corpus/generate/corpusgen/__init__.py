"""Shared pieces of the corpus generator (fake model server, OTLP capture, ground truth, labels)."""
