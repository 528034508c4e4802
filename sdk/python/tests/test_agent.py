"""The agent against a scripted gateway end of a socket pair. The real gateway is
e2e/python_test.go's; here each exchange of the protocol is driven on purpose."""

import asyncio
import os
import socket
import struct
import tempfile
import threading
import time
import unittest

from moltgate import Agent, Cancelled, ConnectionLost, GoodbyeError, ProtocolError, RegistrationError, ToolError, Unauthorized
from moltgate import protocol as p

TIMEOUT = 10


class Gateway:
    """The gateway's end of one agent connection."""

    def __init__(self, sock):
        self.sock = sock
        sock.settimeout(TIMEOUT)
        self.reader = p.FrameReader(sock, p.DEFAULT_MAX_FRAME_BYTES)
        self.heartbeats = []

    def send(self, type_, payload=None, **header):
        msg = p.envelope(type_, payload, **header)
        self.sock.sendall(p.encode(msg))
        return msg

    def recv(self, keep_heartbeats=False):
        while True:
            msg = p.decode(self.reader.read())
            if msg["type"] == p.HEARTBEAT and not keep_heartbeats:
                self.heartbeats.append(msg)
                continue
            return msg

    def welcome(self, interval_ms=5000, agent_key=None):
        hello = self.recv()
        w = {"accepted_version": 1, "session_id": "s-1", "heartbeat_interval_ms": interval_ms,
             "max_frame_bytes": p.DEFAULT_MAX_FRAME_BYTES,
             "server": {"core_version": "moltgate", "instance_id": "i-1"}}
        if agent_key:
            w["agent_key"] = agent_key
        self.send(p.WELCOME, w, in_reply_to=hello["id"])
        reg = self.recv()
        self.send(p.TOOLS_REGISTERED, {"registered": [t["tool_id"] for t in reg["payload"]["tools"]]},
                  in_reply_to=reg["id"])
        return hello, reg

    def call(self, tool, input, call_id="c-1", **payload):
        return self.send(p.TOOL_CALL, {"call_id": call_id, "tool_id": "a1/" + tool, "input": input, **payload},
                         request_id="r-1", correlation_id="corr-1")

    def result(self, call_id="c-1"):
        """The call's chunks and its result."""
        chunks = []
        while True:
            m = self.recv()
            if m["type"] == p.TOOL_STREAM and m["payload"]["call_id"] == call_id:
                chunks.append(m)
            elif m["type"] == p.TOOL_RESULT and m["payload"]["call_id"] == call_id:
                return chunks, m


class Running:
    """An agent serving one end of a socket pair on a thread of its own."""

    def __init__(self, agent, token="ostok_test"):
        a, b = socket.socketpair()
        self.agent = agent
        self.gw = Gateway(b)
        self.error = None
        self.thread = threading.Thread(target=self._serve, args=(a, token), daemon=True)
        self.thread.start()

    def _serve(self, sock, token):
        try:
            self.agent.serve(sock, token)
        except BaseException as e:  # the test looks at it
            self.error = e

    def join(self):
        self.thread.join(TIMEOUT)
        if self.thread.is_alive():
            raise AssertionError("the agent did not stop")
        self.gw.sock.close()
        return self.error


def make_agent(**kw):
    agent = Agent(id="a1", version="2.0.0", **kw)

    @agent.tool(description="Echoes.", input_schema={"type": "object", "properties": {"text": {"type": "string"}}})
    def echo(call):
        for _ in range(call.input.get("repeat", 0)):
            call.stream(call.input["text"])
        return {"text": call.input["text"]}

    @agent.tool()
    def wait(call):
        """Waits until cancelled."""
        call.stream("waiting")
        call.sleep(60)
        return {}

    return agent


