"""An agent invocation that failed with a botocore error of a Bedrock Runtime model operation that no span of a model
call records (OpenInference's Bedrock instrumentation 0.1.61 never ends the span of a ``converse_stream`` request that
raised before its stream opened; the agent span carries the error, corpus/NOTES-frameworks-cz.md): the failure is read
as its model call's, anchored on the agent invocation. A botocore error of any other AWS operation is not."""

from __future__ import annotations

from processor.detectors.aws_model_errors import bedrock_model_request_error
from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from processor.detectors.tool_error import ToolErrorDetector
from semconv.trajectory import FindingCategory, NodeStatus

from .support import TrajectoryBuilder, run

FAILED = NodeStatus.FAILED
SERVER_ERROR = ("botocore.errorfactory.InternalServerException",
                "InternalServerException: An error occurred (InternalServerException) when calling the ConverseStream "
                "operation (reached max retries: 0): The system encountered an unexpected error during processing.")
THROTTLED = ("botocore.errorfactory.ThrottlingException",
             "An error occurred (ThrottlingException) when calling the Converse operation: Too many requests.")
READ_TIMEOUT = ("botocore.exceptions.ReadTimeoutError",
                'ReadTimeoutError: Read timeout on endpoint URL: "https://bedrock-runtime.us-east-1.amazonaws.com/model/'
                'anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream"')


def _failures(trajectory: object) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector(), InfraTimeoutDetector(), ToolErrorDetector())
    return [(f.category, f.node_id) for d in detectors for f in run(d, trajectory)]


def test_a_failed_agent_whose_bedrock_model_request_error_no_call_records_stands_for_the_call() -> None:
    for (error_type, message), category in (
        (SERVER_ERROR, FindingCategory.MODEL_ERROR),
        (THROTTLED, FindingCategory.RATE_LIMITED),
        (READ_TIMEOUT, FindingCategory.INFRA_TIMEOUT),
    ):
        b = TrajectoryBuilder()
        agent = b.agent(status=FAILED, error_type=error_type, error_message=message)
        model = b.model(parent=agent)  # the request that succeeded before the failed one
        b.tool("get_weather", parent=agent, after=[model])
        assert _failures(b.build()) == [(category, agent)], error_type


def test_a_botocore_error_of_another_aws_operation_is_no_model_error() -> None:
    b = TrajectoryBuilder()
    b.agent(status=FAILED, error_type="botocore.errorfactory.NoSuchKey",
            error_message="An error occurred (NoSuchKey) when calling the GetObject operation: The key does not exist.")
    b.agent("billing_agent", status=FAILED, error_type="botocore.exceptions.ReadTimeoutError",
            error_message='Read timeout on endpoint URL: "https://dynamodb.us-east-1.amazonaws.com/"')
    assert _failures(b.build()) == []


def test_an_error_the_model_call_records_is_not_read_again() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(status=FAILED, error_type=SERVER_ERROR[0], error_message=SERVER_ERROR[1])
    model = b.model(parent=agent, status=FAILED, error_type=SERVER_ERROR[0], error_message=SERVER_ERROR[1])
    assert _failures(b.build()) == [(FindingCategory.MODEL_ERROR, model)]


def test_the_operation_or_the_model_path_must_be_bedrock_runtimes_and_the_type_botocores() -> None:
    assert bedrock_model_request_error(*SERVER_ERROR)
    assert bedrock_model_request_error(*READ_TIMEOUT)
    assert bedrock_model_request_error("botocore.errorfactory.ValidationException",
                                       "An error occurred (ValidationException) when calling the InvokeModel operation")
    assert not bedrock_model_request_error("ValueError", SERVER_ERROR[1])
    assert not bedrock_model_request_error("botocore.exceptions.ClientError",
                                           "An error occurred (AccessDenied) when calling the ListFoundationModels "
                                           "operation")
    assert not bedrock_model_request_error("botocore.exceptions.ReadTimeoutError",
                                           'Read timeout on endpoint URL: "https://example.com/model/x/list"')
