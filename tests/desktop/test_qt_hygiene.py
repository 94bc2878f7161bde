"""The desktop side of the tests' hygiene (``tests/conftest.py``): ``QSettings`` files are
the test's own, and a top-level widget left alive is noticed until it is deleted."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget
from support.hygiene import stray_widgets, top_level_widgets

from desktop.dialogs import locations


def test_the_chosen_data_folder_is_kept_in_the_tests_own_preferences(
        qapp, tmp_path: Path, user_folders_isolated: Path) -> None:
    assert locations.chosen_home() is None  # nothing from the real user's preferences
    locations.choose_home(tmp_path / "elsewhere")
    preferences = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                            "Hearth", "Hearth")
    assert Path(preferences.fileName()).is_relative_to(user_folders_isolated)
    assert locations.chosen_home() == tmp_path / "elsewhere"


def test_a_widget_left_alive_is_stray_until_deleted(qapp) -> None:
    before = top_level_widgets()
    left = QWidget()
    left.setObjectName("left-behind")
    assert stray_widgets(before) == ["QWidget 'left-behind' (visible: False)"]
    left.deleteLater()
    assert stray_widgets(before) == []