class HandshakeTest(unittest.TestCase):
    def test_hello_register_and_first_heartbeat(self):
        r = Running(make_agent())
        hello = r.gw.recv()
        self.assertEqual(hello["type"], p.HELLO)
        self.assertEqual(hello["payload"], {
            "session_token": "ostok_test", "agent_id": "a1", "agent_version": "2.0.0",
            "protocol": {"supported_versions": [1], "capabilities": ["tools", "streaming", "cancellation"]},
            "sdk": {"name": "moltgate-python-agent", "version": __import__("moltgate").__version__},
        })
        r.gw.send(p.WELCOME, {"accepted_version": 1, "session_id": "s-9", "heartbeat_interval_ms": 50,
                              "max_frame_bytes": 1 << 20}, in_reply_to=hello["id"])
        # The first heartbeat goes out at once, beside the registration.
        first = {m["type"]: m for m in (r.gw.recv(keep_heartbeats=True), r.gw.recv(keep_heartbeats=True))}
        self.assertEqual(set(first), {p.HEARTBEAT, p.TOOLS_REGISTER})
        hb, reg = first[p.HEARTBEAT], first[p.TOOLS_REGISTER]
        self.assertEqual(hb["payload"]["session_id"], "s-9")
        self.assertEqual(hb["payload"]["status"], "ok")
        self.assertEqual(hb["payload"]["inflight_calls"], 0)
        self.assertEqual(hb["payload"]["details"], {"queue_depth": 0})
        self.assertTrue(reg["payload"]["replace"])
        self.assertEqual([t["tool_id"] for t in reg["payload"]["tools"]], ["a1/echo", "a1/wait"])
        self.assertEqual(reg["payload"]["tools"][1]["description"], "Waits until cancelled.")
        self.assertEqual(reg["payload"]["tools"][1]["input_schema"], {"type": "object"})
        # Heartbeats keep coming at the interval the gateway gave.
        beats = [r.gw.recv(keep_heartbeats=True) for _ in range(2)]
        self.assertEqual({b["type"] for b in beats}, {p.HEARTBEAT})
        r.gw.send(p.GOODBYE, {"reason": "shutting_down"})
        self.assertIsNone(r.join())

    def test_refused_token(self):
        r = Running(make_agent())
        hello = r.gw.recv()
        r.gw.send(p.WELCOME, {}, in_reply_to=hello["id"],
                  error={"code": "protocol.unauthorized", "message": "authentication failed"})
        self.assertIsInstance(r.join(), Unauthorized)

    def test_rejected_tool(self):
        r = Running(make_agent())
        hello = r.gw.recv()
        r.gw.send(p.WELCOME, {"accepted_version": 1, "session_id": "s", "heartbeat_interval_ms": 5000,
                              "max_frame_bytes": 1 << 20}, in_reply_to=hello["id"])
        reg = r.gw.recv()
        r.gw.send(p.TOOLS_REGISTERED, {"registered": ["a1/echo"], "rejected": [
            {"tool_id": "a1/wait", "error": {"code": "tool.invalid_schema", "message": "input_schema: bad"}}]},
            in_reply_to=reg["id"])
        err = r.join()
        self.assertIsInstance(err, RegistrationError)
        self.assertIn("a1/wait (tool.invalid_schema: input_schema: bad)", str(err))

    def test_goodbye_for_another_reason_is_an_error(self):
        r = Running(make_agent())
        r.gw.welcome()
        r.gw.send(p.GOODBYE, {"reason": "heartbeat_timeout", "retry_after_ms": 1500})
        err = r.join()
        self.assertIsInstance(err, GoodbyeError)
        self.assertEqual((err.reason, err.retry_after), ("heartbeat_timeout", 1.5))

    def test_a_frame_over_the_limit_ends_the_session(self):
        r = Running(make_agent())
        r.gw.welcome()
        r.gw.sock.sendall(struct.pack(">I", p.DEFAULT_MAX_FRAME_BYTES + 1))
        err = r.join()
        self.assertIsInstance(err, ProtocolError)
        self.assertIn("exceeds the limit", str(err))

    def test_a_malformed_message_is_logged_and_skipped(self):
        r = Running(make_agent())
        r.gw.welcome()
        with self.assertLogs("moltgate", "WARNING") as logs:
            r.gw.sock.sendall(p.encode_frame(b'{"v":1,"type":"core.ping","id":"a","id":"b"}'))
            ping = r.gw.send(p.PING, {})
            self.assertEqual(r.gw.recv()["in_reply_to"], ping["id"])
        self.assertIn("named twice", logs.output[0])
        r.gw.send(p.GOODBYE, {"reason": "shutting_down"})
        self.assertIsNone(r.join())

    def test_ping_is_answered(self):
        r = Running(make_agent())
        r.gw.welcome()
        ping = r.gw.send(p.PING, {})
        pong = r.gw.recv()
        self.assertEqual((pong["type"], pong["in_reply_to"]), (p.PONG, ping["id"]))
        r.gw.send(p.GOODBYE, {"reason": "shutting_down"})
        self.assertIsNone(r.join())

    def test_bad_tools_are_refused_when_added(self):
        a = Agent(id="a1")
        for name in ("", "a..b", "a.", "x" * 129, "has space"):
            with self.assertRaises(ValueError, msg=name):
                a.add(__import__("moltgate").Tool(name=name, handler=lambda c: None))
        a.tool(name="dup")(lambda c: None)
        with self.assertRaisesRegex(ValueError, "added twice"):
            a.tool(name="dup")(lambda c: None)


