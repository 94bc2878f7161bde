"""Moving data in and out of Hearth: transcript imports and whole-database export/import.

Submodules are imported directly (``core.transfer.transcript``, ``core.transfer.export``)
so that the CLI loads only the one a command needs.
"""
