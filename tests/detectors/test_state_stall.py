from __future__ import annotations

from processor.detectors.state_stall import StateStallDetector

from .support import TrajectoryBuilder, config, run


def _chain(outputs: list[str]) -> tuple[object, list[str]]:
    b = TrajectoryBuilder()
    agent = b.agent()
    ids: list[str] = []
    previous: list[str] = []
    for output in outputs:
        model = b.model(parent=agent, after=previous, output=output)
        ids.append(model)
        tool = b.tool("t", parent=agent, after=[b.proposal("t", model)])
        previous = [tool]
    return b.build(), ids


def test_same_output_n_turns_in_a_row_along_the_causal_chain() -> None:
    trajectory, ids = _chain(["sha256:a", "sha256:b", "sha256:b", "sha256:b", "sha256:b", "sha256:c"])
    (finding,) = run(StateStallDetector(), trajectory, config({"state_stall": {"turns": 3}}))
    assert finding.node_id == ids[1] and finding.related_nodes == (ids[4],)
    assert "4 turns" in finding.evidence


def test_interrupted_repeats_are_not_a_stall() -> None:
    trajectory, _ = _chain(["sha256:a", "sha256:b", "sha256:a", "sha256:b", "sha256:a"])
    assert run(StateStallDetector(), trajectory) == []


def test_concurrent_equal_outputs_are_not_consecutive_turns() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    for _ in range(5):
        b.model(parent=agent, output="sha256:same")  # siblings: no causal chain between them
    assert run(StateStallDetector(), b.build()) == []


def test_repeated_calls_with_recorded_arguments_are_left_to_tool_loop() -> None:
    # A chat API without call ids (Ollama's) gives the same call asked for again the same output digest each turn.
    b = TrajectoryBuilder()
    agent = b.agent()
    previous: list[str] = []
    for _ in range(4):
        model = b.model(parent=agent, after=previous, output="sha256:same-call")
        previous = [b.tool("get_weather", parent=agent, after=[b.proposal("get_weather", model, arguments={"city": "Oslo"})],
                           arguments={"city": "Oslo"})]
    assert run(StateStallDetector(), b.build(), config({"state_stall": {"turns": 3}})) == []
