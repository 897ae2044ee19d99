"""The consumer side: an AT bundle or Forensic Ledger packet checked against its JSON Schema and the spec's rules."""
