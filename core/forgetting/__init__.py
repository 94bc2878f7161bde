"""A user's forget: a fact and every value it had, or memories the user deletes, gone from
everywhere Hearth kept them.

* ``matching``: the matching rule (whole words, any case) and the ``[forgotten]`` placeholder;
* ``places``: every column where the user's words can land;
* ``database``: the erasure inside one database, in one transaction;
* ``files``: the value's bytes in raw files, and masking it in logs;
* ``backups``: which backups still hold it, and rewriting them without it;
* ``memories``: a user's delete of memories, inside one database;
* ``service``: ``ForgetService``, what the CLI, the window and the assistant call.
"""
