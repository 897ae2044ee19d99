"""Reports people read: bundles found on disk or made from OTLP files (``files``), the ``/trajectories`` page of
``serve`` (``page``) and its bounded store of recent results (``summaries``). Rendering is pure and lives in
:mod:`otel_mapper.report`."""
