"""The probe agent of the end-to-end test (e2e/python_test.go): tools that show what
reached the agent, through two real gateways. Not a unit test: the gateway launches it."""

import asyncio
import os
import threading

from moltgate import Agent, Cancelled, ToolError

agent = Agent(version="1.0.0")
seen_lock = threading.Lock()
cancelled = {}  # tag -> how the call ended at the agent


def record(tag, how):
    with seen_lock:
        cancelled[tag] = how


TAG = {"type": "object", "properties": {"tag": {"type": "string", "maxLength": 64}}, "required": ["tag"]}


@agent.tool(description="Streams 'waiting' and waits until cancelled.", input_schema=TAG)
def wait(call):
    call.stream("waiting")
    try:
        call.sleep(600)
    except Cancelled:
        record(call.input["tag"], "Cancelled:" + call.cancel_reason)
        raise
    return {}


@agent.tool(description="The async form of wait: its task is cancelled.", input_schema=TAG)
async def await_cancel(call):
    call.stream("waiting")
    try:
        await asyncio.sleep(600)
    except asyncio.CancelledError:
        record(call.input["tag"], "CancelledError:" + call.cancel_reason)
        raise
    return {}


@agent.tool(description="Says how the calls of a tag ended at the agent.", input_schema=TAG)
def ended(call):
    with seen_lock:
        return {"how": cancelled.get(call.input["tag"], "")}


@agent.tool(description="Fails with a code of its own.")
def fail(call):
    raise ToolError("tool.out_of_stock", "no more widgets", retryable=True)


@agent.tool(description="Sends two partial results, then a status note.")
def partial(call):
    call.partial({"step": 1})
    call.partial({"step": 2})
    call.status("almost done")
    return {"steps": 2}


@agent.tool(description="Reports what the gateway told the agent of the call.")
def about(call):
    return {
        "caller": call.caller,
        "has_request_id": bool(call.request_id),
        "has_deadline": call.deadline is not None,
        "agent_id": os.environ.get("OPENSENTIENCE_AGENT_ID", ""),
        "token_in_env": "OPENSENTIENCE_TOKEN" in os.environ,
        "context": call.context,
    }


@agent.tool(description="Deletes a widget; a human approves each call.", side_effects=True,
            input_schema={"type": "object", "properties": {"widget": {"type": "string"}}, "required": ["widget"]})
def delete(call):
    return {"deleted": call.input["widget"]}


if __name__ == "__main__":
    agent.main()
