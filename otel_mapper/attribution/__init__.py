"""Attribution on the causal graph: deduplicated usage, cost from a price table, the critical path, retries and
cancellations attributed to the steps that caused them. Pure: no clock, no I/O."""

from otel_mapper.attribution.attribute import Attribution, ModelUsage, attribute, structure_of
from otel_mapper.attribution.pricing import ModelPrice, PriceTable, ToolPrice

__all__ = ["Attribution", "ModelPrice", "ModelUsage", "PriceTable", "ToolPrice", "attribute", "structure_of"]
