"""Typed configuration of the detectors (the ``detectors:`` section of the config file).

Keys are a public interface (see README), declared once in ``config_definition.py`` (names, kinds, defaults, bounds),
which also feeds the JSON Schema and ``docs/config.example.yaml``. ``parse_detectors`` reports every problem at
once: each message names the key path and says what to write instead; defaults are used in place of bad values so
parsing continues.

    detectors:
      enabled: [tool_error, tool_loop, ...]          # run order; default: every built-in
      time_budget_s: 2.0                              # per detector and trajectory
      trajectory_time_budget_s: 10.0                  # all detectors on one trajectory
      loop: {min_repeats: 3, fuzzy: true}
      policy: {forbidden_tools: ["delete_*"], approval_required_tools: ["transfer_*"], approval_nodes: ["*approv*"]}
      ordering:
        rules:
          - {name: read-before-write, before: ["get_*", "lookup_*", "read_*"], then: ["update_*", "write_*"]}
      budget: {max_total_tokens: 200000, max_model_calls: 50, max_tool_calls: 100, max_duration_s: 900,
               max_cost: 5.0, prices: {"gpt-4o-mini*": {input_per_million: 0.15, output_per_million: 0.60}}}
      state_stall: {turns: 3}
      duplicate_effect: {write_tools: ["update_*"], idempotent_tools: [], idempotency_keys: ["idempotency_key"]}
      arguments: {schemas: {update_record: {type: object, required: [record_id]}}}
      drift: {references: refs.yaml, window: 200, min_runs: 20, z_threshold: 3.0, relative_tolerance: 0.5,
              max_mix_distance: 0.5, path_dominance: 0.8}
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from processor.detectors.config_definition import DEFAULT_WRITE_TOOLS, DETECTORS, PRICE, RULE, default
from processor.detectors.drift_reference_model import ReferenceSet, parse_references
from processor.detectors.globs import GlobSet
from processor.settings import read_section

__all__ = [
    "DEFAULT_WRITE_TOOLS",
    "ArgumentsConfig",
    "BudgetConfig",
    "DetectorsConfig",
    "DriftConfig",
    "DuplicateEffectConfig",
    "LoopConfig",
    "OrderingConfig",
    "OrderingRule",
    "PolicyConfig",
    "Price",
    "StateStallConfig",
    "parse_detectors",
]

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True, kw_only=True)
class LoopConfig:
    min_repeats: int = default("loop.min_repeats")
    fuzzy: bool = default("loop.fuzzy")


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyConfig:
    forbidden_tools: GlobSet = field(default_factory=GlobSet)
    approval_required_tools: GlobSet = field(default_factory=GlobSet)
    approval_nodes: GlobSet = field(default_factory=lambda: GlobSet(default("policy.approval_nodes")))
    """Names of nodes (any kind) that count as an approval; guardrail nodes that passed always count."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OrderingRule:
    name: str
    before: GlobSet
    then: GlobSet


@dataclass(frozen=True, slots=True, kw_only=True)
class OrderingConfig:
    rules: tuple[OrderingRule, ...] = ()
    require_successful_read: bool = default("ordering.require_successful_read")
    """Only a read whose execution committed qualifies."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Price:
    input_per_million: float
    output_per_million: float


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetConfig:
    max_total_tokens: int | None = None
    max_model_calls: int | None = None
    max_tool_calls: int | None = None
    max_duration_s: float | None = None
    max_cost: float | None = None
    prices: tuple[tuple[str, Price], ...] = ()
    """(model glob, price) in file order; the first matching glob prices a model call."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StateStallConfig:
    turns: int = default("state_stall.turns")


@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicateEffectConfig:
    write_tools: GlobSet = field(default_factory=lambda: GlobSet(default("duplicate_effect.write_tools")))
    idempotent_tools: GlobSet = field(default_factory=GlobSet)
    idempotency_keys: tuple[str, ...] = default("duplicate_effect.idempotency_keys")


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentsConfig:
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Tool name -> JSON Schema of its arguments (checked with ``jsonschema`` when installed)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DriftConfig:
    references: str | None = None
    """Path of the reference tool paths file (relative to the config file)."""
    reference_set: ReferenceSet | None = None
    """The loaded file (``None`` when not configured or not loaded)."""
    window: int = default("drift.window")
    min_runs: int = default("drift.min_runs")
    z_threshold: float = default("drift.z_threshold")
    relative_tolerance: float = default("drift.relative_tolerance")
    """A numeric dimension drifts only when it also moves by more than this fraction of the baseline mean."""
    max_mix_distance: float = default("drift.max_mix_distance")
    """Total-variation distance between this run's tool mix and the baseline's above which the mix drifted."""
    path_dominance: float = default("drift.path_dominance")
    """A never-seen tool path counts as drift only when one path made up at least this share of the window."""
    max_baselines: int = default("drift.max_baselines")


