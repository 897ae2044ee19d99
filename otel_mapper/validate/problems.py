"""One problem a consumer found in a bundle or ledger packet: where, which checklist requirement, what."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Problem"]


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    """JSON pointer (RFC 6901) of the offending value; ``""`` is the whole document."""
    check_id: str
    """Checklist id of the requirement broken (``AT-6.1a``; ``FL-1.6.0`` for ledger schema problems)."""
    message: str

    def __str__(self) -> str:
        return f"{self.path or '/'} [{self.check_id}] {self.message}"
