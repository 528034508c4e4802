"""moltgate: write agents for a moltgate gateway, and call agents through one.

An agent is a program the gateway launches (``moltgate agent add --exec``); it
connects to the gateway's agent socket, registers its tools and answers their
calls. A caller talks to the gateway's JSON-RPC socket to query agents, of its
own organisation or of another, and to handle consents and approvals.

The package uses the Python standard library alone.
"""

from .agent import Agent, Call, Tool
from .caller import Caller, Query, StreamEvent
from .errors import (
    Cancelled,
    ConnectionLost,
    GoodbyeError,
    ProtocolError,
    RegistrationError,
    RPCError,
    ToolError,
    Unauthorized,
)

# The release of the moltgate binary this SDK ships with; a test holds the two equal.
__version__ = "0.1.0"

__all__ = [
    "Agent",
    "Call",
    "Tool",
    "Caller",
    "Query",
    "StreamEvent",
    "Cancelled",
    "ConnectionLost",
    "GoodbyeError",
    "ProtocolError",
    "RegistrationError",
    "RPCError",
    "ToolError",
    "Unauthorized",
    "__version__",
]
