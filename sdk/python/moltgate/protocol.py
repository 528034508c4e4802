"""The agent socket's wire format: frames and envelopes of the OpenSentience
runtime protocol v1, as moltgate speaks it (docs/protocol.md, "Local bridge").

A frame is a 4-byte big-endian unsigned length followed by that many bytes of
UTF-8 JSON: one envelope, an object with ``v`` (1), ``type``, ``id``, ``ts`` and
``payload``, and optionally ``in_reply_to``, ``request_id``,
``correlation_id``, ``causation_id``, ``actor`` and ``error``.
"""

from __future__ import annotations

import datetime
import json
import socket
import struct
import uuid
from typing import Any

VERSION = 1

HEADER_LEN = 4
# Before core.welcome the gateway reads at most 64 KiB; after it, max_frame_bytes.
HANDSHAKE_FRAME_BYTES = 64 << 10
DEFAULT_MAX_FRAME_BYTES = 4 << 20
# The gateway refuses frames that nest deeper than this.
MAX_DEPTH = 128

# Message types: core.* travel from the gateway to the agent, agent.* the other way.
HELLO = "agent.hello"
WELCOME = "core.welcome"
GOODBYE = "core.goodbye"
TOOLS_REGISTER = "agent.tools.register"
TOOLS_REGISTERED = "core.tools.registered"
TOOLS_UNREGISTER = "agent.tools.unregister"
TOOLS_UNREGISTERED = "core.tools.unregistered"
TOOL_CALL = "core.tool.call"
TOOL_STREAM = "agent.tool.stream"
TOOL_RESULT = "agent.tool.result"
TOOL_CANCEL = "core.tool.cancel"
CANCEL_ACK = "agent.tool.cancel_ack"
HEARTBEAT = "agent.heartbeat"
PING = "core.ping"
PONG = "agent.pong"
ERROR = "core.error"
AGENT_UPDATE = "agent.update"
AGENT_UPDATED = "core.agent.updated"

SUCCEEDED, FAILED, CANCELED = "succeeded", "failed", "canceled"
CHANNELS = ("stdout", "stderr", "log", "status", "partial_result")

# Error codes a tool's result may carry, as the Go SDK names them.
CODE_INVALID_INPUT = "tool.invalid_input"
CODE_FAILED = "tool.failed"
CODE_INTERNAL = "tool.internal"
CODE_TIMEOUT = "tool.timeout"
CODE_CANCELED = "tool.canceled"
CODE_NOT_FOUND = "tool.not_found"
CODE_OUTPUT_TOO_LARGE = "tool.output_too_large"
CODE_OUTPUT_MALFORMED = "tool.output_malformed"
CODE_UNAUTHORIZED = "protocol.unauthorized"


class FrameError(Exception):
    """A frame that cannot be read: too large, not UTF-8 JSON, not an envelope."""


class FrameTooLarge(FrameError):
    """A frame longer than the limit: its bytes are not read, so the connection has lost its framing."""


def timestamp(now: datetime.datetime | None = None) -> str:
    """RFC 3339 in UTC with milliseconds, as the gateway writes ts: 2026-01-16T12:00:00.000Z."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    now = now.astimezone(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def new_id() -> str:
    """A random UUID (version 4), the form of every message and call id."""
    return str(uuid.uuid4())


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON as the gateway accepts it: no NaN or infinity, no lone surrogates.

    Raises ValueError for a value that cannot be sent (UnicodeEncodeError and
    TypeError included, as ValueError subclasses or wrapped).
    """
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8")
    except (TypeError, UnicodeEncodeError) as e:
        raise ValueError(str(e)) from e


def _no_duplicates(pairs: list) -> dict:
    out = {}
    for k, v in pairs:
        if k in out:
            raise FrameError(f"member {k!r} named twice in an object")
        out[k] = v
    return out


def _reject_constant(name: str) -> Any:
    raise FrameError(f"{name} is not JSON")


def loads(data: bytes) -> Any:
    """Strict JSON: UTF-8, no member named twice, no NaN or infinity."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FrameError("frame is not valid UTF-8") from e
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise FrameError(f"frame is not valid JSON: {e.msg}") from e
    except RecursionError as e:
        raise FrameError("frame nests too deeply") from e


def encode_frame(body: bytes, limit: int = DEFAULT_MAX_FRAME_BYTES) -> bytes:
    """The frame of body: its length as 4 bytes, big-endian, then body."""
    if not body:
        raise FrameError("empty frame")
    if len(body) > limit:
        raise FrameTooLarge(f"frame of {len(body)} bytes exceeds the limit of {limit} bytes")
    return struct.pack(">I", len(body)) + body


def envelope(type_: str, payload: dict | None = None, **header: Any) -> dict:
    """A message: v, type, a fresh id, ts, the header fields given (None left out), payload."""
    msg: dict[str, Any] = {"v": VERSION, "type": type_, "id": new_id(), "ts": timestamp()}
    for k, v in header.items():
        if v is not None and v != "":
            msg[k] = v
    msg["payload"] = payload if payload is not None else {}
    return msg


def encode(msg: dict, limit: int = DEFAULT_MAX_FRAME_BYTES) -> bytes:
    """The frame of one message."""
    return encode_frame(dumps(msg), limit)


def decode(body: bytes) -> dict:
    """One envelope from a frame's bytes, checked as the gateway checks the agent's."""
    msg = loads(body)
    if not isinstance(msg, dict):
        raise FrameError("frame is not a JSON object")
    if msg.get("v") != VERSION or isinstance(msg.get("v"), bool):
        raise FrameError(f"protocol version {msg.get('v')!r} is not supported")
    for field in ("type", "id"):
        if not isinstance(msg.get(field), str) or not msg[field]:
            raise FrameError(f"envelope lacks {field}")
    payload = msg.get("payload")
    if payload is None:
        msg["payload"] = {}
    elif not isinstance(payload, dict):
        raise FrameError("payload is not a JSON object")
    err = msg.get("error")
    if err is not None and not isinstance(err, dict):
        raise FrameError("error is not a JSON object")
    return msg


class FrameReader:
    """Reads frames from a socket, reassembling short reads."""

    def __init__(self, sock: socket.socket, limit: int = HANDSHAKE_FRAME_BYTES):
        self.sock = sock
        self.limit = limit

    def _exactly(self, n: int, inside: bool) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(min(n - len(buf), 1 << 20))
            if not chunk:
                if buf or inside:
                    raise EOFError("the connection ended inside a frame")
                raise EOFError("the connection ended")
            buf += chunk
        return bytes(buf)

    def read(self) -> bytes:
        """The next frame's bytes. EOFError when the connection ends."""
        (n,) = struct.unpack(">I", self._exactly(HEADER_LEN, False))
        if n == 0:
            raise FrameError("empty frame")
        if n > self.limit:
            raise FrameTooLarge(f"frame of {n} bytes exceeds the limit of {self.limit} bytes")
        return self._exactly(n, True)
