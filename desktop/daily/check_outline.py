"""A visible box around a row's tick box on a dark palette.

Why: Fusion draws the tick box's outline a shade darker than the window, which on the dark
palette (``desktop.theme``) is the colour of the list behind it, so an unticked task showed
no box at all. This delegate draws Fusion's box, then an outline in the palette's
placeholder colour when the palette is dark."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from desktop.theme import is_dark


class CheckOutlineDelegate(QStyledItemDelegate):
    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        super().paint(painter, option, index)
        if index.data(Qt.ItemDataRole.CheckStateRole) is None or not is_dark(option.palette):
            return
        view = QStyleOptionViewItem(option)
        self.initStyleOption(view, index)
        style = view.widget.style() if view.widget is not None else None
        if style is None:
            return
        box = style.subElementRect(QStyle.SubElement.SE_ItemViewItemCheckIndicator, view,
                                   view.widget)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(option.palette.color(QPalette.ColorRole.PlaceholderText), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(box.adjusted(1, 1, -1, -1).toRectF(), 2, 2)
        painter.restore()
