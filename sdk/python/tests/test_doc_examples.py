"""docs/protocol.md's agent socket examples, played to the example agent: the SDK reads
every example, and what it sends has the members the examples show.
(docs/protocol_examples_test.go holds the same examples to the gateway's own code.)"""

import importlib.util
import json
import os
import re
import unittest

from moltgate import protocol as p

from .test_agent import Running

SDK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(os.path.dirname(os.path.dirname(SDK)), "docs", "protocol.md")


def examples():
    """Each `json agent` block of the document, decoded, by type."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    out = {}
    for block in re.findall(r"^```json agent\n(.*?)^```$", text, re.M | re.S):
        msg = p.decode(p.dumps(json.loads(block)))
        out.setdefault(msg["type"], []).append(msg)
    return out


def shape(v):
    """The members of a message, recursively, without the values."""
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    return type(v).__name__


def example_agent():
    spec = importlib.util.spec_from_file_location("example_agent", os.path.join(SDK, "examples", "agent.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.agent.id = "greeter"
    return mod.agent


class DocExamplesTest(unittest.TestCase):
    def test_every_message_type_has_an_example_the_sdk_reads(self):
        ex = examples()
        for t in (p.HELLO, p.WELCOME, p.GOODBYE, p.TOOLS_REGISTER, p.TOOLS_REGISTERED, p.TOOLS_UNREGISTER,
                  p.TOOLS_UNREGISTERED, p.TOOL_CALL, p.TOOL_STREAM, p.TOOL_RESULT, p.TOOL_CANCEL, p.CANCEL_ACK,
                  p.HEARTBEAT, p.PING, p.PONG, p.ERROR):
            self.assertIn(t, ex)

    def test_the_example_agent_speaks_as_the_examples_show(self):
        ex = examples()

        def same_members(got, want, *, ignore=()):
            g, w = shape(got), shape(want)
            for k in ignore:
                g.pop(k, None)
                w.pop(k, None)
            self.assertEqual(g, w, got["type"])

        r = Running(example_agent(), token="ostok_pDRZhkiVllIMnadPbE9hAKxNwaxQBdWfW10G_87JnwY")
        gw = r.gw
        hello = gw.recv()
        same_members(hello, ex[p.HELLO][0])
        welcome = ex[p.WELCOME][0]
        gw.sock.sendall(p.encode(dict(welcome, in_reply_to=hello["id"])))
        reg = gw.recv()
        doc_reg = ex[p.TOOLS_REGISTER][0]
        self.assertEqual(set(reg["payload"]), set(doc_reg["payload"]))
        doc_tool_members = set().union(*(t.keys() for t in doc_reg["payload"]["tools"]))
        for tool in reg["payload"]["tools"]:
            self.assertLessEqual(set(tool), doc_tool_members)
            self.assertTrue(tool["tool_id"].startswith("greeter/"))
        gw.send(p.TOOLS_REGISTERED, {"registered": [t["tool_id"] for t in reg["payload"]["tools"]]},
                in_reply_to=reg["id"])

        call = ex[p.TOOL_CALL][0]  # greeter/count, n = 3
        gw.sock.sendall(p.encode(call))
        chunks, result = gw.result(call["payload"]["call_id"])
        self.assertEqual([c["payload"]["data"]["text"] for c in chunks], ["1\n", "2\n", "3\n"])
        text_example = next(m for m in ex[p.TOOL_STREAM] if m["payload"]["channel"] == "stdout")
        same_members(chunks[0], text_example)
        done = next(m for m in ex[p.TOOL_RESULT] if m["payload"]["status"] == "succeeded")
        same_members(result, done)
        self.assertEqual(result["payload"]["output"], {"counted": 3})
        for m in chunks + [result]:
            self.assertEqual((m["request_id"], m["correlation_id"]), (call["request_id"], call["correlation_id"]))

        cancel = ex[p.TOOL_CANCEL][0]  # names the call that has just ended
        gw.sock.sendall(p.encode(cancel))
        ack = gw.recv()
        same_members(ack, ex[p.CANCEL_ACK][0])
        self.assertEqual(ack["payload"], {"call_id": cancel["payload"]["call_id"], "accepted": False})

        ping = ex[p.PING][0]
        gw.sock.sendall(p.encode(ping))
        pong = gw.recv()
        same_members(pong, ex[p.PONG][0])
        self.assertEqual(pong["in_reply_to"], ping["id"])

        self.assertTrue(gw.heartbeats)
        same_members(gw.heartbeats[0], ex[p.HEARTBEAT][0])
        self.assertEqual(gw.heartbeats[0]["payload"]["session_id"], welcome["payload"]["session_id"])

        with self.assertLogs("moltgate", "WARNING") as logs:
            gw.sock.sendall(p.encode(ex[p.ERROR][0]))  # logged, not answered
            gw.sock.sendall(p.encode(ex[p.GOODBYE][0]))
            self.assertIsNone(r.join())
        self.assertIn("protocol.duplicate_result", logs.output[0])


if __name__ == "__main__":
    unittest.main()
