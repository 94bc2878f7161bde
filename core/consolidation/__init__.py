"""Consolidation: turning observations into durable, deduplicated, connected memory."""
