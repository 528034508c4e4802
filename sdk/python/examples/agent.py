"""An agent with two tools, one of them streaming. Run it under the gateway:

    moltgate agent add --dir DIR --id greeter --exec "python3 /path/to/agent.py" --capability greet
"""

from moltgate import Agent

agent = Agent(version="1.0.0")


@agent.tool(description="Greets someone by name.",
            input_schema={"type": "object", "properties": {"name": {"type": "string", "maxLength": 100}},
                          "required": ["name"], "additionalProperties": False})
def greet(call):
    return {"greeting": f"Hello, {call.input['name']}!"}


@agent.tool(description="Counts from 1 to n, streaming each number; stops when cancelled.",
            input_schema={"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 1000},
                                                           "pause_ms": {"type": "integer", "minimum": 0, "maximum": 10000}},
                          "required": ["n"]})
def count(call):
    for i in range(1, call.input["n"] + 1):
        call.stream(f"{i}\n")                               # raises Cancelled once the call is cancelled
        call.sleep(call.input.get("pause_ms", 100) / 1000)  # so does this
    return {"counted": call.input["n"]}


if __name__ == "__main__":
    agent.main()
