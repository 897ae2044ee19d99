"""The processor's own telemetry: Collector-vocabulary counters, self-metrics (OTLP push and Prometheus), gRPC health."""
