"""Calls an agent through the gateway's JSON-RPC socket and prints its stream as it comes.

    python3 caller.py DIR greeter@globex [AS_AGENT]
"""

import sys

from moltgate import Caller

gateway_dir, to = sys.argv[1], sys.argv[2]
from_agent = sys.argv[3] if len(sys.argv) > 3 else None

with Caller(dir=gateway_dir) as c:
    print(c.query(to, tool="greet", input={"name": "Ada"}, from_agent=from_agent))
    q = c.stream(to, tool="count", input={"n": 5}, from_agent=from_agent)
    for ev in q:
        print(ev.text, end="", flush=True)
    print(q.wait())
