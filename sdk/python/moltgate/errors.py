"""The errors of the SDK, for the agent side and the caller side."""

from __future__ import annotations


class ToolError(Exception):
    """A tool's failure with a code of its choosing.

    Raise it from a tool: the gateway reports ``code`` and ``message`` to the
    caller (``tool.invalid_input``, or a code of the tool's own such as
    ``tool.not_enough_money``). The message must hold nothing secret.
    """

    def __init__(self, code: str, message: str = "", retryable: bool = False):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.retryable = retryable


class Cancelled(Exception):
    """The gateway cancelled the call, or its timeout passed.

    ``Call.check_cancelled`` and ``Call.stream`` raise it once the call is
    cancelled; a tool that lets it propagate ends the call as cancelled.
    """


class ProtocolError(Exception):
    """The gateway sent something this SDK cannot read, or refused what it sent."""

    def __init__(self, code: str, message: str = ""):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message


class Unauthorized(ProtocolError):
    """The gateway refused the agent's token: unknown, spent, expired, or another agent's."""

    def __init__(self, message: str = "the gateway refused the session token"):
        super().__init__("protocol.unauthorized", message)


class RegistrationError(ProtocolError):
    """The gateway rejected some of the agent's tools; ``rejected`` lists them with why."""

    def __init__(self, rejected: list):
        self.rejected = rejected
        parts = [
            f"{r.get('tool_id', '?')} ({(r.get('error') or {}).get('code', '?')}: "
            f"{(r.get('error') or {}).get('message', '')})"
            for r in rejected
        ]
        super().__init__("tool.rejected", "the gateway rejected tools: " + ", ".join(parts))


class GoodbyeError(Exception):
    """The gateway closed the connection for a reason other than shutting down."""

    def __init__(self, reason: str, retry_after: float = 0.0):
        super().__init__(f"the gateway said goodbye: {reason}")
        self.reason = reason
        self.retry_after = retry_after


class ConnectionLost(Exception):
    """The connection to the gateway ended without a goodbye."""


class RPCError(Exception):
    """An error of the gateway's JSON-RPC face.

    ``code`` is the JSON-RPC code (-32700 to -32005); ``moltspeak_code`` the
    MoltSpeak code behind it (``E_TIMEOUT``, ``E_CONSENT``...), ``field`` the
    offending parameter or input field, ``status`` a query's end (``error``,
    ``timeout``, ``cancelled``) and ``recoverable`` whether trying again may
    succeed.
    """

    def __init__(self, code: int, message: str, data: dict | None = None):
        data = data if isinstance(data, dict) else {}
        self.code = code
        self.message = message
        self.data = data
        self.moltspeak_code = data.get("moltspeak_code", "") or ""
        self.field = data.get("field", "") or ""
        self.status = data.get("status", "") or ""
        self.recoverable = bool(data.get("recoverable", False))
        text = f"moltgate rpc error {code}: {message}"
        if self.moltspeak_code:
            text += f" ({self.moltspeak_code}"
            if self.field:
                text += f", field {self.field}"
            text += ")"
        super().__init__(text)
