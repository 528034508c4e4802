"""The caller against a scripted JSON-RPC end on a Unix socket; the real face is
e2e/python_test.go's."""

import json
import os
import socket
import tempfile
import threading
import time
import unittest

from moltgate import Caller, RPCError

TIMEOUT = 10


class Face:
    """The gateway's end: answers initialize, then hands each request to the test."""

    def __init__(self, path):
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(1)
        self.listener.settimeout(TIMEOUT)
        self.conn = None
        self.buf = b""
        self.init_params = None
        self.ready = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        self.conn, _ = self.listener.accept()
        self.conn.settimeout(TIMEOUT)
        req = self.recv()
        self.init_params = req["params"]
        self.reply(req, {"status": "ready", "protocol_version": "1.0.0",
                         "server_info": {"name": "moltgate", "version": "moltgate 0.1.0"},
                         "capabilities": [], "methods": ["initialize", "agent.query"]})
        self.ready.set()

    def recv(self):
        while b"\n" not in self.buf:
            chunk = self.conn.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def send(self, msg):
        self.conn.sendall(json.dumps(msg).encode() + b"\n")

    def reply(self, req, result):
        self.send({"jsonrpc": "2.0", "id": req["id"], "result": result})

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self):
        if self.conn:
            self.conn.close()
        self.listener.close()


class CallerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        os.mkdir(os.path.join(self.dir.name, "run"))
        self.face = Face(os.path.join(self.dir.name, "run", "rpc.sock"))
        self.approvals = []
        self.c = Caller(dir=self.dir.name, name="t", on_approval=lambda m, p: self.approvals.append((m, p)), timeout=TIMEOUT)
        self.assertTrue(self.face.ready.wait(TIMEOUT))

    def tearDown(self):
        self.c.close()
        self.face.close()
        self.dir.cleanup()

    def serve(self, fn):
        t = threading.Thread(target=fn, daemon=True)
        t.start()
        return t

    def test_initialize(self):
        self.assertEqual(self.face.init_params, {"protocol_version": "1.0.0",
                                                 "client_info": {"name": "t", "version": __import__("moltgate").__version__},
                                                 "capabilities": ["tool_approval"]})
        self.assertEqual(self.c.server["status"], "ready")

    def test_query_streams_then_completes(self):
        def face():
            req = self.face.recv()
            self.assertEqual(req["method"], "agent.query")
            self.assertEqual(req["params"], {"to": "echo@globex", "tool": "echo", "input": {"text": "hi"}, "from": "client"})
            self.face.reply(req, {"query_id": "q-1", "status": "processing"})
            self.face.notify("stream.token", {"query_id": "q-1", "token": "h", "index": 0,
                                              "metadata": {"type": "text", "channel": "stdout"}})
            self.face.notify("stream.token", {"query_id": "q-other", "token": "not ours", "index": 0, "metadata": {}})
            self.face.notify("stream.block", {"query_id": "q-1", "block_id": "q-1-b1", "block": {
                "type": "tool_output", "format": "json", "content": {"step": 1}, "metadata": {"channel": "partial_result"}}})
            self.face.notify("stream.complete", {"query_id": "q-1", "status": "success", "result": {"text": "hi"},
                                                 "metadata": {"tokens": 1, "blocks": 1, "duration_ms": 3}})

        t = self.serve(face)
        events = []
        out = self.c.query("echo@globex", tool="echo", input={"text": "hi"}, from_agent="client", on_event=events.append)
        t.join(TIMEOUT)
        self.assertEqual(out, {"text": "hi"})
        self.assertEqual([(e.text, e.block, e.channel) for e in events],
                         [("h", None, "stdout"), ("", {"step": 1}, "partial_result")])

    def test_lines_split_across_reads_and_joined_in_one(self):
        big = "x" * 300_000

        def face():
            req = self.face.recv()
            line = json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": {"query_id": "q-4"}}).encode() + b"\n"
            done = json.dumps({"jsonrpc": "2.0", "method": "stream.complete", "params": {
                "query_id": "q-4", "status": "success", "result": {"big": big}}}).encode() + b"\n"
            self.face.conn.sendall(line + done[:100])
            time.sleep(0.05)
            self.face.conn.sendall(done[100:200_000])
            time.sleep(0.05)
            self.face.conn.sendall(done[200_000:])

        self.serve(face)
        self.assertEqual(self.c.query("echo", message="hi"), {"big": big})

    def test_failed_query_raises_the_stream_error(self):
        def face():
            req = self.face.recv()
            self.face.reply(req, {"query_id": "q-2", "status": "processing"})
            self.face.notify("stream.error", {"query_id": "q-2", "error": {
                "code": -32003, "message": "the call's deadline passed",
                "data": {"moltspeak_code": "E_TIMEOUT", "recoverable": True, "status": "timeout"}}})
            self.face.notify("stream.complete", {"query_id": "q-2", "status": "timeout", "metadata": {}})

        self.serve(face)
        with self.assertRaises(RPCError) as cm:
            self.c.query("echo", message="hello")
        e = cm.exception
        self.assertEqual((e.code, e.moltspeak_code, e.status, e.recoverable), (-32003, "E_TIMEOUT", "timeout", True))

    def test_cancel(self):
        def face():
            req = self.face.recv()
            self.face.reply(req, {"query_id": "q-3", "status": "processing"})
            self.face.notify("stream.token", {"query_id": "q-3", "token": "1", "index": 0, "metadata": {"channel": "stdout"}})
            cancel = self.face.recv()
            self.assertEqual((cancel["method"], cancel["params"]), ("agent.cancel", {"query_id": "q-3"}))
            self.face.reply(cancel, {"cancelled": True, "query_id": "q-3"})
            self.face.notify("stream.complete", {"query_id": "q-3", "status": "cancelled", "metadata": {}})

        self.serve(face)
        q = self.c.stream("echo", tool="wait", input={})
        for ev in q:
            q.cancel()
        with self.assertRaises(RPCError) as cm:
            q.wait()
        self.assertEqual((cm.exception.code, q.status), (-32004, "cancelled"))

    def test_error_answers(self):
        def face():
            req = self.face.recv()
            self.face.send({"jsonrpc": "2.0", "id": req["id"], "error": {
                "code": -32602, "message": "grantee must name an agent as agent@org", "data": {"field": "grantee"}}})
            # An error under a null id answers whatever is waiting: its id could not be read.
            self.face.recv()
            self.face.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})

        self.serve(face)
        with self.assertRaises(RPCError) as cm:
            self.c.issue_consent("nobody", "testing", ["email"])
        self.assertEqual((cm.exception.code, cm.exception.field), (-32602, "grantee"))
        with self.assertRaises(RPCError) as cm:
            self.c.approvals()
        self.assertEqual(cm.exception.code, -32700)

    def test_approval_notifications_and_lost_connection(self):
        def face():
            self.face.notify("tool.request_approval", {"execution_id": "x-1", "agent": "probe"})
            self.face.notify("tool.approval_resolved", {"execution_id": "x-1", "status": "approved"})
            req = self.face.recv()
            self.assertEqual(req["params"], {"execution_id": "x-1", "approved": False})
            self.face.conn.close()

        t = self.serve(face)
        with self.assertRaisesRegex(ConnectionError, "ended|closed"):
            self.c.deny("x-1")
        t.join(TIMEOUT)
        self.assertEqual([m for m, _ in self.approvals], ["tool.request_approval", "tool.approval_resolved"])
        with self.assertRaisesRegex(ConnectionError, "lost"):
            self.c.ping("probe")

    def test_context_sessions_and_events(self):
        got = []

        def face():
            req = self.face.recv()
            self.assertEqual((req["method"], req["params"]), ("context.update", {"cwd": "/srv/app", "shell": None}))
            self.face.reply(req, {"ok": True, "members": 2})
            req = self.face.recv()
            self.assertEqual((req["method"], req["params"]), ("session.save", {"id": "deploy", "include_history": True}))
            self.face.reply(req, {"saved": True, "id": "deploy", "size": 99, "messages_count": 0})
            req = self.face.recv()
            self.assertEqual((req["method"], req["params"]), ("session.load", {"id": "deploy"}))
            self.face.reply(req, {"loaded": True, "session": {"id": "deploy", "context": {"cwd": "/srv/app"}}})
            req = self.face.recv()
            self.assertEqual((req["method"], req["params"]), ("events.subscribe", {"after": "41"}))
            self.face.reply(req, {"subscribed": True, "stream_id": "s1"})
            self.face.notify("event", {"id": "42", "session_id": "s1", "type": "agent.updated",
                                       "payload": {"id": "greeter", "status": "ok"}, "created_at": "2026-11-26T12:00:07.002Z"})
            req = self.face.recv()
            self.assertEqual(req["method"], "events.unsubscribe")
            self.face.reply(req, {"unsubscribed": True})

        t = self.serve(face)
        self.assertEqual(self.c.update_context({"cwd": "/srv/app", "shell": None}), {"ok": True, "members": 2})
        self.assertTrue(self.c.save_session("deploy")["saved"])
        self.assertEqual(self.c.load_session("deploy")["context"], {"cwd": "/srv/app"})
        self.assertEqual(self.c.subscribe_events(got.append, after="41")["stream_id"], "s1")
        deadline = time.monotonic() + TIMEOUT
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual([(e["id"], e["type"]) for e in got], [("42", "agent.updated")])
        self.assertTrue(self.c.unsubscribe_events())
        t.join(TIMEOUT)

    def test_a_socket_that_is_not_there(self):
        with self.assertRaisesRegex(ConnectionError, "cannot connect to the gateway's JSON-RPC socket .*nowhere"):
            Caller("/nonexistent/nowhere.sock")
        with self.assertRaisesRegex(ValueError, "dir="):
            Caller()


if __name__ == "__main__":
    unittest.main()
