"""The caller of the end-to-end test (e2e/python_test.go). acme's client calls globex's
Python agents (greeter: examples/agent.py; probe: tests/e2e_agent.py) through acme's
JSON-RPC socket; globex's own socket approves held calls. It checks what it can, and
prints one JSON object of what it saw for the Go test to check again.

    e2e_caller.py ACME_DIR GLOBEX_DIR
"""

import json
import sys
import threading
import time

import moltgate
from moltgate import Caller, RPCError

acme_dir, globex_dir = sys.argv[1], sys.argv[2]
FROM = "client"
seen = {}


def check(cond, what):
    if not cond:
        print(f"e2e_caller: {what}", file=sys.stderr)
        sys.exit(1)


def until(fn, what, limit=20.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    check(False, f"timed out waiting for {what}")


def cancel_after_first(c, tool, tag):
    q = c.stream("probe@globex", tool=tool, input={"tag": tag}, from_agent=FROM)
    texts = []
    for ev in q:
        texts.append(ev.text)
        if len(texts) == 1:
            q.cancel()
    try:
        q.wait()
        check(False, f"{tool}: a cancelled query succeeded")
    except RPCError as e:
        check(e.code == -32004 and e.status == "cancelled", f"{tool}: cancelled query ended with {e!r}")
    how = until(lambda: c.query("probe@globex", tool="ended", input={"tag": tag}, from_agent=FROM)["how"],
                f"{tool}'s cancel to reach the agent")
    return {"texts": texts, "status": q.status, "agent_saw": how}


with Caller(dir=acme_dir, name="e2e") as c:
    seen["server_version"] = c.server["server_info"]["version"]
    seen["sdk_version"] = moltgate.__version__

    # A plain call and a streaming one, to the example agent.
    seen["greet"] = c.query("greeter@globex", tool="greet", input={"name": "Ada"}, from_agent=FROM)
    events = []
    seen["count"] = c.query("greeter@globex", tool="count", input={"n": 5, "pause_ms": 10},
                            from_agent=FROM, on_event=events.append)
    seen["count_stream"] = "".join(e.text for e in events)
    seen["count_channels"] = sorted({e.channel for e in events})

    # A cancel in the middle of a stream: chunks arrive before the end, or there is
    # nothing to cancel after the third.
    q = c.stream("greeter@globex", tool="count", input={"n": 1000, "pause_ms": 20}, from_agent=FROM)
    got = []
    for ev in q:
        got.append(ev.text)
        if len(got) == 3:
            q.cancel()
    seen["count_cancelled"] = {"first": got[:3], "status": q.status}

    # The cancel reaches the Python agent as an exception, and as an async task's cancel.
    seen["wait_cancelled"] = cancel_after_first(c, "wait", "sync-1")
    seen["await_cancelled"] = cancel_after_first(c, "await_cancel", "async-1")

    # A tool's own failure, partial results, what the agent is told.
    try:
        c.query("probe@globex", tool="fail", input={}, from_agent=FROM)
        check(False, "fail succeeded")
    except RPCError as e:
        seen["fail"] = {"code": e.code, "moltspeak_code": e.moltspeak_code, "message": e.message}
    blocks = []
    seen["partial"] = c.query("probe@globex", tool="partial", input={}, from_agent=FROM, on_event=blocks.append)
    seen["partial_events"] = [{"block": b.block, "text": b.text, "channel": b.channel} for b in blocks]
    # The connection's context, set with context.update, reaches the agent at globex; the
    # event stream of acme's gateway says the call completed.
    events = []
    c.subscribe_events(events.append)
    c.update_context({"cwd": "/srv/app", "git_branch": "main"})
    seen["about"] = c.query("probe@globex", tool="about", input={}, from_agent=FROM, timeout_ms=20000)
    done = until(lambda: [e for e in events if e["type"] == "call.completed" and e["payload"]["to"] == "probe@globex"],
                 "the call.completed event")
    seen["completed_event"] = done[0]["payload"]
    c.unsubscribe_events()
    c.update_context({"cwd": None, "git_branch": None})

    # An input the schema refuses never reaches the agent.
    try:
        c.query("greeter@globex", tool="greet", input={"name": 7}, from_agent=FROM)
        check(False, "a bad input was taken")
    except RPCError as e:
        seen["bad_input"] = {"code": e.code, "moltspeak_code": e.moltspeak_code, "field": e.field}

    # Ping and consent through acme's face.
    seen["ping"] = c.ping("probe@globex")
    seen["consent_token_issued"] = bool(c.issue_consent("greeter@globex", "testing", ["email"], ttl="1h"))

    # A call to a tool with side effects waits at globex for a human there.
    notices = []
    got_request = threading.Event()

    def on_approval(method, params):
        notices.append(method)
        if method == "tool.request_approval":
            got_request.set()

    with Caller(dir=globex_dir, name="e2e-approver", on_approval=on_approval) as approver:
        result = {}

        def call_delete():
            try:
                result["out"] = c.query("probe@globex", tool="delete", input={"widget": "w1"}, from_agent=FROM)
            except RPCError as e:
                result["err"] = repr(e)

        t = threading.Thread(target=call_delete)
        t.start()
        check(got_request.wait(30), "no tool.request_approval at globex")
        pending = approver.approvals()
        check(len(pending) == 1 and pending[0]["tool"]["name"] == "delete", f"approvals.list: {pending}")
        seen["approval_args"] = pending[0]["arguments"]
        approver.approve(pending[0]["execution_id"])
        t.join(30)
        seen["delete"] = result
        until(lambda: "tool.approval_resolved" in notices, "tool.approval_resolved")
        seen["approval_notices"] = notices[:]

print(json.dumps(seen, sort_keys=True))
