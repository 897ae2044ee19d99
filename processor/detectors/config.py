"""Typed configuration of the detectors (the ``detectors:`` section of the config file).

Keys are a public interface (see README). ``parse_detectors`` reports every problem at once: each message names
the key path and says what to write instead; defaults are used in place of bad values so parsing continues.

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

from processor.detectors.drift_reference_model import ReferenceSet, parse_references
from processor.detectors.globs import GlobSet

__all__ = [
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
    "ArgumentsConfig",
    "parse_detectors",
]

logger = logging.getLogger(__name__)

DEFAULT_WRITE_TOOLS = ("create_*", "update_*", "write_*", "delete_*", "send_*", "transfer_*", "post_*", "put_*")


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopConfig:
    min_repeats: int = 3
    fuzzy: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyConfig:
    forbidden_tools: GlobSet = field(default_factory=GlobSet)
    approval_required_tools: GlobSet = field(default_factory=GlobSet)
    approval_nodes: GlobSet = field(default_factory=lambda: GlobSet(("*approv*",)))
    """Names of nodes (any kind) that count as an approval; guardrail nodes that passed always count."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OrderingRule:
    name: str
    before: GlobSet
    then: GlobSet


@dataclass(frozen=True, slots=True, kw_only=True)
class OrderingConfig:
    rules: tuple[OrderingRule, ...] = ()
    require_successful_read: bool = True
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
    turns: int = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicateEffectConfig:
    write_tools: GlobSet = field(default_factory=lambda: GlobSet(DEFAULT_WRITE_TOOLS))
    idempotent_tools: GlobSet = field(default_factory=GlobSet)
    idempotency_keys: tuple[str, ...] = ("idempotency_key", "idempotencyKey", "idempotency-key")


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
    window: int = 200
    min_runs: int = 20
    z_threshold: float = 3.0
    relative_tolerance: float = 0.5
    """A numeric dimension drifts only when it also moves by more than this fraction of the baseline mean."""
    max_mix_distance: float = 0.5
    """Total-variation distance between this run's tool mix and the baseline's above which the mix drifted."""
    path_dominance: float = 0.8
    """A never-seen tool path counts as drift only when one path made up at least this share of the window."""
    max_baselines: int = 10_000