@dataclass(frozen=True, slots=True, kw_only=True)
class DetectorsConfig:
    enabled: tuple[str, ...] | None = None
    """Detector names in run order; ``None`` runs every built-in detector in its default order."""
    time_budget_s: float = default("time_budget_s")
    """A detector that takes longer than this on one trajectory is stopped (cooperatively) and reported ``error``."""
    trajectory_time_budget_s: float = default("trajectory_time_budget_s")
    """All detectors together on one trajectory; detectors left when it is spent are reported ``error``."""
    loop: LoopConfig = field(default_factory=LoopConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    ordering: OrderingConfig = field(default_factory=OrderingConfig)
    budget: BudgetConfig = field(default_factory=BudgetConfig)
    state_stall: StateStallConfig = field(default_factory=StateStallConfig)
    duplicate_effect: DuplicateEffectConfig = field(default_factory=DuplicateEffectConfig)
    arguments: ArgumentsConfig = field(default_factory=ArgumentsConfig)
    drift: DriftConfig = field(default_factory=DriftConfig)



def _rules(raw: Any, path: str, errors: list[str]) -> tuple[OrderingRule, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        errors.append(f"{path}: expected a list of {{name, before: [globs], then: [globs]}}")
        return ()
    rules: list[OrderingRule] = []
    names: set[str] = set()
    for position, item in enumerate(raw):
        where = f"{path}[{position}]"
        if not isinstance(item, dict):
            errors.append(f"{where}: expected a mapping {{name, before: [globs], then: [globs]}}")
            continue
        values = read_section(RULE, item, where, errors)
        name = item.get("name", f"rule-{position + 1}")
        if not isinstance(name, str) or not name:
            errors.append(f"{where}.name: expected a non-empty string")
            name = f"rule-{position + 1}"
        if name in names:
            errors.append(f"{where}.name: duplicate rule name {name!r}; give each rule its own name")
        names.add(name)
        before, then = GlobSet(values["before"]), GlobSet(values["then"])
        if not before or not then:
            errors.append(f"{where}: both 'before' and 'then' need at least one tool glob")
            continue
        rules.append(OrderingRule(name=name, before=before, then=then))
    return tuple(rules)


def _prices(raw: Any, path: str, errors: list[str]) -> tuple[tuple[str, Price], ...]:
    if not raw:
        return ()
    if not isinstance(raw, dict):
        errors.append(f"{path}: expected a mapping, got {type(raw).__name__}")
        return ()
    prices: list[tuple[str, Price]] = []
    for model, entry in raw.items():
        where = f"{path}.{model}"
        if not isinstance(entry, dict):
            errors.append(f"{where}: expected {{input_per_million: <number>, output_per_million: <number>}}")
            continue
        values = read_section(PRICE, entry, where, errors)
        given = "input_per_million" in entry and "output_per_million" in entry
        if not given:
            errors.append(f"{where}: give both input_per_million and output_per_million (price per million tokens)")
            continue
        price = Price(input_per_million=values["input_per_million"], output_per_million=values["output_per_million"])
        prices.append((str(model), price))
    return tuple(prices)


def _schemas(raw: Any, path: str, errors: list[str]) -> dict[str, dict[str, Any]]:
    if not raw:
        return {}
    if not isinstance(raw, dict):
        errors.append(f"{path}: expected a mapping, got {type(raw).__name__}")
        return {}
    schemas: dict[str, dict[str, Any]] = {}
    try:
        from jsonschema import exceptions, validators
    except ImportError:  # optional dependency: schemas are then checked for shape only
        validators = None  # type: ignore[assignment]
    for tool, schema in raw.items():
        if not isinstance(schema, dict):
            errors.append(f"{path}.{tool}: expected a JSON Schema mapping, got {type(schema).__name__}")
            continue
        if validators is not None:
            try:
                validators.validator_for(schema).check_schema(schema)
            except exceptions.SchemaError as exc:
                errors.append(f"{path}.{tool}: not a valid JSON Schema: {exc.message}")
                continue
        schemas[str(tool)] = schema
    return schemas


def _load_references(name: str, base_dir: Path | None, path: str, errors: list[str]) -> ReferenceSet | None:
    file = Path(name)
    if not file.is_absolute() and base_dir is not None:
        file = base_dir / file
    try:
        document = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        errors.append(f"{path}: cannot read reference paths file {str(file)!r}: {exc.strerror or exc}; fix the path (relative to the config file)")
        return None
    except yaml.YAMLError as exc:
        errors.append(f"{path}: {str(file)!r} is not valid YAML: {str(exc).splitlines()[0]}")
        return None
    return parse_references(document, errors, f"{path} ({file.name})", str(file))


def parse_detectors(
    raw: Any, errors: list[str], path: str = "detectors", base_dir: Path | None = None, load_files: bool = True
) -> DetectorsConfig:
    """Parse the ``detectors`` mapping; problems are appended to ``errors`` and defaults used in their place.

    ``base_dir`` resolves relative file names (the config file's directory); ``load_files=False`` skips reading the
    reference paths file (for validating a config away from its files).
    """
    if raw is None:
        return DetectorsConfig()
    if not isinstance(raw, dict):
        errors.append(f"{path}: expected a mapping, got {type(raw).__name__}")
        return DetectorsConfig()
    top = read_section(DETECTORS, raw, path, errors)
    enabled = top["enabled"]
    if enabled is not None and len(set(enabled)) != len(enabled):
        errors.append(f"{path}.enabled: a detector is listed twice; list each once")
    loop, policy, ordering, budget = top["loop"], top["policy"], top["ordering"], top["budget"]
    dup, drift = top["duplicate_effect"], top["drift"]

    references = drift["references"]
    reference_set = None
    if references is not None and not references:
        errors.append(f"{path}.drift.references: expected the path of a YAML file of reference tool paths")
        references = None
    elif references is not None and load_files:
        reference_set = _load_references(references, base_dir, f"{path}.drift.references", errors)
    window, min_runs = drift["window"], drift["min_runs"]
    if min_runs > window:
        errors.append(f"{path}.drift.min_runs: {min_runs} is larger than drift.window ({window}); a verdict could never be given")

    return DetectorsConfig(
        enabled=enabled,
        time_budget_s=top["time_budget_s"],
        trajectory_time_budget_s=top["trajectory_time_budget_s"],
        loop=LoopConfig(min_repeats=loop["min_repeats"], fuzzy=loop["fuzzy"]),
        policy=PolicyConfig(
            forbidden_tools=GlobSet(policy["forbidden_tools"]),
            approval_required_tools=GlobSet(policy["approval_required_tools"]),
            approval_nodes=GlobSet(policy["approval_nodes"]),
        ),
        ordering=OrderingConfig(
            rules=_rules(ordering["rules"], ordering.at("rules"), errors),
            require_successful_read=ordering["require_successful_read"],
        ),
        budget=BudgetConfig(
            max_total_tokens=budget["max_total_tokens"],
            max_model_calls=budget["max_model_calls"],
            max_tool_calls=budget["max_tool_calls"],
            max_duration_s=budget["max_duration_s"],
            max_cost=budget["max_cost"],
            prices=_prices(budget["prices"], budget.at("prices"), errors),
        ),
        state_stall=StateStallConfig(turns=top["state_stall"]["turns"]),
        duplicate_effect=DuplicateEffectConfig(
            write_tools=GlobSet(dup["write_tools"]),
            idempotent_tools=GlobSet(dup["idempotent_tools"]),
            idempotency_keys=dup["idempotency_keys"],
        ),
        arguments=ArgumentsConfig(schemas=_schemas(top["arguments"]["schemas"], f"{path}.arguments.schemas", errors)),
        drift=DriftConfig(
            references=references,
            reference_set=reference_set,
            window=window,
            min_runs=min_runs,
            z_threshold=drift["z_threshold"],
            relative_tolerance=drift["relative_tolerance"],
            max_mix_distance=drift["max_mix_distance"],
            path_dominance=drift["path_dominance"],
            max_baselines=drift["max_baselines"],
        ),
    )
