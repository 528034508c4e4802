"""The agent side: tools the gateway calls over its agent socket.

    agent = Agent(version="1.0.0")

    @agent.tool(description="Greets someone.",
                input_schema={"type": "object", "properties": {"name": {"type": "string"}},
                              "required": ["name"]})
    def greet(call):
        return {"greeting": "Hello, " + call.input["name"]}

    agent.main()

The gateway launches the program with OPENSENTIENCE_SOCKET, OPENSENTIENCE_TOKEN
and OPENSENTIENCE_AGENT_ID in its environment; ``run`` connects, registers the
tools, sends heartbeats and runs each call on a thread of its own.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import os
import random
import re
import signal
import socket
import sys
import threading
import time
from typing import Any, Callable, Iterable

from . import protocol as p
from .errors import (
    Cancelled,
    ConnectionLost,
    GoodbyeError,
    ProtocolError,
    RegistrationError,
    ToolError,
    Unauthorized,
)

SDK_NAME = "moltgate-python-agent"

# A tool name as the gateway accepts it: dot-separated [A-Za-z0-9_-] labels.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$")

Handler = Callable[["Call"], Any]


@dataclasses.dataclass
class Tool:
    """One tool of an agent.

    ``input_schema`` is a JSON Schema (2020-12 unless it names another draft in
    ``$schema``) the gateway checks every call's input against before the call
    reaches the handler. ``side_effects`` and ``requires_directive`` make the
    gateway hold each call until a local human approves it.
    """

    name: str
    handler: Handler
    description: str = ""
    input_schema: dict = dataclasses.field(default_factory=lambda: {"type": "object"})
    output_schema: dict | None = None
    side_effects: bool = False
    requires_directive: bool = False
    tags: tuple = ()

    def wire(self, agent_id: str) -> dict:
        """The tool as agent.tools.register lists it."""
        t: dict[str, Any] = {
            "tool_id": f"{agent_id}/{self.name}",
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "capabilities": ["streaming", "cancellation"],
        }
        if self.output_schema is not None:
            t["output_schema"] = self.output_schema
        if self.side_effects:
            t["side_effects"] = True
        if self.requires_directive:
            t["requires_directive"] = True
        if self.tags:
            t["tags"] = list(self.tags)
        return t


class Agent:
    """A local agent: an id and a set of tools.

    id: the agent's id; default $OPENSENTIENCE_AGENT_ID.
    version: the agent's own version, reported to the gateway; default "0.0.0".
    health: asked at each heartbeat for (status, details): status "ok",
        "degraded" (still called) or "unhealthy" (no calls); details a small
        secret-free dict. Default: always ("ok", {}).
    max_concurrent: calls run at once; more wait, and are reported as the
        heartbeat's queue_depth. Default 256, the gateway's own limit per agent.
    logger: the SDK's messages; default logging.getLogger("moltgate"), whose
        output on stderr the gateway logs line by line.
    """

    def __init__(
        self,
        id: str | None = None,
        version: str = "0.0.0",
        *,
        health: Callable[[], tuple[str, dict]] | None = None,
        max_concurrent: int = 256,
        logger: logging.Logger | None = None,
    ):
        self.id = id
        self.version = version
        self.health = health
        self.max_concurrent = max(1, max_concurrent)
        self.log = logger or logging.getLogger("moltgate")
        self.tools: list[Tool] = []
        self._lock = threading.Lock()
        self._session: _Session | None = None
        self._stopping = threading.Event()
        self._key = ""
        self._key_file = ""

    def add(self, tool: Tool) -> Tool:
        """Adds a tool; tools are registered when the agent connects."""
        if not _TOOL_NAME.match(tool.name) or len(tool.name) > 128:
            raise ValueError(
                f"tool name {tool.name!r} is not dot-separated [A-Za-z0-9_-] labels of at most 128 characters"
            )
        if any(t.name == tool.name for t in self.tools):
            raise ValueError(f"tool {tool.name!r} is added twice")
        if not isinstance(tool.input_schema, dict):
            raise ValueError(f"tool {tool.name!r}: input_schema must be a dict (a JSON Schema object)")
        p.dumps(tool.input_schema)  # a schema that cannot be sent fails here, not at connect
        self.tools.append(tool)
        return tool

    def tool(
        self,
        name: str | None = None,
        *,
        description: str = "",
        input_schema: dict | None = None,
        output_schema: dict | None = None,
        side_effects: bool = False,
        requires_directive: bool = False,
        tags: Iterable[str] = (),
    ) -> Callable[[Handler], Handler]:
        """A decorator that adds the function as a tool, named after it unless name is given.

        The function receives a Call and returns the tool's output: a dict, or
        None for {}; anything else is sent as {"result": value}. It may be
        ``async def``: it then runs in an event loop of its own, and a cancel
        cancels its task.
        """

        def add(fn: Handler) -> Handler:
            self.add(
                Tool(
                    name=name or fn.__name__,
                    handler=fn,
                    description=description or (inspect.getdoc(fn) or "").split("\n\n")[0],
                    input_schema=input_schema if input_schema is not None else {"type": "object"},
                    output_schema=output_schema,
                    side_effects=side_effects,
                    requires_directive=requires_directive,
                    tags=tuple(tags),
                )
            )
            return fn

        return add

    # Running.

    def run(
        self,
        socket_path: str | None = None,
        token: str | None = None,
        *,
        token_source: Callable[[], str] | None = None,
        key_file: str | None = None,
    ) -> None:
        """Connects to the gateway and serves calls until the gateway shuts down or stop().

        socket_path and token default to $OPENSENTIENCE_SOCKET and
        $OPENSENTIENCE_TOKEN; the token is removed from the environment so
        that programs the agent starts do not inherit it.

        A token admits one connection. An agent the gateway does not launch
        (its token issued by ``moltgate agent token``) is handed a key on that
        connection, and connects again with the key whenever the connection is
        lost, across restarts too when key_file (default
        $OPENSENTIENCE_KEY_FILE) names where to keep it: a key found there is
        used in place of a token. Otherwise, when the connection is lost (no
        goodbye, or a goodbye other than ``shutting_down`` or ``replaced``) the
        agent connects again only if token_source is given: it is called for
        the token of each new connection. Either way the delay is 0.5 s
        doubling to 30 s between tries (or the gateway's retry_after). With
        neither, run raises ConnectionLost or GoodbyeError, and the program
        should exit: a gateway that launched it starts it again with a fresh
        token.

        Raises Unauthorized when the gateway refuses a token or key,
        RegistrationError when it rejects a tool.
        """
        path = socket_path or os.environ.get("OPENSENTIENCE_SOCKET", "")
        if token is None:
            token = os.environ.get("OPENSENTIENCE_TOKEN", "")
        os.environ.pop("OPENSENTIENCE_TOKEN", None)
        self._key_file = key_file if key_file is not None else os.environ.get("OPENSENTIENCE_KEY_FILE", "")
        if not self._key and self._key_file:
            try:
                with open(self._key_file, encoding="ascii") as f:
                    self._key = f.read().strip()
            except FileNotFoundError:
                pass
        if self._key:
            token = self._key
        if not path:
            raise ValueError("no agent socket: set OPENSENTIENCE_SOCKET or pass socket_path; the gateway sets it when it launches the agent")
        if not token and token_source is None:
            raise ValueError(
                "no token: set OPENSENTIENCE_TOKEN or pass token; the gateway sets it when it launches the agent, "
                "and moltgate agent token issues one for an agent it does not launch"
            )
        delay = 0.5
        first = True
        while not self._stopping.is_set():
            if not first or not token:
                token = self._key or token_source()  # type: ignore[misc]
            first = False
            started = time.monotonic()
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    sock.connect(path)
                except OSError as e:
                    sock.close()
                    raise ConnectionLost(f"cannot connect to the agent socket {path}: {e.strerror or e}") from e
                self.serve(sock, token)
                return
            except (ConnectionLost, GoodbyeError) as e:
                if (token_source is None and not self._key) or self._stopping.is_set():
                    raise
                if isinstance(e, GoodbyeError) and e.reason in ("replaced", "revoked"):
                    raise
                wait = delay
                if isinstance(e, GoodbyeError) and e.retry_after > 0:
                    wait = e.retry_after
                # A session that lasted resets the delay; quick failures double it.
                delay = 0.5 if time.monotonic() - started > 30 else min(delay * 2, 30.0)
                wait *= 1 + random.uniform(-0.2, 0.2)
                self.log.warning("connection to the gateway lost (%s); connecting again in %.1fs", e, wait)
                if self._stopping.wait(wait):
                    return
            finally:
                token = ""

    def _keep_key(self, key: str) -> None:
        """Remembers the key the gateway handed over, and writes it to the key file (0600)."""
        self._key = key
        if not self._key_file:
            return
        try:
            d = os.path.dirname(os.path.abspath(self._key_file))
            tmp = os.path.join(d, f".agent-key-{os.getpid()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(key + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self._key_file)
        except OSError:
            # The key still serves this run; a restart would need a new token.
            self.log.exception("cannot keep the agent key in %s; after a restart the agent needs a new token", self._key_file)

    def serve(self, sock: socket.socket, token: str) -> None:
        """Runs the agent over an established connection, authenticating with token.

        It closes sock when it returns; see run for what it raises.
        """
        agent_id = self.id or os.environ.get("OPENSENTIENCE_AGENT_ID", "")
        if not agent_id:
            sock.close()
            raise ValueError("no agent id: pass Agent(id=...) or set OPENSENTIENCE_AGENT_ID")
        s = _Session(self, agent_id, sock)
        with self._lock:
            if self._stopping.is_set():
                sock.close()
                return
            self._session = s
        try:
            s.run(token)
        finally:
            with self._lock:
                self._session = None

    def rename(self, name: str) -> None:
        """Sets the agent's display name (agent.update): the gateway publishes it in its
        directory, whence peers take it, and on its event stream as agent.updated. It keeps it
        until it restarts. Raises ConnectionLost when the agent is not connected."""
        with self._lock:
            s = self._session
        if s is None or not s.session_id:
            raise ConnectionLost("the agent is not connected to the gateway")
        s.send(p.envelope(p.AGENT_UPDATE, {"id": s.id, "name": name}))

    def stop(self) -> None:
        """Ends run or serve from another thread or a signal handler; running calls are cancelled."""
        self._stopping.set()
        with self._lock:
            s = self._session
        if s is not None:
            s.shutdown()

    def main(self) -> None:
        """Runs the agent as a program: SIGTERM and SIGINT stop it, and an error is printed
        on one line to stderr with exit status 1."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: self.stop())
        if not logging.getLogger().handlers:
            logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
        try:
            self.run()
        except (ValueError, ProtocolError, GoodbyeError, ConnectionLost) as e:
            print(f"{sys.argv[0] or 'agent'}: {e}", file=sys.stderr)
            sys.exit(1)


class Call:
    """One call of a tool.

    input: the call's input, a dict the gateway validated against the input schema.
    cancelled: a threading.Event set when the gateway cancels the call or its
        timeout passes; cancel_reason says which ("canceled", "deadline",
        "caller_stopped", "core_error" or "timeout").
    deadline: time.monotonic() by which the caller wants the result, or None.
    caller: who asked, as the gateway reports it ({"type": "human"|"agent"|"system", "id": ...});
        information, never authority.
    context: non-secret metadata from the gateway, a dict.
    """

    def __init__(self, session: "_Session", msg: dict, tool: str):
        payload = msg["payload"]
        self._s = session
        self.id: str = payload.get("call_id", "")
        self.tool = tool
        self.input: dict = payload.get("input") if isinstance(payload.get("input"), dict) else {}
        self.request_id: str = msg.get("request_id", "") or ""
        self.correlation_id: str = msg.get("correlation_id", "") or ""
        self.causation_id: str = msg.get("causation_id", "") or ""
        self.idempotency_key: str = payload.get("idempotency_key", "") or ""
        self.caller: dict = payload.get("caller") if isinstance(payload.get("caller"), dict) else {}
        self.context: dict = payload.get("context") if isinstance(payload.get("context"), dict) else {}
        timeout_ms = payload.get("timeout_ms")
        self.timeout_ms: int | None = timeout_ms if isinstance(timeout_ms, int) and timeout_ms > 0 else None
        self.deadline: float | None = time.monotonic() + self.timeout_ms / 1000 if self.timeout_ms else None
        self.cancelled = threading.Event()
        self.cancel_reason = ""
        self._lock = threading.Lock()
        self._seq = 0
        self._ended = False
        self._on_cancel: list[Callable[[], None]] = []

    # Cancellation, as an event or an exception.

    def check_cancelled(self) -> None:
        """Raises Cancelled if the call has been cancelled or its timeout has passed."""
        if self.cancelled.is_set():
            raise Cancelled(f"the call was cancelled ({self.cancel_reason})")

    def sleep(self, seconds: float) -> None:
        """Waits seconds, or raises Cancelled as soon as the call is cancelled."""
        if self.cancelled.wait(seconds):
            self.check_cancelled()

    def _cancel(self, reason: str) -> None:
        with self._lock:
            if self.cancelled.is_set():
                return
            self.cancel_reason = reason
            self.cancelled.set()
            hooks = list(self._on_cancel)
        for h in hooks:
            h()

    # Streaming.

    def stream(self, text: str) -> None:
        """Sends text on the stdout channel: the caller sees it as it comes."""
        self.send("stdout", text)

    def status(self, text: str) -> None:
        """Sends a progress note on the status channel."""
        self.send("status", text)

    def log(self, text: str) -> None:
        """Sends text on the log channel."""
        self.send("log", text)

    def send(self, channel: str, text: str) -> None:
        """Sends text on a channel: stdout, stderr, log or status. It waits until the chunk is
        written, so a slow caller slows the tool down. Raises Cancelled once the call is."""
        if channel not in ("stdout", "stderr", "log", "status"):
            raise ValueError(f"channel {channel!r} is not stdout, stderr, log or status")
        if not isinstance(text, str):
            raise TypeError("stream text must be a str")
        self._chunk(channel, {"text": text})

    def partial(self, value: dict) -> None:
        """Sends a partial result, a dict, on the partial_result channel."""
        if not isinstance(value, dict):
            raise TypeError("a partial result must be a dict (a JSON object)")
        self._chunk("partial_result", {"json": value})

    def _chunk(self, channel: str, data: dict) -> None:
        self.check_cancelled()
        with self._lock:
            if self._ended:
                raise RuntimeError("the call has ended")
            self._seq += 1
            payload = {"call_id": self.id, "seq": self._seq, "channel": channel, "data": data}
            self._s.send(self._header(p.TOOL_STREAM, payload))

    def _header(self, type_: str, payload: dict) -> dict:
        return p.envelope(
            type_,
            payload,
            request_id=self.request_id,
            correlation_id=self.correlation_id,
            causation_id=self.causation_id,
        )

    # The one result.

    def _finish(self, started: str, out: Any, exc: BaseException | None) -> None:
        r: dict[str, Any] = {"call_id": self.id, "started_at": started}
        if exc is None:
            if out is None:
                out = {}
            elif not isinstance(out, dict):
                out = {"result": out}
            try:
                size = len(p.dumps(out))
            except ValueError:
                r["status"], r["error"] = p.FAILED, {"code": p.CODE_OUTPUT_MALFORMED, "message": "the tool's output cannot be encoded as JSON"}
            else:
                if size > self._s.max_frame - 4096:
                    r["status"], r["error"] = p.FAILED, {"code": p.CODE_OUTPUT_TOO_LARGE, "message": "the tool's output exceeds the frame limit"}
                else:
                    r["status"], r["output"] = p.SUCCEEDED, out
        elif self.cancel_reason == "timeout":
            r["status"], r["error"] = p.FAILED, {"code": p.CODE_TIMEOUT, "message": "the call's timeout passed"}
        elif isinstance(exc, (Cancelled, asyncio.CancelledError)) or (self.cancelled.is_set() and not isinstance(exc, ToolError)):
            r["status"], r["error"] = p.CANCELED, {"code": p.CODE_CANCELED, "message": "the call was cancelled"}
        elif isinstance(exc, ToolError):
            err = {"code": exc.code, "message": exc.message[:1024]}
            if exc.retryable:
                err["retryable"] = True
            r["status"], r["error"] = p.FAILED, err
        else:
            self._s.log.error("tool %s failed unexpectedly", self.tool, exc_info=exc)
            r["status"], r["error"] = p.FAILED, {
                "code": p.CODE_INTERNAL,
                "message": f"the tool failed unexpectedly ({type(exc).__name__})",
            }
        r["finished_at"] = p.timestamp()
        with self._lock:
            if self._ended:
                return
            self._ended = True
            # Forgotten first: a cancel that comes after the result is one of no call in flight.
            self._s.forget(self.id)
            try:
                self._s.send(self._header(p.TOOL_RESULT, r))
            except (OSError, ValueError):
                pass  # the connection is gone; the gateway has failed the call already


class _Session:
    """One connection to the gateway."""

    def __init__(self, agent: Agent, agent_id: str, sock: socket.socket):
        self.agent = agent
        self.id = agent_id
        self.sock = sock
        self.log = agent.log
        self.reader = p.FrameReader(sock, p.HANDSHAKE_FRAME_BYTES)
        self.max_frame = p.DEFAULT_MAX_FRAME_BYTES
        self.session_id = ""
        self.heartbeat_interval = 5.0
        self.started = time.monotonic()
        self.wlock = threading.Lock()
        self.calls: dict[str, Call] = {}
        self.clock = threading.Lock()
        self.slots = threading.BoundedSemaphore(agent.max_concurrent)
        self.running = 0
        self.waiting = 0
        self.threads: list[threading.Thread] = []
        self.done = threading.Event()
        self.closed = False

    def send(self, msg: dict) -> None:
        frame = p.encode(msg, self.max_frame)
        with self.wlock:
            self.sock.sendall(frame)

    def shutdown(self) -> None:
        """Closes the connection; the reading loop ends."""
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def next(self) -> dict:
        return p.decode(self.reader.read())

    def run(self, token: str) -> None:
        try:
            self.handshake(token)
            self.serve()
        finally:
            self.done.set()
            with self.clock:
                calls = list(self.calls.values())
            for c in calls:
                c._cancel("canceled")
            self.shutdown()
            # Tools were told of the cancel; those that do not stop are left behind after 5 s.
            deadline = time.monotonic() + 5
            for t in list(self.threads):
                t.join(timeout=max(0.0, deadline - time.monotonic()))
            self.sock.close()

    def handshake(self, token: str) -> None:
        """agent.hello, core.welcome, then agent.tools.register; the first heartbeat goes out
        before the registration."""
        self.sock.settimeout(30)
        hello = p.envelope(
            p.HELLO,
            {
                "session_token": token,
                "agent_id": self.id,
                "agent_version": self.agent.version or "0.0.0",
                "protocol": {"supported_versions": [p.VERSION], "capabilities": ["tools", "streaming", "cancellation"]},
                "sdk": {"name": SDK_NAME, "version": _sdk_version()},
            },
        )
        try:
            self.sock.sendall(p.encode(hello, p.HANDSHAKE_FRAME_BYTES))
            welcome = self.next()
        except (EOFError, OSError) as e:
            raise ConnectionLost(f"the gateway ended the connection during the handshake: {e}") from e
        except p.FrameError as e:
            raise ProtocolError("protocol.invalid_frame", f"core.welcome: {e}") from e
        if welcome["type"] != p.WELCOME:
            raise ProtocolError("protocol.unexpected_message", f"expected core.welcome, got {welcome['type']}")
        err = welcome.get("error")
        if err:
            if err.get("code") == p.CODE_UNAUTHORIZED:
                raise Unauthorized()
            raise ProtocolError(str(err.get("code", "")), str(err.get("message", "")))
        w = welcome["payload"]
        self.session_id = str(w.get("session_id", ""))
        if isinstance(w.get("agent_key"), str) and w["agent_key"]:
            self.agent._keep_key(w["agent_key"])
        if isinstance(w.get("max_frame_bytes"), int) and w["max_frame_bytes"] > 0:
            self.max_frame = w["max_frame_bytes"]
        self.reader.limit = self.max_frame
        if isinstance(w.get("heartbeat_interval_ms"), int) and w["heartbeat_interval_ms"] > 0:
            self.heartbeat_interval = w["heartbeat_interval_ms"] / 1000
        self.sock.settimeout(None)
        self.spawn(self.heartbeats)
        reg = p.envelope(p.TOOLS_REGISTER, {"tools": [t.wire(self.id) for t in self.agent.tools], "replace": True})
        self.register_id = reg["id"]
        self.send(reg)

    def spawn(self, fn: Callable[..., None], *args: Any) -> threading.Thread:
        t = threading.Thread(target=fn, args=args, daemon=True)
        self.threads = [x for x in self.threads if x.is_alive()]
        self.threads.append(t)
        t.start()
        return t

    def heartbeats(self) -> None:
        while True:
            status, details = "ok", {}
            if self.agent.health is not None:
                try:
                    status, details = self.agent.health()
                except Exception:  # a failing health check is a health report
                    self.log.exception("health check failed")
                    status, details = "unhealthy", {}
            details = dict(details or {})
            with self.clock:
                details["queue_depth"] = self.waiting
                running = self.running
            hb = p.envelope(
                p.HEARTBEAT,
                {
                    "session_id": self.session_id,
                    "uptime_ms": int((time.monotonic() - self.started) * 1000),
                    "inflight_calls": running,
                    "status": status if status in ("ok", "degraded", "unhealthy") else "unhealthy",
                    "details": details,
                },
            )
            try:
                self.send(hb)
            except (OSError, ValueError):
                return
            if self.done.wait(self.heartbeat_interval):
                return

    def serve(self) -> None:
        """Reads the gateway's messages until the connection ends."""
        while True:
            try:
                msg = self.next()
            except p.FrameTooLarge as e:
                raise ProtocolError("protocol.invalid_frame", str(e)) from e
            except p.FrameError as e:
                self.log.warning("the gateway sent a malformed message: %s", e)
                continue
            except (EOFError, OSError) as e:
                if self.closed:
                    return
                raise ConnectionLost(f"the connection to the gateway ended: {e}") from e
            t = msg["type"]
            if t == p.TOOL_CALL:
                self.start_call(msg)
            elif t == p.TOOL_CANCEL:
                self.cancel(msg)
            elif t == p.GOODBYE:
                reason = str(msg["payload"].get("reason", ""))
                if reason == "shutting_down":
                    self.closed = True
                    return
                retry = msg["payload"].get("retry_after_ms")
                raise GoodbyeError(reason, retry / 1000 if isinstance(retry, int) else 0.0)
            elif t == p.PING:
                self.reply(p.envelope(p.PONG, {}, in_reply_to=msg["id"]))
            elif t == p.TOOLS_REGISTERED:
                rejected = msg["payload"].get("rejected") or []
                if msg.get("in_reply_to") == self.register_id and rejected:
                    raise RegistrationError(rejected)
            elif t == p.ERROR:
                err = msg.get("error") or {}
                if msg.get("in_reply_to") and msg.get("in_reply_to") == self.register_id:
                    raise ProtocolError(str(err.get("code", "")), "register tools: " + str(err.get("message", "")))
                self.log.warning("the gateway reported a protocol error: %s: %s", err.get("code"), err.get("message"))

    def start_call(self, msg: dict) -> None:
        payload = msg["payload"]
        call_id, tool_id = payload.get("call_id"), payload.get("tool_id")
        if not isinstance(call_id, str) or not call_id or not isinstance(tool_id, str):
            self.log.warning("the gateway sent a call without call_id or tool_id")
            return
        prefix = self.id + "/"
        name = tool_id[len(prefix):] if tool_id.startswith(prefix) else ""
        tool = next((t for t in self.agent.tools if t.name == name), None)
        c = Call(self, msg, name)
        with self.clock:
            self.calls[c.id] = c
        self.spawn(self.run_call, c, tool)

    def run_call(self, c: Call, tool: Tool | None) -> None:
        timer = None
        if c.timeout_ms:
            timer = threading.Timer(c.timeout_ms / 1000, c._cancel, ("timeout",))
            timer.daemon = True
            timer.start()
        try:
            if tool is None:
                c._finish(p.timestamp(), None, ToolError(p.CODE_NOT_FOUND, "no such tool"))
                return
            with self.clock:
                self.waiting += 1
            while not self.slots.acquire(timeout=0.1):
                if c.cancelled.is_set():
                    with self.clock:
                        self.waiting -= 1
                    c._finish(p.timestamp(), None, Cancelled())
                    return
            with self.clock:
                self.waiting -= 1
                self.running += 1
            try:
                started = p.timestamp()
                out, exc = None, None
                try:
                    out = _invoke(tool.handler, c)
                except BaseException as e:  # every failure is the call's result
                    if isinstance(e, (KeyboardInterrupt, SystemExit)):
                        raise
                    exc = e
                c._finish(started, out, exc)
            finally:
                with self.clock:
                    self.running -= 1
                self.slots.release()
        finally:
            if timer is not None:
                timer.cancel()
            self.forget(c.id)

    def forget(self, call_id: str) -> None:
        with self.clock:
            self.calls.pop(call_id, None)

    def cancel(self, msg: dict) -> None:
        call_id = msg["payload"].get("call_id", "")
        with self.clock:
            c = self.calls.get(call_id)
        if c is not None:
            reason = msg["payload"].get("reason") or "canceled"
            c._cancel(str(reason))
        self.reply(
            p.envelope(
                p.CANCEL_ACK,
                {"call_id": call_id, "accepted": c is not None},
                in_reply_to=msg["id"],
                request_id=msg.get("request_id"),
            )
        )

    def reply(self, msg: dict) -> None:
        """Sends msg from a thread of its own: the reading thread must not wait on a write, which
        may wait on a gateway that holds its reading until a slow caller takes a chunk."""

        def send() -> None:
            try:
                self.send(msg)
            except (OSError, ValueError):
                pass  # the connection is gone

        self.spawn(send)


def _invoke(handler: Handler, c: Call) -> Any:
    """Runs the handler; a coroutine function runs in an event loop of its own, its task
    cancelled when the call is."""
    if not inspect.iscoroutinefunction(handler):
        return handler(c)

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def cancel() -> None:
            loop.call_soon_threadsafe(task.cancel)

        with c._lock:
            c._on_cancel.append(cancel)
        if c.cancelled.is_set():
            raise Cancelled(f"the call was cancelled ({c.cancel_reason})")
        return await handler(c)

    return asyncio.run(main())


def _sdk_version() -> str:
    from . import __version__

    return __version__
