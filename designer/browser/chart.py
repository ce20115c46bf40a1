"""`ConflictChart`: conflicts by type, stacked by outcome (QtCharts), redrawn when its model is reset."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCharts import QBarCategoryAxis, QBarSet, QChart, QChartView, QStackedBarSeries, QValueAxis
from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QWidget

from designer.browser.models import RecordTableModel, cell_text
from designer.browser.proxy import RecordFilterProxy

OUTCOME_ORDER = ("remote", "local", "merged", "unresolved")
LEGEND_ITEM_EXTRA = 40
"""A legend entry's marker and spacing around its label, in pixels."""
CATEGORY_EXTRA = 24
"""Space between two types' labels under their bars."""
AXIS_WIDTH = 48
"""The value axis and its labels."""
CHART_MARGINS = 80
"""The chart's frame and the plot's margins inside it."""


def whole_step(tallest: int, ticks: int = 5) -> int:
    """A 1, 2 or 5 times a power of ten step giving about `ticks` whole-number intervals up to `tallest`."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if tallest / (step * factor) <= ticks:
                return step * factor
        step *= 10


class ConflictChart(QChartView):
    """A stacked bar per conflict type, one bar set per outcome; clicking a segment emits its type and outcome."""

    sig_bar_clicked = Signal(str, str)
    """(type, outcome) of the clicked segment."""

    def __init__(self, model: RecordTableModel, parent: QWidget | None = None,
                 proxy: RecordFilterProxy | None = None) -> None:
        """`proxy`: count only the conflicts its filter shows, redrawn as the filter changes (the table's
        filter: a chart of conflicts the table hides would contradict it)."""
        super().__init__(parent)
        self._model, self._proxy = model, proxy
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setMinimumSize(260, 200)
        self.types: list[str] = []
        self.outcomes: list[str] = []
        self.counts: dict[tuple[str, str], int] = {}
        self.total = 0
        """All the model's conflicts, shown or not."""
        model.modelReset.connect(self.refresh)
        if proxy is not None:
            proxy.sig_filter_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Count the shown conflicts by (type, outcome) and draw them."""
        records = self._model.records if self._proxy is None else self._proxy.shown_records()
        self.total = len(self._model.records)
        self.counts = dict(Counter((cell_text(c.get("type")), cell_text(c.get("outcome"))) for c in records))
        self.types = sorted({t for t, _ in self.counts})
        found = {o for _, o in self.counts}
        self.outcomes = [o for o in OUTCOME_ORDER if o in found] + sorted(found - set(OUTCOME_ORDER))
        chart = QChart()
        chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        chart.setTitle(self.title())
        series = QStackedBarSeries()
        for outcome in self.outcomes:
            bars = QBarSet(outcome)
            bars.append([float(self.counts.get((t, outcome), 0)) for t in self.types])
            series.append(bars)
        series.clicked.connect(self._clicked)
        chart.addSeries(series)
        x_axis, y_axis = QBarCategoryAxis(), QValueAxis()
        x_axis.append(self.types)
        x_axis.setTruncateLabels(False)  # a type is a word or two: written whole (`sizeHint` makes room)
        tallest = max([sum(self.counts.get((t, o), 0) for o in self.outcomes) for t in self.types] or [1])
        step = whole_step(tallest)
        y_axis.setLabelFormat("%d")
        y_axis.setTickType(QValueAxis.TickType.TicksDynamic)
        y_axis.setTickAnchor(0)
        y_axis.setTickInterval(step)
        y_axis.setRange(0, -(-tallest // step) * step)
        chart.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(y_axis, Qt.AlignmentFlag.AlignLeft)
        series.attachAxis(x_axis)
        series.attachAxis(y_axis)
        old = self.chart()
        self.setChart(chart)
        if old is not None:
            old.deleteLater()
        self._apply_palette()
        self.updateGeometry()  # the labels to fit are these counts' types and outcomes

    def sizeHint(self) -> QSize:
        """Wide enough for the legend's outcomes side by side and the types under their bars, unelided."""
        metrics = self.fontMetrics()
        legend = sum(metrics.horizontalAdvance(o) + LEGEND_ITEM_EXTRA for o in self.outcomes)
        bars = len(self.types) * max((metrics.horizontalAdvance(t) + CATEGORY_EXTRA for t in self.types), default=0)
        return QSize(max(320, legend + CHART_MARGINS, bars + AXIS_WIDTH + CHART_MARGINS), 240)

    def title(self) -> str:
        """`N conflicts by type and outcome`, `N of M ...` while a filter hides some."""
        shown = sum(self.counts.values())
        if not self.total:
            return "No conflicts"
        if shown == self.total:
            return f"{shown:,} conflicts by type and outcome"
        return f"{shown:,} of {self.total:,} conflicts by type and outcome (filtered)"

    def series(self) -> QStackedBarSeries:
        [series] = self.chart().series()
        assert isinstance(series, QStackedBarSeries)
        return series

    def _clicked(self, index: int, bars: QBarSet) -> None:
        self.sig_bar_clicked.emit(self.types[index], bars.label())

    def _apply_palette(self) -> None:
        """Light or dark chart theme after the palette, with the palette's own text and background."""
        palette = self.palette()
        chart = self.chart()
        dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
        chart.setTheme(QChart.ChartTheme.ChartThemeDark if dark else QChart.ChartTheme.ChartThemeLight)
        chart.setBackgroundBrush(palette.brush(QPalette.ColorRole.Base))
        chart.setTitleBrush(palette.brush(QPalette.ColorRole.Text))
        chart.legend().setLabelBrush(palette.brush(QPalette.ColorRole.Text))
        for axis in chart.axes():
            axis.setLabelsBrush(palette.brush(QPalette.ColorRole.Text))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        super().changeEvent(event)
