"""OTLP spans of one trace -> :class:`~otel_mapper.model.Trajectory`: convention readers, mapping entries, nodes,
evidence-backed edges, graph queries and lossy-mapping declarations. Entry point: :func:`build.map_trace`."""
