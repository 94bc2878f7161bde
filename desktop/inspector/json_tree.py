"""An editable tree model over a JSON object: objects and lists open like folders, and each
entry shows its key, its value and its type.

Columns run Key, Value, Type: the order a person fills an entry in, so Tab after a key
goes to its value. A key reads as words ("sister name" for ``sister_name``, the stored
spelling in its tooltip); editing it edits the stored key. Types are shown in words
("group" for a JSON object, "yes/no" for a boolean); ``TYPE_WORDS`` names them, and the
edit role still speaks the JSON kinds.

Edits stay in the model until the view saves ``to_data()``: renaming a key, changing a value
(parsed by the entry's type: ``42`` stays a number only if the entry is a number), changing a
type, adding and removing entries. An edit that cannot be applied (a duplicate or blank key, a
number that is not one) changes nothing and is explained through ``refused``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from desktop.words import count, spaced

Index = QModelIndex | QPersistentModelIndex
KEY, VALUE, TYPE = range(3)
HEADERS = ("Key", "Value", "Type")
OBJECT, LIST, TEXT, NUMBER, BOOLEAN, NULL = "object", "list", "text", "number", "boolean", "null"
TYPES: tuple[str, ...] = (TEXT, NUMBER, BOOLEAN, OBJECT, LIST, NULL)
CONTAINERS = (OBJECT, LIST)
TYPE_WORDS = {TEXT: "text", NUMBER: "number", BOOLEAN: "yes/no", OBJECT: "group",
              LIST: "list", NULL: "empty"}
"""What the Type column says for each JSON kind."""
TYPE_TIP = ("text · number · yes/no (true or false) · group: entries with keys (a JSON "
            "object) · list: items in order · empty: no value (null)")
_TRUE, _FALSE = {"true", "yes", "1"}, {"false", "no", "0"}


class Refused(ValueError):
    """An edit that would make the tree wrong; its text says why, for the user."""


def kind_of(value: Any) -> str:
    if isinstance(value, dict):
        return OBJECT
    if isinstance(value, list):
        return LIST
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int | float):
        return NUMBER
    return NULL if value is None else TEXT


def parse_scalar(kind: str, text: str) -> Any:
    """``text`` as a value of ``kind`` (a scalar kind), or ``Refused``."""
    text = text.strip() if kind != TEXT else text
    if kind == TEXT:
        return text
    if kind == NUMBER:
        try:
            number = float(text)
        except ValueError:
            raise Refused(f"“{text}” is not a number.") from None
        if not math.isfinite(number):
            raise Refused(f"“{text}” is not a number JSON can hold.")
        return int(number) if number.is_integer() and "." not in text else number
    if kind == BOOLEAN:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise Refused(f"“{text}” is not true or false.")
    return None


def show_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


@dataclass(eq=False)
class Node:
    """One entry. ``key`` is None for the root and for list items (shown as "item 1", "item 2",
    …)."""

    key: str | None
    kind: str
    value: Any = None
    children: list[Node] = field(default_factory=list)
    parent: Node | None = None

    @classmethod
    def build(cls, key: str | None, value: Any, parent: Node | None = None) -> Node:
        node = cls(key, kind_of(value), parent=parent)
        if isinstance(value, dict):
            node.children = [cls.build(str(k), v, node) for k, v in value.items()]
        elif isinstance(value, list):
            node.children = [cls.build(None, v, node) for v in value]
        else:
            node.value = value
        return node

    def to_data(self) -> Any:
        if self.kind == OBJECT:
            return {child.key: child.to_data() for child in self.children}
        if self.kind == LIST:
            return [child.to_data() for child in self.children]
        return self.value

    def row(self) -> int:
        return self.parent.children.index(self) if self.parent is not None else 0

    def summary(self) -> str:
        """What a container shows in the value column (its size), or the scalar itself."""
        if self.kind == OBJECT:
            return count(len(self.children), "entry", "entries")
        if self.kind == LIST:
            return count(len(self.children), "item")
        return show_scalar(self.value)


class JsonTreeModel(QAbstractItemModel):
    """The tree of a JSON object, editable; ``modified`` fires on every applied edit."""

    modified = Signal()
    refused = Signal(str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._root = Node(None, OBJECT)

    # --- whole tree --------------------------------------------------------------------------

    def set_data(self, data: dict[str, Any]) -> None:
        self.beginResetModel()
        self._root = Node.build(None, data)
        self.endResetModel()

    def to_data(self) -> dict[str, Any]:
        return self._root.to_data()

    def node(self, index: Index) -> Node:
        return index.internalPointer() if index.isValid() else self._root

    # --- structure ---------------------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        owner = self.node(parent)
        if not 0 <= row < len(owner.children) or not 0 <= column < len(HEADERS):
            return QModelIndex()
        return self.createIndex(row, column, owner.children[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008 (Qt's overloads; a shared default index)
        if not index.isValid():
            return QModelIndex()
        owner = self.node(index).parent
        if owner is None or owner is self._root:
            return QModelIndex()
        return self.createIndex(owner.row(), 0, owner)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self.node(parent).children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section == TYPE:
            return TYPE_TIP
        return None

    # --- data ----------------------------------------------------------------------------------

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self.node(index)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if index.column() == KEY:
                if node.key is None:
                    return f"item {node.row() + 1}"
                return spaced(node.key) if role == Qt.ItemDataRole.DisplayRole else node.key
            if index.column() == VALUE:
                if role == Qt.ItemDataRole.EditRole:
                    return show_scalar(node.value)
                return node.summary()
            return node.kind if role == Qt.ItemDataRole.EditRole else TYPE_WORDS[node.kind]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == VALUE:
            return node.summary() if node.kind not in CONTAINERS else None
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == KEY \
                and node.key is not None and spaced(node.key) != node.key:
            return f"Stored as {node.key} (edit it to rename)"
        if role == Qt.ItemDataRole.FontRole and index.column() == VALUE \
                and node.kind in CONTAINERS:
            font = QFont()
            font.setItalic(True)  # a size, not a value the user wrote
            return font
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if not index.isValid():
            return flags
        node = self.node(index)
        editable = {KEY: node.key is not None,
                    VALUE: node.kind not in (*CONTAINERS, NULL),
                    TYPE: True}[index.column()]
        return flags | Qt.ItemFlag.ItemIsEditable if editable else flags

    def setData(self, index: Index, value: Any,  # noqa: N802
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        node, text = self.node(index), str(value)
        try:
            changed = {KEY: self._rename, VALUE: self._set_value,
                       TYPE: self._set_kind}[index.column()](node, text)
        except Refused as exc:
            self.refused.emit(str(exc))
            return False
        if changed:
            first = self.index(index.row(), 0, index.parent())
            last = self.index(index.row(), len(HEADERS) - 1, index.parent())
            self.dataChanged.emit(first, last)
            self.modified.emit()
        return changed

    def _rename(self, node: Node, text: str) -> bool:
        key = text.strip()
        if key == node.key:
            return False
        if not key:
            raise Refused("A key cannot be blank.")
        assert node.parent is not None
        if any(sibling.key == key for sibling in node.parent.children):
            raise Refused(f"There is already an entry “{key}” here.")
        node.key = key
        return True

    def _set_value(self, node: Node, text: str) -> bool:
        value = parse_scalar(node.kind, text)
        if value == node.value and kind_of(value) == kind_of(node.value):
            return False
        node.value = value
        return True

    def _set_kind(self, node: Node, kind: str) -> bool:
        """Change an entry's type, converting its value where that keeps it: a scalar
        becomes text as written, text becomes a number or boolean only if it reads as one.
        A container with entries cannot become something else (that would drop them)."""
        if kind == node.kind:
            return False
        if kind not in TYPES:
            raise Refused(f"“{kind}” is not a type; use one of "
                          f"{', '.join(TYPE_WORDS[t] for t in TYPES)}.")
        if node.kind in CONTAINERS and node.children:
            raise Refused(f"Remove the entries of “{node.key}” before changing its type.")
        if kind in CONTAINERS:
            value = None
        elif kind == TEXT:
            value = show_scalar(node.value)
        elif kind == NULL:
            value = None
        else:
            value = parse_scalar(kind, show_scalar(node.value))
        node.kind, node.value, node.children = kind, value, []
        return True

    # --- adding and removing ------------------------------------------------------------------

    def add_child(self, parent: Index) -> QModelIndex:
        """A new empty text entry at the end of ``parent`` (an object or a list; the root
        for an invalid index). Returns its index (the key, to edit it first)."""
        owner = self.node(parent)
        if owner.kind not in CONTAINERS:
            raise Refused("Only an object or a list can hold entries.")
        key = None
        if owner.kind == OBJECT:
            taken = {child.key for child in owner.children}
            key = next(name for n in range(1, len(taken) + 2)
                       if (name := "new entry" if n == 1 else f"new entry {n}") not in taken)
        row = len(owner.children)
        self.beginInsertRows(parent if owner is not self._root else QModelIndex(), row, row)
        owner.children.append(Node(key, TEXT, "", parent=owner))
        self.endInsertRows()
        self.modified.emit()
        return self.index(row, KEY if key is not None else VALUE,
                          parent if owner is not self._root else QModelIndex())

    def remove(self, index: Index) -> None:
        node = self.node(index)
        if node is self._root or node.parent is None:
            return
        row, parent = node.row(), index.parent()
        self.beginRemoveRows(parent, row, row)
        node.parent.children.pop(row)
        self.endRemoveRows()
        if node.parent.kind == LIST and row < len(node.parent.children):
            # the items after it moved up one place: their index labels changed
            self.dataChanged.emit(self.index(row, KEY, parent),
                                  self.index(len(node.parent.children) - 1, KEY, parent))
        self.modified.emit()
