"""The front ends' doorway into the engine: per-domain operations.

Each module here (``facts``, ``memories``, ``profile``, ``habits``, ``follow_ups``,
``chats``, ``consolidation``, ``dream``, ``search``, ``models``, ``settings``, ``data``,
``folder``, ``folder_lock``, ``migrate``, ``agents``, and the daily tools' ``tasks``,
``reminders``, ``notes``, ``journal``, ``later``, ``pending``) holds small functions the
window runs off its UI thread (through its one worker helper) and the ``hearth`` command
runs as they are. They take an open ``Hearth`` (or the assistant) and plain arguments, and
return plain, immutable data defined beside them (frozen dataclasses, never ORM rows, never
a provider or adapter object). An operation that
changes something returns a ``Changes`` naming what it changed (alone, or with its result in
a ``done.Done``); the views reload from the change feed (``changes.follow``), which tells
every committed change whoever made it, so the caller needs it only to know whether its own
view will hear of the change.

``desktop/`` and the command line import ``core.operations.*`` (and ``core.errors``,
``core.config`` settings types, the few other modules ``FRONT_ENDS_MAY_IMPORT`` names) and
nothing deeper: ``tests/project/test_architecture.py`` holds them to that.
"""