class CallTest(unittest.TestCase):
    def setUp(self):
        self.r = Running(make_agent())
        self.gw = self.r.gw
        self.gw.welcome()

    def tearDown(self):
        self.gw.send(p.GOODBYE, {"reason": "shutting_down"})
        self.assertIsNone(self.r.join())

    def add(self, fn, name=None):
        self.r.agent.tool(name=name or fn.__name__)(fn)

    def test_stream_then_result(self):
        self.gw.call("echo", {"text": "hi", "repeat": 3})
        chunks, res = self.gw.result()
        self.assertEqual([c["payload"]["seq"] for c in chunks], [1, 2, 3])
        self.assertEqual({c["payload"]["channel"] for c in chunks}, {"stdout"})
        self.assertEqual(chunks[0]["payload"]["data"], {"text": "hi"})
        self.assertEqual((res["request_id"], res["correlation_id"]), ("r-1", "corr-1"))
        self.assertEqual(res["payload"]["status"], "succeeded")
        self.assertEqual(res["payload"]["output"], {"text": "hi"})
        self.assertRegex(res["payload"]["started_at"], r"Z$")

    def test_cancel_is_acknowledged_and_ends_the_call(self):
        self.gw.call("wait", {})
        first = self.gw.recv()
        self.assertEqual(first["payload"]["data"], {"text": "waiting"})
        cancel = self.gw.send(p.TOOL_CANCEL, {"call_id": "c-1", "reason": "canceled", "deadline_ms": 30000},
                              request_id="r-1")
        msgs = [self.gw.recv(), self.gw.recv()]
        ack = next(m for m in msgs if m["type"] == p.CANCEL_ACK)
        res = next(m for m in msgs if m["type"] == p.TOOL_RESULT)
        self.assertEqual(ack["in_reply_to"], cancel["id"])
        self.assertEqual(ack["payload"], {"call_id": "c-1", "accepted": True})
        self.assertEqual(res["payload"]["status"], "canceled")
        self.assertEqual(res["payload"]["error"]["code"], "tool.canceled")

    def test_cancel_of_an_unknown_call_is_not_accepted(self):
        self.gw.send(p.TOOL_CANCEL, {"call_id": "nope", "reason": "canceled"})
        ack = self.gw.recv()
        self.assertEqual(ack["payload"], {"call_id": "nope", "accepted": False})

    def test_cancel_as_an_event(self):
        seen = {}

        def poll(call):
            call.stream("go")
            seen["set"] = call.cancelled.wait(TIMEOUT)
            seen["reason"] = call.cancel_reason
            return {"stopped": True}  # a tool may still answer after a cancel

        self.add(poll)
        self.gw.call("poll", {})
        self.gw.recv()
        self.gw.send(p.TOOL_CANCEL, {"call_id": "c-1", "reason": "caller_stopped"})
        _, res = self.gw.result()
        self.assertEqual(seen, {"set": True, "reason": "caller_stopped"})
        self.assertEqual(res["payload"]["status"], "succeeded")

    def test_async_tool_is_cancelled_as_a_task(self):
        seen = {}

        async def slow(call):
            call.stream("go")
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                seen["cancelled"] = True
                raise

        self.add(slow)
        self.gw.call("slow", {})
        self.gw.recv()
        self.gw.send(p.TOOL_CANCEL, {"call_id": "c-1", "reason": "canceled"})
        _, res = self.gw.result()
        self.assertEqual(res["payload"]["status"], "canceled")
        self.assertTrue(seen["cancelled"])

    def test_timeout(self):
        self.gw.call("wait", {}, timeout_ms=50)
        _, res = self.gw.result()
        self.assertEqual(res["payload"]["status"], "failed")
        self.assertEqual(res["payload"]["error"]["code"], "tool.timeout")

    def test_failures(self):
        def own(call):
            raise ToolError("tool.out_of_stock", "no widgets", retryable=True)

        def crash(call):
            raise KeyError("secret-key-name")

        def cancel_raised(call):
            raise Cancelled()

        for fn in (own, crash, cancel_raised):
            self.add(fn)
        cases = {
            "own": ("failed", {"code": "tool.out_of_stock", "message": "no widgets", "retryable": True}),
            "crash": ("failed", {"code": "tool.internal", "message": "the tool failed unexpectedly (KeyError)"}),
            "cancel_raised": ("canceled", {"code": "tool.canceled", "message": "the call was cancelled"}),
            "missing": ("failed", {"code": "tool.not_found", "message": "no such tool"}),
        }
        with self.assertLogs("moltgate", "ERROR"):
            for i, (tool, (status, err)) in enumerate(cases.items()):
                self.gw.call(tool, {}, call_id=f"c-{i}")
                _, res = self.gw.result(f"c-{i}")
                self.assertEqual((res["payload"]["status"], res["payload"]["error"]), (status, err), tool)

    def test_outputs(self):
        def none(call):
            return None

        def number(call):
            return 7

        def nan(call):
            return {"x": float("nan")}

        def partial(call):
            call.partial({"step": 1})
            call.status("half")
            call.log("a log line")
            return {}

        for fn in (none, number, nan, partial):
            self.add(fn)
        self.gw.call("none", {}, call_id="n")
        self.assertEqual(self.gw.result("n")[1]["payload"]["output"], {})
        self.gw.call("number", {}, call_id="k")
        self.assertEqual(self.gw.result("k")[1]["payload"]["output"], {"result": 7})
        self.gw.call("nan", {}, call_id="x")
        self.assertEqual(self.gw.result("x")[1]["payload"]["error"]["code"], "tool.output_malformed")
        self.gw.call("partial", {}, call_id="p")
        chunks, _ = self.gw.result("p")
        self.assertEqual([(c["payload"]["channel"], c["payload"]["data"]) for c in chunks],
                         [("partial_result", {"json": {"step": 1}}), ("status", {"text": "half"}),
                          ("log", {"text": "a log line"})])

    def test_call_metadata(self):
        seen = {}

        def meta(call):
            seen.update(caller=call.caller, context=call.context, idem=call.idempotency_key,
                        deadline=call.deadline is not None, tool=call.tool)
            return {}

        self.add(meta)
        self.gw.call("meta", {}, caller={"type": "agent", "id": "bob@globex"}, context={"k": "v"},
                     idempotency_key="once", timeout_ms=60000)
        self.gw.result()
        self.assertEqual(seen, {"caller": {"type": "agent", "id": "bob@globex"}, "context": {"k": "v"},
                                "idem": "once", "deadline": True, "tool": "meta"})


