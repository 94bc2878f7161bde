"""Hearth's memory for other local programs (agents) over the Model Context Protocol.

``registry`` names each agent and keeps the user's grant (none, read, read and write) and
trust; ``writes`` holds what an agent asked to write for the user's review; ``tools`` is
what an agent may do, each call checked against its grant and audited; ``server`` serves
those tools with the official ``mcp`` SDK. Only ``server`` imports the SDK.
"""
