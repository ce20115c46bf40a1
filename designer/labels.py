"""Labels, tooltips, form rows, menu entries and dialogs that show the user's strings as they are."""

from __future__ import annotations

import html

from PySide6.QtGui import Qt  # QtCore's Qt with QtGui's functions (mightBeRichText)
from PySide6.QtWidgets import QDialog, QFormLayout, QInputDialog, QLabel, QLayout, QMessageBox, QWidget

from engine.model.io import one_line


def plain_label(text: str = "", wrap: bool = False) -> QLabel:
    """A label whose text is never read as rich text. A model's names, SQL and constants, and the findings
    that quote them, are the user's strings: Qt's automatic format would render `<b>x</b>` in one as bold,
    or load the file an `<img src=...>` names."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    return label


def plain_tip(text: str) -> str:
    """`text` as a tooltip to show it as it is. Qt shows a tooltip as rich text when its first line looks
    like HTML (`Qt.mightBeRichText`): such a text is escaped, in a paragraph that keeps its line breaks.
    Any other text is returned unchanged (and shown plain)."""
    if "<" not in text or not Qt.mightBeRichText(text):
        return text
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


def form_row(form: QFormLayout, label: str, field: QWidget | QLayout) -> QLabel:
    """Add a row to `form` under a plain label. `QFormLayout.addRow(str, …)` makes a label in Qt's automatic
    format, so a row named after a mapping or an index would render a name like `<b>x</b>` as markup."""
    shown = plain_label(label)
    form.addRow(shown, field)
    return shown


def menu_text(text: str) -> str:
    """A user's string for a menu entry or an action's text: Qt takes `&` there as a shortcut marker (`R&D`
    would show as "RD"), so `&&` shows one `&`; and a tab as the start of the shortcut column, and a newline
    as a second line, so control characters are shown escaped (`engine.model.io.one_line`)."""
    return one_line(text).replace("&", "&&")


def message(parent: QWidget | None, icon: QMessageBox.Icon, title: str, text: str,
            buttons: QMessageBox.StandardButton = QMessageBox.StandardButton.Ok,
            default: QMessageBox.StandardButton = QMessageBox.StandardButton.NoButton) -> QMessageBox.StandardButton:
    """A modal message box whose text is shown as it is (QMessageBox's static functions read markup in it)."""
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    if default != QMessageBox.StandardButton.NoButton:
        box.setDefaultButton(default)
    answer = box.exec()
    box.deleteLater()
    return QMessageBox.StandardButton(answer)


def _plain_prompt(parent: QWidget | None, title: str, label: str) -> QInputDialog:
    dialog = QInputDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    for shown in dialog.findChildren(QLabel):  # the prompt quotes a name: never read as markup
        shown.setTextFormat(Qt.TextFormat.PlainText)
    return dialog


def ask_text(parent: QWidget | None, title: str, label: str, text: str = "") -> str | None:
    """A line of text asked for under a plain-text prompt; None when cancelled."""
    dialog = _plain_prompt(parent, title, label)
    dialog.setTextValue(text)
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    value = dialog.textValue()
    dialog.deleteLater()
    return value if accepted else None


def ask_item(parent: QWidget | None, title: str, label: str, items: list[str]) -> str | None:
    """One of `items`, chosen under a plain-text prompt; None when cancelled."""
    dialog = _plain_prompt(parent, title, label)
    dialog.setComboBoxItems(items)
    dialog.setComboBoxEditable(False)
    dialog.setTextValue(items[0] if items else "")
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    value = dialog.textValue()
    dialog.deleteLater()
    return value if accepted else None
