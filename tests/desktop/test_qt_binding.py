"""What Hearth relies on from its Qt binding, checked on the installed version.

PySide6 6.12.0 released a reference to ``True`` or ``False`` each time a bool went through
a signal emitted from Python (``Signal(bool)`` or ``Signal(object)``, receivers or not).
Enough of them and the interpreter aborts ("bool_dealloc: deallocating True or False"),
typically while it shuts down, after every test has passed. ``pyproject.toml`` excludes that
version; this test fails on any binding that does it again."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal

EMITS = 500
DRIFT = 50
"""Other threads of the test process (a worker an earlier test left finishing) may take or
drop a few references meanwhile; the fault loses one per emit, ten times more than that."""


class _Sender(QObject):
    as_object = Signal(object)
    as_bool = Signal(bool)


def test_a_bool_carried_by_a_signal_keeps_its_references(qapp) -> None:
    sender = _Sender()
    sender.as_object.connect(lambda _value: None)
    sender.as_bool.connect(lambda _value: None)
    for signal in (sender.as_object, sender.as_bool):
        for value in (True, False):
            before = sys.getrefcount(value)
            for _ in range(EMITS):
                signal.emit(value)
            lost = before - sys.getrefcount(value)
            assert lost < DRIFT, f"{signal} lost {lost} references to {value}"