class ConcurrencyTest(unittest.TestCase):
    def test_calls_beyond_max_concurrent_wait_and_are_reported(self):
        agent = make_agent(max_concurrent=1)
        r = Running(agent)
        r.gw.welcome(interval_ms=20)
        r.gw.call("wait", {}, call_id="c-1")
        r.gw.recv()  # waiting
        r.gw.call("echo", {"text": "x"}, call_id="c-2")
        deadline = time.monotonic() + TIMEOUT
        while True:
            hb = r.gw.recv(keep_heartbeats=True)
            if hb["type"] == p.HEARTBEAT and hb["payload"]["details"]["queue_depth"] == 1:
                break
            self.assertLess(time.monotonic(), deadline)
        self.assertEqual(hb["payload"]["inflight_calls"], 1)
        r.gw.send(p.TOOL_CANCEL, {"call_id": "c-1", "reason": "canceled"})
        _, res = r.gw.result("c-2")  # runs once the first is cancelled
        self.assertEqual(res["payload"]["output"], {"text": "x"})
        r.gw.send(p.GOODBYE, {"reason": "shutting_down"})
        self.assertIsNone(r.join())

    def test_rename_sends_agent_update(self):
        agent = make_agent()
        with self.assertRaises(ConnectionLost):
            agent.rename("Before")
        r = Running(agent)
        r.gw.welcome()
        agent.rename("Greeter of Guests")
        m = r.gw.recv()
        self.assertEqual(m["type"], p.AGENT_UPDATE)
        self.assertEqual(m["payload"], {"id": "a1", "name": "Greeter of Guests"})
        r.gw.send(p.GOODBYE, {"reason": "shutting_down"})
        self.assertIsNone(r.join())

    def test_health_is_reported(self):
        agent = make_agent(health=lambda: ("degraded", {"db": "slow"}))
        r = Running(agent)
        r.gw.welcome()
        hb = r.gw.heartbeats[0] if r.gw.heartbeats else r.gw.recv(keep_heartbeats=True)
        self.assertEqual(hb["payload"]["status"], "degraded")
        self.assertEqual(hb["payload"]["details"], {"db": "slow", "queue_depth": 0})
        r.gw.send(p.GOODBYE, {"reason": "shutting_down"})
        self.assertIsNone(r.join())


