"""The models installed in Ollama as a Qt table model: name, size, parameters, quantization,
with the one Hearth is set to use marked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from core.operations.models import ModelInfo, same_model
from desktop.dialogs.settings_form import data_size

COLUMNS = ("Model", "Size", "Parameters", "Quantization")
SORT_ROLE = Qt.ItemDataRole.UserRole
"""Sort by bytes, not by the text "2.0 GB"."""

Index = QModelIndex | QPersistentModelIndex


class InstalledModels(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self._models: list[ModelInfo] = []
        self._selected = ""

    def set_models(self, models: Sequence[ModelInfo]) -> None:
        self.beginResetModel()
        self._models = list(models)
        self.endResetModel()

    def set_selected(self, name: str) -> None:
        """Mark (in bold) the model the settings name."""
        self._selected = name
        if self._models:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._models) - 1, 0))

    def model_at(self, row: int) -> ModelInfo:
        return self._models[row]

    def row_of(self, name: str) -> int | None:
        return next((row for row, model in enumerate(self._models)
                     if same_model(name, model.name)), None)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self._models)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt API)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        model = self._models[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(model, column)
        if role == SORT_ROLE:
            return (model.size_bytes or 0) if column == 1 else self._text(model, column)
        if role == Qt.ItemDataRole.FontRole and column == 0 and self._selected \
                and same_model(self._selected, model.name):
            bold = QFont()
            bold.setBold(True)
            return bold
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return "Double-click to use this model."
        return None

    @staticmethod
    def _text(model: ModelInfo, column: int) -> str:
        if column == 0:
            return model.name
        if column == 1:
            return data_size(model.size_bytes) if model.size_bytes is not None else ""
        key = "parameter_size" if column == 2 else "quantization_level"
        return str(model.details.get(key, ""))
