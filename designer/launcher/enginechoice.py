"""The Run panel's engine choice: Auto, In process, Spark local (local[N]) or Spark cluster (a URL).

It maps the user's choice onto what `mapwright run` takes (`--engine auto|inprocess|spark` and `--master`)
and says, in one line, what is wrong with a master typed. Auto and In process need no master: Auto runs
small samples in process and larger ones on Spark's default master (engine.runner.choose_engine).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from designer.labels import plain_label
from designer.launcher.settings import AUTO, DEFAULT_MASTER, INPROCESS, SPARK_CLUSTER, SPARK_LOCAL
from designer.launcher.widgets import named
from engine.spark.session import MasterError, parse_master

ENGINE_LABELS = {AUTO: "Auto", INPROCESS: "In process", SPARK_LOCAL: "Spark local", SPARK_CLUSTER: "Spark cluster"}
ENGINE_TIPS = {
    AUTO: "In process for a small sample, Spark (local[*]) for a large one",
    INPROCESS: "The pure-Python engine: no Spark, no Java; a small sample previews in seconds",
    SPARK_LOCAL: "Spark on this machine: local[N] threads, or local[*] for every core",
    SPARK_CLUSTER: "A Spark cluster: spark://host:port (standalone) or sc://host:port (Spark Connect)",
}
LOCAL_PRESETS = ("local[2]", "local[*]")
ERROR_STYLE = "color: #c62828;"


class EngineChoice(QWidget):
    """The engine combo with the master field its choice needs (none, local[N], or a cluster's URL)."""

    sig_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine_combo = named(QComboBox(), "engineCombo")
        for choice, label in ENGINE_LABELS.items():
            self.engine_combo.addItem(label, choice)
            self.engine_combo.setItemData(self.engine_combo.count() - 1, ENGINE_TIPS[choice],
                                          Qt.ItemDataRole.ToolTipRole)
        self.master_combo = named(QComboBox(), "masterCombo")
        self.master_combo.setEditable(True)
        self.master_combo.addItems(LOCAL_PRESETS)
        self.master_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.master_combo.setToolTip("local[N] (N threads) or local[*] (every core)")
        self.cluster_edit = named(QLineEdit(placeholderText="spark://host:7077   or   sc://host:15002"), "clusterEdit")
        self.cluster_edit.setToolTip(ENGINE_TIPS[SPARK_CLUSTER])
        self.master_error = plain_label(wrap=True)  # quotes the master the user typed
        self.master_error.setObjectName("masterError")
        self.master_error.setStyleSheet(ERROR_STYLE)
        self.master_error.setVisible(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.engine_combo)
        row.addWidget(self.master_combo, 1)
        row.addWidget(self.cluster_edit, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.master_error)
        self.engine_combo.currentIndexChanged.connect(self._changed)
        self.master_combo.editTextChanged.connect(self._changed)
        self.cluster_edit.textChanged.connect(self._changed)
        self._show_fields()

    def choice(self) -> str:
        """One of settings.ENGINE_CHOICES."""
        return str(self.engine_combo.currentData() or "")

    def set_choices(self, engine: str, master: str, cluster: str) -> None:
        index = self.engine_combo.findData(engine)
        self.engine_combo.setCurrentIndex(max(index, 0))
        self.master_combo.setEditText(master or DEFAULT_MASTER)
        self.cluster_edit.setText(cluster)
        self._show_fields()

    def local_master(self) -> str:
        return self.master_combo.currentText().strip()

    def cluster(self) -> str:
        return self.cluster_edit.text().strip()

    def run_engine(self) -> str:
        """`--engine` of the run: auto, inprocess or spark."""
        choice = self.choice()
        return choice if choice in (AUTO, INPROCESS) else "spark"

    def run_master(self) -> str:
        """`--master` of the run: "" (none) for Auto and In process."""
        return {SPARK_LOCAL: self.local_master(), SPARK_CLUSTER: self.cluster()}.get(self.choice(), "")

    def needs_spark(self) -> bool:
        return self.choice() in (SPARK_LOCAL, SPARK_CLUSTER)

    def describe(self) -> str:
        """The choice in words, for the status line: `in process`, `Spark on local[2]`, `auto`."""
        master = self.run_master()
        return f"Spark on {master}" if master else {AUTO: "auto (engine by sample size)"}.get(self.choice(),
                                                                                            "in process")

    def problem(self) -> str | None:
        """Why the choice cannot run, in one line; None when it can."""
        choice = self.choice()
        if choice == SPARK_LOCAL:
            return _master_problem(self.local_master(), local=True)
        if choice == SPARK_CLUSTER:
            return _master_problem(self.cluster(), local=False)
        return None

    def _changed(self) -> None:
        self._show_fields()
        problem = self.problem()
        self.master_error.setText(problem or "")
        self.master_error.setVisible(bool(problem))
        self.sig_changed.emit()

    def _show_fields(self) -> None:
        choice = self.choice()
        self.master_combo.setVisible(choice == SPARK_LOCAL)
        self.cluster_edit.setVisible(choice == SPARK_CLUSTER)
        self.engine_combo.setToolTip(ENGINE_TIPS.get(choice, ""))


def _master_problem(url: str, local: bool) -> str | None:
    if not url:
        return "give the local master (local[N] or local[*])" if local else \
            "give the cluster's URL (spark://host:port or sc://host:port)"
    try:
        kind = parse_master(url).kind
    except MasterError as exc:
        return str(exc)
    if local and kind != "local":
        return f"{url!r} is a cluster: choose Spark cluster for it (Spark local is local[N] or local[*])"
    if not local and kind == "local":
        return f"{url!r} runs on this machine: choose Spark local for it (a cluster is spark:// or sc://)"
    return None

