"""The canvas view: zoom (Ctrl+wheel, keys), pan (middle button or Space-drag), fit, rubber-band selection."""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QGraphicsView

from designer.canvas.scene import MARGIN, MappingScene

MIN_ZOOM, MAX_ZOOM = 0.1, 4.0
READABLE_ZOOM = 0.5  # the smallest zoom at which a table's rows stay legible; the overview is below it
EMPTY_HINT = "No tables yet. Right-click here (or use the Edit menu) to add a server, then a table."


class MappingView(QGraphicsView):
    sig_painted = Signal()  # once, after the canvas was first painted (what waits for it runs after the paint)

    def __init__(self, scene: MappingScene) -> None:
        super().__init__(scene)
        self._painted = False
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState, False)
        self._space = False
        # not `scene.changed`: connecting it makes Qt repaint the whole scene whenever an item is removed
        scene.sig_empty_changed.connect(self._hint_follows)

    def zoom(self, factor: float) -> None:
        """Zoom by `factor`, within 10% to 400%; a fit beyond them (a model too large to fit at 10%) is where
        a step may start, never a reason to jump the other way."""
        current = self.transform().m11()
        wanted = max(min(MIN_ZOOM, current), min(max(MAX_ZOOM, current), current * factor))
        self.scale(wanted / current, wanted / current)

    def zoom_level(self) -> float:
        return self.transform().m11()

    def fit(self) -> None:
        rect = self._mapping_scene().tables_rect().adjusted(-30, -30, 30, 30)
        if self._mapping_scene().tables:
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
            if self.zoom_level() > 1.0:
                self.resetTransform()
                self.centerOn(rect.center())

    def _mapping_scene(self) -> MappingScene:
        return self.scene()  # type: ignore[return-value]

    def show_start(self) -> None:
        """The first view of a model: all of it when it fits legibly, else its top-left corner at 100%
        (Ctrl+0 still fits all of it, as an overview)."""
        scene = self._mapping_scene()
        if not scene.tables:
            return
        rect = scene.sceneRect().adjusted(MARGIN - 30, MARGIN - 30, 30 - MARGIN, 30 - MARGIN)  # the tables' room
        viewport = self.viewport().rect()
        if rect.isEmpty() or viewport.isEmpty():
            return
        scale = min(viewport.width() / rect.width(), viewport.height() / rect.height())
        if scale >= READABLE_ZOOM:
            self.fit()
            return
        self.resetTransform()
        self.centerOn(rect.left() + viewport.width() / 2, rect.top() + viewport.height() / 2)

    def _hint_follows(self, _empty: bool) -> None:
        self.viewport().update()  # the hint appears or goes: repaint all of it, not only the changed items

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        """An empty canvas says how to start."""
        super().drawForeground(painter, rect)
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self.sig_painted.emit)
        if self._mapping_scene().tables:
            return
        painter.save()
        painter.resetTransform()
        painter.setPen(QColor("#888"))
        painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, EMPTY_HINT)
        painter.restore()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
            event.accept()
        else:
            super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        super().keyReleaseEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton:
            self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
            fake = QMouseEvent(event.type(), event.position(), event.globalPosition(), Qt.MouseButton.LeftButton,
                               Qt.MouseButton.LeftButton, event.modifiers())
            super().mousePressEvent(fake)
            return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.MiddleButton and not self._space:
            self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
