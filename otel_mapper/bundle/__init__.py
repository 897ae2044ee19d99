"""What a trajectory is written as: the AT bundle (writer, graph and descriptive parts, JCS canonicalisation and
digests, redaction) and the Forensic Ledger packet."""
