"""The caller side: the gateway's JSON-RPC face on its local socket (DIR/run/rpc.sock).

    with Caller(dir="/srv/acme") as c:
        print(c.query("echo@globex", tool="echo", input={"text": "hi"}, from_agent="client"))
        for ev in c.stream("echo@globex", tool="echo", input={"text": "hi", "repeat": 3}):
            print(ev.text, end="")

JSON-RPC 2.0, one message per line. A query is answered with its query_id, then
its reply comes as notifications: stream.token and stream.block pieces, a
stream.error when it failed, and exactly one stream.complete.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import socket
import threading
from typing import Any, Callable, Iterator

from .errors import RPCError

PROTOCOL_VERSION = "1.0.0"
MAX_MESSAGE_BYTES = 10 << 20

CODE_CANCELLED = -32004
CODE_AGENT_ERROR = -32000


@dataclasses.dataclass
class StreamEvent:
    """One piece of a streamed reply: text (stream.token) or a block, a dict (stream.block).

    channel says where it came from: stdout, stderr, log, status or partial_result.
    """

    text: str = ""
    block: dict | None = None
    channel: str = "stdout"


class _Lost(Exception):
    pass


class Query:
    """A running agent.query. Iterate over it for its StreamEvents as they arrive; then
    ``result`` holds the reply (or ``wait()`` returns it, raising RPCError on failure)."""

    def __init__(self, caller: "Caller"):
        self._caller = caller
        self._events: queue.Queue = queue.Queue()
        self.query_id = ""
        self.status = ""  # success, error, timeout or cancelled, once complete
        self.result: Any = None
        self.error: RPCError | None = None
        self.metadata: dict = {}
        self._done = False

    def __iter__(self) -> Iterator[StreamEvent]:
        while not self._done:
            item = self._events.get()
            if isinstance(item, StreamEvent):
                yield item
            else:
                self._end(item)

    def _end(self, item: Any) -> None:
        self._done = True
        if isinstance(item, BaseException):
            self.error = item if isinstance(item, RPCError) else None
            self.status = self.status or "error"
            self._raised = item
            return
        params = item
        self.status = params.get("status", "")
        self.metadata = params.get("metadata") or {}
        if self.status == "success":
            self.result = params.get("result")
        elif self.status == "cancelled":
            self.error = RPCError(CODE_CANCELLED, "the query was cancelled", {"status": "cancelled"})
        elif self.error is None:
            self.error = RPCError(CODE_AGENT_ERROR, "the query failed", {"status": self.status})
        else:
            self.error.status = self.status

    def wait(self) -> Any:
        """Reads the rest of the stream and returns the result; RPCError if the query failed,
        timed out or was cancelled."""
        for _ in self:
            pass
        raised = getattr(self, "_raised", None)
        if raised is not None:
            raise raised
        if self.error is not None:
            raise self.error
        return self.result

    def cancel(self) -> None:
        """Cancels the query at the gateway; the agent is sent a cancel, and the stream ends
        with status cancelled."""
        if self.query_id and not self._done:
            try:
                self._caller.cancel(self.query_id)
            except RPCError as e:
                if e.field != "query_id":  # it ended meanwhile
                    raise


class Caller:
    """A connection to the gateway's JSON-RPC socket.

    path: the socket; or dir, the gateway directory, whose DIR/run/rpc.sock it is.
    on_approval: called on the reading thread with (method, params) for each
        tool.request_approval and tool.approval_resolved; giving it subscribes the
        connection to them. It must not block.
    timeout: seconds to wait for the answer to a request (not for a query's stream).
    """

    def __init__(
        self,
        path: str | None = None,
        *,
        dir: str | None = None,
        name: str = "moltgate-python",
        version: str | None = None,
        on_approval: Callable[[str, dict], None] | None = None,
        timeout: float = 60.0,
    ):
        if path is None:
            if dir is None:
                raise ValueError("give the JSON-RPC socket's path, or the gateway directory as dir=")
            path = os.path.join(dir, "run", "rpc.sock")
        if version is None:
            from . import __version__ as version
        self.path = path
        self.timeout = timeout
        self._on_approval = on_approval
        self._on_event: Callable[[dict], None] | None = None
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.connect(path)
        except OSError as e:
            self._sock.close()
            raise ConnectionError(f"cannot connect to the gateway's JSON-RPC socket {path}: {e.strerror or e}") from e
        self._wlock = threading.Lock()
        self._lock = threading.Lock()
        self._next_id = 0
        self._pending: dict[int, Callable[[dict], None]] = {}
        self._queries: dict[str, Query] = {}
        self._lost: BaseException | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        caps = ["tool_approval"] if on_approval is not None else []
        self.server: dict = self.call(
            "initialize",
            {"protocol_version": PROTOCOL_VERSION, "client_info": {"name": name, "version": version}, "capabilities": caps},
        )

    def __enter__(self) -> "Caller":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection; the gateway cancels its running queries."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()

    # The wire.

    def _write(self, msg: dict) -> None:
        line = json.dumps(msg, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8") + b"\n"
        with self._wlock:
            if self._lost is not None:
                raise ConnectionError(f"the connection to the gateway is lost: {self._lost}")
            self._sock.sendall(line)

    def _read(self) -> None:
        buf = bytearray()
        err: BaseException = ConnectionError("the gateway closed the connection")
        try:
            while True:
                chunk = self._sock.recv(1 << 16)
                if not chunk:
                    break
                # Only the new bytes are searched for the end of a line: a long message comes in
                # many reads.
                at = len(buf)
                buf += chunk
                start = 0
                while True:
                    nl = buf.find(b"\n", max(at, start))
                    if nl < 0:
                        break
                    line = bytes(buf[start:nl])
                    start = nl + 1
                    if line.strip():
                        self._dispatch(json.loads(line))
                del buf[:start]
                if len(buf) > MAX_MESSAGE_BYTES:
                    raise ConnectionError("the gateway sent a message over 10 MiB")
        except (OSError, ValueError) as e:
            err = ConnectionError(f"the connection to the gateway ended: {e}")
        with self._lock:
            self._lost = err
            pending, self._pending = self._pending, {}
            queries, self._queries = self._queries, {}
        for reply in pending.values():
            reply({"error": {"code": CODE_AGENT_ERROR, "message": str(err)}, "_lost": True})
        for q in queries.values():
            q._events.put(err)

    def _dispatch(self, msg: Any) -> None:
        if isinstance(msg, list):
            for m in msg:
                self._dispatch(m)
            return
        if not isinstance(msg, dict):
            return
        method = msg.get("method")
        if method is not None and "id" not in msg:
            self._notified(method, msg.get("params") or {})
            return
        mid = msg.get("id")
        with self._lock:
            if mid is None:
                # The gateway could not read the id of something sent: any request may be
                # the one refused, and none would be answered otherwise.
                pending, self._pending = self._pending, {}
            else:
                reply = self._pending.pop(mid, None)
                pending = {mid: reply} if reply else {}
        for reply in pending.values():
            reply(msg)

    def _notified(self, method: str, params: dict) -> None:
        if method == "event":
            if self._on_event is not None:
                self._on_event(params)
            return
        if method in ("tool.request_approval", "tool.approval_resolved"):
            if self._on_approval is not None:
                self._on_approval(method, params)
            return
        with self._lock:
            q = self._queries.get(params.get("query_id", ""))
        if q is None:
            return
        if method == "stream.token":
            meta = params.get("metadata") or {}
            q._events.put(StreamEvent(text=params.get("token", ""), channel=meta.get("channel", "stdout")))
        elif method == "stream.block":
            block = params.get("block") or {}
            meta = block.get("metadata") or {}
            q._events.put(StreamEvent(block=block.get("content"), channel=meta.get("channel", "partial_result")))
        elif method == "stream.error":
            e = params.get("error") or {}
            q.error = RPCError(e.get("code", CODE_AGENT_ERROR), e.get("message", ""), e.get("data"))
        elif method == "stream.complete":
            with self._lock:
                self._queries.pop(q.query_id, None)
            q._events.put(params)

    def _send(self, method: str, params: dict | None, reply: Callable[[dict], None] | None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if reply is not None:
            with self._lock:
                if self._lost is not None:
                    raise ConnectionError(f"the connection to the gateway is lost: {self._lost}")
                self._next_id += 1
                msg["id"] = self._next_id
                self._pending[self._next_id] = reply
        self._write(msg)

    def call(self, method: str, params: dict | None = None) -> Any:
        """Sends one request and returns its result; RPCError for an error answer."""
        box: queue.Queue = queue.Queue(1)
        self._send(method, params if params is not None else {}, box.put)
        try:
            msg = box.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"{method}: no answer from the gateway within {self.timeout}s") from None
        if msg.get("_lost"):
            raise ConnectionError(msg["error"]["message"])
        e = msg.get("error")
        if e is not None:
            raise RPCError(e.get("code", CODE_AGENT_ERROR), e.get("message", ""), e.get("data"))
        return msg.get("result")

    def notify(self, method: str, params: dict | None = None) -> None:
        """Sends a notification: no answer comes."""
        self._send(method, params, None)

    # Queries.

    def stream(
        self,
        to: str,
        *,
        tool: str | None = None,
        input: dict | None = None,
        message: str | None = None,
        from_agent: str | None = None,
        cls: str | None = None,
        consent: str | None = None,
        timeout_ms: int | None = None,
        context: dict | None = None,
        correlation_id: str | None = None,
    ) -> Query:
        """Starts agent.query and returns the running Query, to iterate over.

        to: "agent@org", or "agent" for one of this organisation's.
        tool and input: a tool to invoke and its input; or message, a free-text
            query for the agent's query tool.
        from_agent: the local agent the call is made on behalf of (default: the only one).
        cls: the classification of what is sent (pub, int, conf, pii, sec).
        consent: a consent token covering personal data in the request.
        correlation_id: for an agent calling out while it handles a call, that
            call's correlation_id, so the gateway can stop loops.
        """
        params: dict[str, Any] = {"to": to}
        for k, v in (
            ("tool", tool),
            ("input", input),
            ("message", message),
            ("from", from_agent),
            ("cls", cls),
            ("consent", consent),
            ("timeout_ms", timeout_ms),
            ("context", context),
            ("correlation_id", correlation_id),
        ):
            if v is not None:
                params[k] = v
        q = Query(self)
        box: queue.Queue = queue.Queue(1)

        def started(msg: dict) -> None:
            # On the reading thread, before the next line is read: the query's notifications
            # follow its answer, and find it registered.
            res = msg.get("result")
            if isinstance(res, dict) and res.get("query_id"):
                q.query_id = res["query_id"]
                with self._lock:
                    self._queries[q.query_id] = q
            box.put(msg)

        self._send("agent.query", params, started)
        try:
            msg = box.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"agent.query: no answer from the gateway within {self.timeout}s") from None
        if msg.get("_lost"):
            raise ConnectionError(msg["error"]["message"])
        e = msg.get("error")
        if e is not None:
            raise RPCError(e.get("code", CODE_AGENT_ERROR), e.get("message", ""), e.get("data"))
        if not q.query_id:
            raise RPCError(CODE_AGENT_ERROR, "agent.query answered without a query_id")
        return q

    def query(self, to: str, *, on_event: Callable[[StreamEvent], None] | None = None, **kw: Any) -> Any:
        """Runs agent.query to its end and returns the result (a dict); on_event, if given,
        receives each StreamEvent as it arrives. Takes stream's parameters. RPCError when the
        query fails, times out (status timeout) or is cancelled (code -32004)."""
        q = self.stream(to, **kw)
        try:
            for ev in q:
                if on_event is not None:
                    on_event(ev)
        except BaseException:
            q.cancel()
            raise
        return q.wait()

    def cancel(self, query_id: str) -> dict:
        """Cancels a running query by id, from any connection."""
        return self.call("agent.cancel", {"query_id": query_id})

    # The rest of the face.

    def ping(self, agent: str) -> dict:
        """agent.ping: an agent's status, load and active capabilities."""
        return self.call("agent.ping", {"agent": agent})

    def discover(self, document: dict | None = None, **fields: Any) -> dict:
        """directory.discover: the discovery document (capability, requirements, filters,
        sort, limit up to 100, org for a peer's directory), given as a dict or as keywords."""
        doc = dict(document or {})
        doc.update(fields)
        return self.call("directory.discover", doc)

    def sync(self, peer: str | None = None) -> dict:
        """directory.sync: pulls one peer's registry now, or every peer's."""
        return self.call("directory.sync", {"peer": peer} if peer else {})

    def issue_consent(
        self,
        grantee: str,
        purpose: str,
        data_types: list[str],
        *,
        ttl: str | None = None,
        ttl_seconds: int | None = None,
        granted_by: str | None = None,
    ) -> str:
        """consent.issue: a consent token for grantee ("agent@org"); default lifetime an hour."""
        params: dict[str, Any] = {"grantee": grantee, "purpose": purpose, "data_types": list(data_types)}
        if ttl is not None:
            params["ttl"] = ttl
        if ttl_seconds is not None:
            params["ttl_seconds"] = ttl_seconds
        if granted_by is not None:
            params["granted_by"] = granted_by
        return self.call("consent.issue", params)["token"]

    def request_consent(
        self,
        to: str,
        data_types: list[str],
        purpose: str,
        *,
        from_agent: str | None = None,
        duration: str | None = None,
        human: str | None = None,
    ) -> dict:
        """consent.request: asks a peer's agent for consent; the answer has granted, and proof
        (the token to pass as a query's consent) or reason."""
        params: dict[str, Any] = {"to": to, "data_types": list(data_types), "purpose": purpose}
        for k, v in (("from", from_agent), ("duration", duration), ("human", human)):
            if v is not None:
                params[k] = v
        return self.call("consent.request", params)

    def approvals(self) -> list[dict]:
        """approvals.list: the calls waiting for a human's decision, oldest first."""
        return self.call("approvals.list", {})["pending"]

    def approve(self, execution_id: str, approved: bool = True) -> dict:
        """tool.approve: lets a held call run (or, with approved=False, refuses it)."""
        return self.call("tool.approve", {"execution_id": execution_id, "approved": approved})

    def deny(self, execution_id: str) -> dict:
        """tool.approve with approved false."""
        return self.approve(execution_id, False)

    # The terminal's context, its saved sessions, and the gateway's event stream.

    def update_context(self, members: dict) -> dict:
        """context.update: merges members into this connection's context (None drops one);
        every later query of the connection carries it to the agent as the call's context."""
        return self.call("context.update", dict(members))

    def save_session(self, session_id: str, include_history: bool = True) -> dict:
        """session.save: keeps this connection's context and its last queries under
        session_id in the gateway's session store."""
        return self.call("session.save", {"id": session_id, "include_history": include_history})

    def load_session(self, session_id: str) -> dict:
        """session.load: makes a saved session this connection's; returns it."""
        return self.call("session.load", {"id": session_id})["session"]

    def subscribe_events(self, on_event: Callable[[dict], None], after: str | None = None) -> dict:
        """events.subscribe: on_event is called on the reading thread with each event of the
        gateway's stream (id, session_id, type, payload, created_at), from now on or after the
        event id after; a {"type": "stream.dropped"} event says the connection read too slowly
        and was unsubscribed. It must not block. Returns the answer (stream_id, missed)."""
        self._on_event = on_event
        return self.call("events.subscribe", {"after": after} if after is not None else {})

    def unsubscribe_events(self) -> bool:
        """events.unsubscribe: whether there was a subscription."""
        return self.call("events.unsubscribe", {})["unsubscribed"]
