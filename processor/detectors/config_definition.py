"""The keys of the ``detectors:`` section: names, kinds, defaults, bounds and docs (one definition, see
``processor/config/definition.py`` for how to add a key)."""

from __future__ import annotations

from typing import Any

from processor.settings import Key, Section

__all__ = ["DEFAULT_WRITE_TOOLS", "DETECTORS", "PRICE", "RULE", "default"]

DEFAULT_WRITE_TOOLS = ("create_*", "update_*", "write_*", "delete_*", "send_*", "transfer_*", "post_*", "put_*")
_GLOBS = 'expected a list of non-empty strings (globs like "delete_*")'


def _key(name: str, kind: Any, default: Any = None, doc: str = "", **options: Any) -> Key:
    """Detector keys take ``null`` as "not set"."""
    return Key(name=name, kind=kind, default=default, doc=doc, null_is_default=True, **options)


def _globs(name: str, default: tuple[str, ...], doc: str, example: Any = None) -> Key:
    extra = {} if example is None else {"example": example}
    return _key(name, "strings", default, doc, message=_GLOBS, **extra)


RULE = Section(
    name="rule",
    items=(
        _key("name", "string", None, "unique rule name (default rule-N)"),
        _globs("before", (), "tool globs: one of these must have run (successfully) ..."),
        _globs("then", (), "... before any of these"),
    ),
    required=("before", "then"),
)

PRICE = Section(
    name="price",
    items=(
        _key("input_per_million", "number", 0.0, "price per million input tokens", minimum=0),
        _key("output_per_million", "number", 0.0, "price per million output tokens", minimum=0),
    ),
    required=("input_per_million", "output_per_million"),
)

DETECTORS = Section(
    name="detectors",
    separate=True,
    doc="the detector chain; see the README's Detectors section",
    items=(
        _key("enabled", "strings", None, "detector names in run order (default: every built-in, default order)",
             example=["tool_error", "tool_loop", "policy_violation", "budget_exceeded"], commented=True,
             message="expected a list of detector names"),
        _key("time_budget_s", "duration", 2.0, "per detector and trajectory; over it the detector reports error",
             exclusive_minimum=0),
        _key("trajectory_time_budget_s", "duration", 10.0, "all detectors together on one trajectory",
             exclusive_minimum=0),
        Section(name="loop", items=(
            _key("min_repeats", "int", 3, "repeated tool calls that make a loop", minimum=2),
            _key("fuzzy", "bool", True, "arguments that differ only slightly count as a repeat"),
        )),
        Section(name="policy", items=(
            _globs("forbidden_tools", (), "tool globs that must never run", ["delete_*"]),
            _globs("approval_required_tools", (), "tool globs that need an approval first", ["transfer_*"]),
            _globs("approval_nodes", ("*approv*",), "names of nodes that count as an approval"),
        )),
        Section(name="ordering", items=(
            _key("rules", "list_of", None, "read-before-write rules", item=RULE,
                 example=[{"name": "read-before-write", "before": ["get_*", "read_*"], "then": ["update_*"]}]),
            _key("require_successful_read", "bool", True, "only a read whose execution committed qualifies"),
        )),
        Section(name="budget", items=(
            _key("max_total_tokens", "int", None, "per trajectory (default: no limit)", minimum=1, example=200000),
            _key("max_model_calls", "int", None, minimum=1, example=50),
            _key("max_tool_calls", "int", None, minimum=1, example=100),
            _key("max_duration_s", "duration", None, exclusive_minimum=0, example=900),
            _key("max_cost", "number", None, "in the currency of prices", exclusive_minimum=0, example=5.0),
            _key("prices", "map_of", None, "model glob -> price; the first matching glob prices a model call",
                 item=PRICE, example={"gpt-4o-mini*": {"input_per_million": 0.15, "output_per_million": 0.6}}),
        )),
        Section(name="state_stall", items=(
            _key("turns", "int", 3, "turns without a state change that make a stall", minimum=2),
        )),
        Section(name="duplicate_effect", items=(
            _globs("write_tools", DEFAULT_WRITE_TOOLS, "tools with side effects"),
            _globs("idempotent_tools", (), "write tools safe to repeat"),
            _key("idempotency_keys", "strings", ("idempotency_key", "idempotencyKey", "idempotency-key"),
                 "argument names that make a repeated write safe", message=_GLOBS),
        )),
        Section(name="arguments", items=(
            _key("schemas", "map_of_objects", None, "tool name -> JSON Schema of its arguments",
                 example={"update_record": {"type": "object", "required": ["record_id"]}}),
        )),
        Section(name="drift", items=(
            _key("references", "file", None, "YAML file of reference tool paths (relative to this file)",
                 example="refs.yaml", commented=True),
            _key("window", "int", 200, "runs per baseline", minimum=1),
            _key("min_runs", "int", 20, "runs before a verdict (at most window)", minimum=1),
            _key("z_threshold", "number", 3.0, exclusive_minimum=0),
            _key("relative_tolerance", "number", 0.5, "a dimension drifts only when it also moves by this fraction",
                 minimum=0),
            _key("max_mix_distance", "number", 0.5, "tool-mix distance (total variation) above which the mix drifted",
                 exclusive_minimum=0, maximum=1),
            _key("path_dominance", "number", 0.8, "share of the window a path needs before a new path is drift",
                 exclusive_minimum=0, maximum=1),
            _key("max_baselines", "int", 10_000, "baselines kept (one per agent)", minimum=1),
        )),
    ),
)


def default(dotted: str) -> Any:
    """The default of ``detectors.<dotted>``."""
    return DETECTORS.default(dotted)
