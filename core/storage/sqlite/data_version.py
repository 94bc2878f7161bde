"""SQLite's cheap answer to "did another connection commit?": ``PRAGMA data_version``.

Its value, asked again on the same connection, differs exactly when another connection (of
this process or another) committed meanwhile; it reads no table and takes no lock, so the
change watch (``core.storage.change_watch``) asks it every poll and reads the change log
only when it moved."""

from __future__ import annotations

from sqlalchemy import Connection


class DataVersion:
    """A ``Probe`` for one connection (make a new one for a new connection)."""

    def __init__(self) -> None:
        self._seen: int | None = None

    def __call__(self, connection: Connection) -> bool:
        version = connection.exec_driver_sql("PRAGMA data_version").scalar()
        moved, self._seen = version != self._seen, version
        return moved
