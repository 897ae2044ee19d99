"""The running data path: receivers -> spool -> assembler -> analysis -> exporters, plus the artifact writer."""
