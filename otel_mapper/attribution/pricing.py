"""The price table: US dollars per million tokens for each model, and per call for each tool.

Pure data read from config (``pricing.models.<model>.{input_per_million, output_per_million,
cached_input_per_million}``, ``pricing.tools.<tool>.per_call``). A model is priced by its exact name, else by the
longest table key that the model's name extends with ``-`` or ``@`` (``gpt-4o-mini`` prices
``gpt-4o-mini-2024-07-18``). An unpriced model is never guessed: its cost stays unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from otel_mapper.model import TokenUsage

__all__ = ["ModelPrice", "PriceTable", "ToolPrice", "usage_cost"]

_VERSION_SEPARATORS: Final = ("-", "@", ":")
PER_MILLION: Final = 1_000_000


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelPrice:
    input_per_million: float
    output_per_million: float
    cached_input_per_million: float | None = None
    """Price of input tokens served from the prompt cache; ``None``: billed as ordinary input."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolPrice:
    per_call: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PriceTable:
    models: tuple[tuple[str, ModelPrice], ...] = ()
    """(model name, price), sorted by name."""
    tools: tuple[tuple[str, ToolPrice], ...] = ()

    @classmethod
    def of(cls, models: dict[str, ModelPrice] | None = None, tools: dict[str, ToolPrice] | None = None) -> PriceTable:
        return cls(models=tuple(sorted((models or {}).items())), tools=tuple(sorted((tools or {}).items())))

    def __bool__(self) -> bool:
        return bool(self.models or self.tools)

    def model(self, name: str | None) -> ModelPrice | None:
        """The price of ``name``: exact match, else the longest key it extends with a version suffix."""
        if not name:
            return None
        best: tuple[int, ModelPrice] | None = None
        for key, price in self.models:
            if key == name:
                return price
            if name.startswith(key) and name[len(key)] in _VERSION_SEPARATORS and (best is None or len(key) > best[0]):
                best = (len(key), price)
        return best[1] if best is not None else None

    def tool(self, name: str | None) -> ToolPrice | None:
        if not name:
            return None
        for key, price in self.tools:
            if key == name:
                return price
        return None


def usage_cost(usage: TokenUsage, price: ModelPrice) -> float:
    """Dollars for one call: cached input at the cached price (when the table has one), the rest at list price."""
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    cached_price = price.input_per_million if price.cached_input_per_million is None else price.cached_input_per_million
    return (
        (usage.input_tokens - cached) * price.input_per_million
        + cached * cached_price
        + usage.output_tokens * price.output_per_million
    ) / PER_MILLION