@dataclass(frozen=True, slots=True, kw_only=True)
class DetectorsConfig:
    enabled: tuple[str, ...] | None = None
    """Detector names in run order; ``None`` runs every built-in detector in its default order."""
    time_budget_s: float = 2.0
    """A detector that takes longer than this on one trajectory is stopped (cooperatively) and reported ``error``."""
    trajectory_time_budget_s: float = 10.0
    """All detectors together on one trajectory; detectors left when it is spent are reported ``error``."""
    loop: LoopConfig = field(default_factory=LoopConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    ordering: OrderingConfig = field(default_factory=OrderingConfig)
    budget: BudgetConfig = field(default_factory=BudgetConfig)
    state_stall: StateStallConfig = field(default_factory=StateStallConfig)
    duplicate_effect: DuplicateEffectConfig = field(default_factory=DuplicateEffectConfig)
    arguments: ArgumentsConfig = field(default_factory=ArgumentsConfig)
    drift: DriftConfig = field(default_factory=DriftConfig)


# --- small typed readers; each appends "<path>: <what is wrong>; <what to write>" --------------------------------
class _Reader:
    def __init__(self, raw: dict[str, Any], path: str, errors: list[str], known: set[str]) -> None:
        self.raw, self.path, self.errors = raw, path, errors
        for key in sorted(set(raw) - known, key=str):
            errors.append(f"{path}.{key}: unknown key (known: {', '.join(sorted(known))})")

    def int(self, key: str, default: int | None, minimum: int = 0) -> int | None:
        value = self.raw.get(key, default)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.errors.append(f"{self.path}.{key}: expected an integer >= {minimum}, got {value!r}")
            return default
        return value

    def number(self, key: str, default: float | None, positive: bool = True, maximum: float | None = None) -> float | None:
        value = self.raw.get(key, default)
        if value is None:
            return default
        bad = isinstance(value, bool) or not isinstance(value, (int, float)) or value != value
        bad = bad or (positive and value <= 0) or (not positive and value < 0)
        bad = bad or (maximum is not None and value > maximum)
        if bad:
            bound = f" and <= {maximum:g}" if maximum is not None else ""
            self.errors.append(f"{self.path}.{key}: expected a {'positive' if positive else 'non-negative'} number{bound}, got {value!r}")
            return default
        return float(value)

    def bool(self, key: str, default: bool) -> bool:
        value = self.raw.get(key, default)
        if not isinstance(value, bool):
            self.errors.append(f"{self.path}.{key}: expected true or false, got {value!r}")
            return default
        return value

    def strings(self, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self.raw.get(key)
        if value is None:
            return default
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            self.errors.append(f"{self.path}.{key}: expected a list of non-empty strings (globs like \"delete_*\"), got {value!r:.80}")
            return default
        return tuple(value)

    def globs(self, key: str, default: tuple[str, ...] = ()) -> GlobSet:
        return GlobSet(self.strings(key, default))

    def section(self, key: str) -> dict[str, Any]:
        value = self.raw.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.errors.append(f"{self.path}.{key}: expected a mapping, got {type(value).__name__}")
            return {}
        return value


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
        reader = _Reader(item, where, errors, {"name", "before", "then"})
        name = item.get("name", f"rule-{position + 1}")
        if not isinstance(name, str) or not name:
            errors.append(f"{where}.name: expected a non-empty string")
            name = f"rule-{position + 1}"
        if name in names:
            errors.append(f"{where}.name: duplicate rule name {name!r}; give each rule its own name")
        names.add(name)
        before, then = reader.globs("before"), reader.globs("then")
        if not before or not then:
            errors.append(f"{where}: both 'before' and 'then' need at least one tool glob")
            continue
        rules.append(OrderingRule(name=name, before=before, then=then))
    return tuple(rules)


def _prices(raw: dict[str, Any], path: str, errors: list[str]) -> tuple[tuple[str, Price], ...]:
    prices: list[tuple[str, Price]] = []
    for model, entry in raw.items():
        where = f"{path}.{model}"
        if not isinstance(entry, dict):
            errors.append(f"{where}: expected {{input_per_million: <number>, output_per_million: <number>}}")
            continue
        reader = _Reader(entry, where, errors, {"input_per_million", "output_per_million"})
        given = "input_per_million" in entry and "output_per_million" in entry
        if not given:
            errors.append(f"{where}: give both input_per_million and output_per_million (price per million tokens)")
        inp = reader.number("input_per_million", 0.0, positive=False)
        out = reader.number("output_per_million", 0.0, positive=False)
        if given:
            prices.append((str(model), Price(input_per_million=inp or 0.0, output_per_million=out or 0.0)))
    return tuple(prices)


def _schemas(raw: dict[str, Any], path: str, errors: list[str]) -> dict[str, dict[str, Any]]:
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
    known = {"enabled", "time_budget_s", "trajectory_time_budget_s", "loop", "policy", "ordering", "budget",
             "state_stall", "duplicate_effect", "arguments", "drift"}
    top = _Reader(raw, path, errors, known)
    enabled = raw.get("enabled")
    if enabled is not None and (not isinstance(enabled, list) or not all(isinstance(x, str) for x in enabled)):
        errors.append(f"{path}.enabled: expected a list of detector names")
        enabled = None
    if enabled is not None and len(set(enabled)) != len(enabled):
        errors.append(f"{path}.enabled: a detector is listed twice; list each once")

    loop_raw = top.section("loop")
    loop = _Reader(loop_raw, f"{path}.loop", errors, {"min_repeats", "fuzzy"})
    policy = _Reader(top.section("policy"), f"{path}.policy", errors, {"forbidden_tools", "approval_required_tools", "approval_nodes"})
    ordering_raw = top.section("ordering")
    ordering = _Reader(ordering_raw, f"{path}.ordering", errors, {"rules", "require_successful_read"})
    budget_raw = top.section("budget")
    budget = _Reader(budget_raw, f"{path}.budget", errors,
                     {"max_total_tokens", "max_model_calls", "max_tool_calls", "max_duration_s", "max_cost", "prices"})
    stall = _Reader(top.section("state_stall"), f"{path}.state_stall", errors, {"turns"})
    dup = _Reader(top.section("duplicate_effect"), f"{path}.duplicate_effect", errors,
                  {"write_tools", "idempotent_tools", "idempotency_keys"})
    arguments = _Reader(top.section("arguments"), f"{path}.arguments", errors, {"schemas"})
    drift_raw = top.section("drift")
    drift = _Reader(drift_raw, f"{path}.drift", errors,
                    {"references", "window", "min_runs", "z_threshold", "relative_tolerance", "max_mix_distance",
                     "path_dominance", "max_baselines"})

    references = drift_raw.get("references")
    reference_set = None
    if references is not None and (not isinstance(references, str) or not references):
        errors.append(f"{path}.drift.references: expected the path of a YAML file of reference tool paths")
        references = None
    elif references is not None and load_files:
        reference_set = _load_references(references, base_dir, f"{path}.drift.references", errors)
    window = drift.int("window", 200, minimum=1) or 200
    min_runs = drift.int("min_runs", 20, minimum=1) or 20
    if min_runs > window:
        errors.append(f"{path}.drift.min_runs: {min_runs} is larger than drift.window ({window}); a verdict could never be given")

    return DetectorsConfig(
        enabled=tuple(enabled) if enabled is not None else None,
        time_budget_s=top.number("time_budget_s", 2.0) or 2.0,
        trajectory_time_budget_s=top.number("trajectory_time_budget_s", 10.0) or 10.0,
        loop=LoopConfig(min_repeats=loop.int("min_repeats", 3, minimum=2) or 3, fuzzy=loop.bool("fuzzy", True)),
        policy=PolicyConfig(
            forbidden_tools=policy.globs("forbidden_tools"),
            approval_required_tools=policy.globs("approval_required_tools"),
            approval_nodes=policy.globs("approval_nodes", ("*approv*",)),
        ),
        ordering=OrderingConfig(
            rules=_rules(ordering_raw.get("rules"), f"{path}.ordering.rules", errors),
            require_successful_read=ordering.bool("require_successful_read", True),
        ),
        budget=BudgetConfig(
            max_total_tokens=budget.int("max_total_tokens", None, minimum=1),
            max_model_calls=budget.int("max_model_calls", None, minimum=1),
            max_tool_calls=budget.int("max_tool_calls", None, minimum=1),
            max_duration_s=budget.number("max_duration_s", None),
            max_cost=budget.number("max_cost", None),
            prices=_prices(budget.section("prices"), f"{path}.budget.prices", errors),
        ),
        state_stall=StateStallConfig(turns=stall.int("turns", 3, minimum=2) or 3),
        duplicate_effect=DuplicateEffectConfig(
            write_tools=dup.globs("write_tools", DEFAULT_WRITE_TOOLS),
            idempotent_tools=dup.globs("idempotent_tools"),
            idempotency_keys=dup.strings("idempotency_keys", ("idempotency_key", "idempotencyKey", "idempotency-key")),
        ),
        arguments=ArgumentsConfig(schemas=_schemas(arguments.section("schemas"), f"{path}.arguments.schemas", errors)),
        drift=DriftConfig(
            references=references,
            reference_set=reference_set,
            window=window,
            min_runs=min_runs,
            z_threshold=drift.number("z_threshold", 3.0) or 3.0,
            relative_tolerance=drift.number("relative_tolerance", 0.5, positive=False) or 0.0,
            max_mix_distance=drift.number("max_mix_distance", 0.5, maximum=1.0) or 0.5,
            path_dominance=drift.number("path_dominance", 0.8, maximum=1.0) or 0.8,
            max_baselines=drift.int("max_baselines", 10_000, minimum=1) or 10_000,
        ),
    )
