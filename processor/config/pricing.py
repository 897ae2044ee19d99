"""The ``pricing`` section (model and tool prices for cost attribution) and ``output.rights`` (the rights
statements written into every bundle, AT-13.3a): their declaration and how they are read.

Keys:

- ``pricing.models.<model>.input_per_million`` / ``output_per_million`` (required, US dollars per million tokens)
  and ``cached_input_per_million`` (optional; absent: cached tokens are billed as input). A model is priced by its
  exact name, else by the longest key it extends with ``-``, ``@`` or ``:``.
- ``pricing.tools.<tool>.per_call`` (US dollars per execution).
- ``output.rights.<right>``: ``granted`` | ``denied`` | ``unknown`` (default), for each of retention,
  local_evaluation, hosted_evaluation, training, redistribution_original, redistribution_transformed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from otel_mapper.attribution import ModelPrice, PriceTable, ToolPrice
from otel_mapper.bundle.common import RIGHTS
from otel_mapper.bundle.writer import BundleOptions, RightsConfig
from processor.settings import Key, Section, Values, read_section

if TYPE_CHECKING:
    from processor.config.model import Config

__all__ = ["MAX_PRICED", "PRICING", "RIGHTS_SECTION", "bundle_options", "read_pricing", "read_rights"]

MAX_PRICED: Final = 10_000
"""Entries of each price table read; a longer table is a config mistake, reported."""

MODEL_PRICE = Section(
    name="model",
    items=(
        Key(name="input_per_million", kind="number", minimum=0, doc="US dollars per million input tokens"),
        Key(name="output_per_million", kind="number", minimum=0, doc="US dollars per million output tokens"),
        Key(name="cached_input_per_million", kind="number", minimum=0,
            doc="per million cached input tokens (absent: billed as input)"),
    ),
    required=("input_per_million", "output_per_million"),
)
TOOL_PRICE = Section(
    name="tool",
    items=(Key(name="per_call", kind="number", minimum=0, doc="US dollars per execution"),),
    required=("per_call",),
)
PRICING = Section(
    name="pricing",
    doc="prices for cost attribution (agent_trajectory.cost.usd); empty: costs are not computed",
    items=(
        Key(name="models", kind="map_of", default={}, item=MODEL_PRICE, null_is_default=True,
            doc="model name -> price; the exact name, else the longest key the name extends with -, @ or :",
            example={"gpt-4o-mini": {"input_per_million": 0.15, "output_per_million": 0.6,
                                     "cached_input_per_million": 0.075}}),
        Key(name="tools", kind="map_of", default={}, item=TOOL_PRICE, null_is_default=True,
            doc="tool name -> price per execution", example={}),
    ),
)
RIGHTS_SECTION = Section(
    name="rights",
    doc="rights statements written into every bundle (AT-13.3a); unknown is never read as permission",
    items=tuple(
        Key(name=name, kind="choice", default="unknown", choices=("granted", "denied", "unknown")) for name in RIGHTS
    ),
)


def _entries(values: Values, kind: str, problems: list[str]) -> dict[str, Any]:
    entries = values[kind] or {}
    path = values.at(kind)
    if not isinstance(entries, dict):
        problems.append(f"{path}: expected a mapping of names to prices, got {type(entries).__name__}")
        return {}
    if len(entries) > MAX_PRICED:
        problems.append(f"{path}: {len(entries)} entries, at most {MAX_PRICED}")
        return {}
    return entries


def _required(entry: Any, section: Section, path: str, problems: list[str]) -> bool:
    missing = [name for name in section.required if not isinstance(entry, dict) or name not in entry]
    for name in missing:
        problems.append(f"{path}.{name}: required (US dollars)")
    return not missing


def read_pricing(values: Values, problems: list[str]) -> PriceTable:
    models: dict[str, ModelPrice] = {}
    tools: dict[str, ToolPrice] = {}
    for name, entry in sorted(_entries(values, "models", problems).items(), key=lambda item: str(item[0])):
        path = f"{values.at('models')}.{name}"
        read = read_section(MODEL_PRICE, entry, path, problems)
        if _required(entry, MODEL_PRICE, path, problems):
            models[str(name)] = ModelPrice(
                input_per_million=float(read["input_per_million"]),
                output_per_million=float(read["output_per_million"]),
                cached_input_per_million=None if read["cached_input_per_million"] is None
                else float(read["cached_input_per_million"]),
            )
    for name, entry in sorted(_entries(values, "tools", problems).items(), key=lambda item: str(item[0])):
        path = f"{values.at('tools')}.{name}"
        read = read_section(TOOL_PRICE, entry, path, problems)
        if _required(entry, TOOL_PRICE, path, problems):
            tools[str(name)] = ToolPrice(per_call=float(read["per_call"]))
    return PriceTable.of(models, tools)


def read_rights(values: Values) -> RightsConfig:
    return RightsConfig(**{name: values[name] for name in RIGHTS})


def bundle_options(config: Config) -> BundleOptions:
    """How artifacts are written under ``config``: content mode, rights statements and the price table."""
    return BundleOptions(content_mode=config.content_mode, rights=config.rights, prices=config.pricing or None)
