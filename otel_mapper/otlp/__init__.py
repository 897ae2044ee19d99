"""OTLP in and out: span envelopes and id checks, the OTLP/JSON codec, AnyValue decoding, spans held as bytes,
and the wire-level salvage of requests that do not decode as a whole."""
