"""How the Claude Code CLI (the Claude Agent SDK's runtime) names MCP-served tools, ``mcp__<server>__<tool>``, and
rejects a call of a tool it does not offer (corpus/NOTES-frameworks-ay.md)."""

from __future__ import annotations

from otel_mapper.mapping.tool_names import local_name, unknown_tool_named
from processor.detectors.policy import PolicyDetector
from semconv.trajectory import FindingCategory
from tests.detectors.support import TrajectoryBuilder, config, run


def test_an_mcp_qualified_name_has_the_servers_tool_as_its_own_name() -> None:
    assert local_name("mcp__support__delete_file", None) == "delete_file"
    assert local_name("mcp__my_server__get_file_info", None) == "get_file_info"
    assert local_name("delete_file", None) is None
    assert local_name("mcp__", None) is None
    assert local_name("SupportTools-delete_file", "-") == "delete_file"


def test_forbidden_patterns_match_the_servers_tool_name() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    tool = b.tool("mcp__support__delete_file", parent=agent, tool_local_name=local_name("mcp__support__delete_file", None))
    findings = run(PolicyDetector(), b.build(), config({"policy": {"forbidden_tools": ["delete_*"]}}))
    assert [(f.category, f.node_id) for f in findings] == [(FindingCategory.POLICY_VIOLATION, tool)]


def test_the_clis_rejection_of_an_unknown_tool_names_it() -> None:
    text = "<tool_use_error>Error: No such tool available: mcp__support__fetch_invoice</tool_use_error>"
    assert unknown_tool_named(text) == "mcp__support__fetch_invoice"
    assert unknown_tool_named("No such tool available: fetch_invoice") == "fetch_invoice"