class RunTest(unittest.TestCase):
    """run() on a listening socket: the environment, and reconnecting."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "core.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(4)
        self.listener.settimeout(TIMEOUT)

    def tearDown(self):
        self.listener.close()
        self.dir.cleanup()

    def accept(self):
        conn, _ = self.listener.accept()
        return Gateway(conn)

    def test_token_comes_from_the_environment_and_leaves_it(self):
        agent = make_agent()
        os.environ.update(OPENSENTIENCE_SOCKET=self.path, OPENSENTIENCE_TOKEN="ostok_env")
        self.addCleanup(os.environ.pop, "OPENSENTIENCE_SOCKET", None)
        t = threading.Thread(target=agent.run, daemon=True)
        t.start()
        gw = self.accept()
        hello, _ = gw.welcome()
        self.assertEqual(hello["payload"]["session_token"], "ostok_env")
        self.assertNotIn("OPENSENTIENCE_TOKEN", os.environ)
        agent.stop()
        t.join(TIMEOUT)
        self.assertFalse(t.is_alive())
        gw.sock.close()

    def test_a_lost_connection_without_a_token_source_ends_run(self):
        agent = make_agent()
        errors = []
        t = threading.Thread(target=lambda: self._run(agent, errors, {}), daemon=True)
        t.start()
        gw = self.accept()
        gw.welcome()
        gw.sock.close()
        t.join(TIMEOUT)
        self.assertEqual([type(e).__name__ for e in errors], ["ConnectionLost"])

    def test_reconnects_with_a_fresh_token_from_the_source(self):
        agent = make_agent()
        tokens = iter(["ostok_second", "ostok_third"])
        errors = []
        t = threading.Thread(target=lambda: self._run(agent, errors, {"token_source": lambda: next(tokens)}),
                             daemon=True)
        watch = self.assertLogs("moltgate", "WARNING")
        logs = watch.__enter__()
        t.start()
        first = self.accept()
        self.assertEqual(first.welcome()[0]["payload"]["session_token"], "ostok_first")
        first.sock.close()
        second = self.accept()
        self.assertEqual(second.welcome()[0]["payload"]["session_token"], "ostok_second")
        second.send(p.GOODBYE, {"reason": "heartbeat_timeout", "retry_after_ms": 10})
        third = self.accept()
        self.assertEqual(third.welcome()[0]["payload"]["session_token"], "ostok_third")
        third.send(p.GOODBYE, {"reason": "replaced"})  # another connection took over: no retry
        t.join(TIMEOUT)
        watch.__exit__(None, None, None)
        self.assertEqual([(type(e).__name__, getattr(e, "reason", "")) for e in errors], [("GoodbyeError", "replaced")])
        self.assertEqual(len(logs.records), 2)
        self.assertIn("connecting again", logs.records[0].getMessage())
        for g in (second, third):
            g.sock.close()

    def test_reconnects_with_its_key_and_keeps_it_across_restarts(self):
        key_file = os.path.join(self.dir.name, "agent.key")
        agent = make_agent()
        errors = []
        t = threading.Thread(target=lambda: self._run(agent, errors, {"key_file": key_file}), daemon=True)
        watch = self.assertLogs("moltgate", "WARNING")
        watch.__enter__()
        t.start()
        first = self.accept()
        self.assertEqual(first.welcome(agent_key="oskey_bound")[0]["payload"]["session_token"], "ostok_first")
        with open(key_file, encoding="ascii") as f:
            self.assertEqual(f.read(), "oskey_bound\n")
        self.assertEqual(os.stat(key_file).st_mode & 0o777, 0o600)
        first.sock.close()  # lost without a goodbye: the key connects again, no token source needed
        second = self.accept()
        self.assertEqual(second.welcome()[0]["payload"]["session_token"], "oskey_bound")
        second.send(p.GOODBYE, {"reason": "revoked"})  # the operator revoked it: no retry
        t.join(TIMEOUT)
        watch.__exit__(None, None, None)
        self.assertEqual([(type(e).__name__, getattr(e, "reason", "")) for e in errors], [("GoodbyeError", "revoked")])
        second.sock.close()

        # A new process of the agent finds the key in its file and needs no token.
        again = make_agent()
        t = threading.Thread(target=lambda: again.run(self.path, "", key_file=key_file), daemon=True)
        t.start()
        third = self.accept()
        self.assertEqual(third.welcome()[0]["payload"]["session_token"], "oskey_bound")
        again.stop()
        t.join(TIMEOUT)
        third.sock.close()

    def _run(self, agent, errors, kw):
        try:
            agent.run(self.path, "ostok_first", **kw)
        except Exception as e:
            errors.append(e)


if __name__ == "__main__":
    unittest.main()
