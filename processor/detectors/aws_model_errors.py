"""botocore errors of a request to a Bedrock Runtime model: a model client's error whose module says only "AWS".

botocore raises the same exception types (``botocore.errorfactory.<Code>``, ``botocore.exceptions.ReadTimeoutError``)
for every AWS service, so the type alone does not say that a model was asked. The text does: a ``ClientError`` names
the operation it called (``... when calling the ConverseStream operation ...``) and a connection error quotes the
endpoint URL, whose path ends with the operation's segment (``.../model/<modelId>/converse-stream``). An error naming
one of Bedrock Runtime's model operations came from a model request; any other botocore error did not (an S3 or
DynamoDB call in a tool, say). Names in :mod:`semconv.model_clients`.
"""

from __future__ import annotations

import re
from typing import Final

from semconv import model_clients

__all__ = ["bedrock_model_request_error"]

MAX_ERROR_TEXT: Final = 1024
"""How much of an error message is searched (the mapper keeps 512 characters; the operation is named first)."""
_OPERATION = re.compile(r"when calling the (\w{1,64}) operation")
_MODEL_PATH = re.compile(r"/model/[^/\s\"']{1,256}/([a-z-]{1,40})(?=[\s\"'?]|$)")


def bedrock_model_request_error(error_type: str, error_message: str) -> bool:
    """Whether a botocore error came from a request to a Bedrock Runtime model operation."""
    if not error_type.startswith(model_clients.AWS_CLIENT_MODULE + "."):
        return False
    text = error_message[:MAX_ERROR_TEXT]
    if any(match.group(1) in model_clients.BEDROCK_RUNTIME_OPERATIONS for match in _OPERATION.finditer(text)):
        return True
    return any(match.group(1) in model_clients.BEDROCK_RUNTIME_PATHS for match in _MODEL_PATH.finditer(text))
