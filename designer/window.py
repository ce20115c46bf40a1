"""The main window: its docks (model tree, mapping canvas, inspector and conflict editor, Problems panel, run
launcher) and the selection they share, its menus and actions, and the runs it opens in browsers. The document's
files (new, open, save, export) are its base's, `files.DocumentFiles`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QScrollArea,
    QTabWidget,
)

from designer import preferences
from designer.authoring.actions import AuthoringActions, install_edit_menu
from designer.authoring.grid import MappingGrid
from designer.authoring.selection import follow_ref, ref_exists
from designer.autosave import Autosaver
from designer.browser.rundirs import open_run_start, remember_run
from designer.canvas.controller import CanvasController
from designer.canvas.scene import MappingScene
from designer.canvas.view import MappingView
from designer.conflict_editor import ConflictEditor
from designer.document import Document
from designer.files import DocumentFiles, tool
from designer.find import FindDialog
from designer.helpmenu import LegendDialog, about_box, show_shortcuts
from designer.inspector import Inspector
from designer.labels import menu_text, plain_label, plain_tip
from designer.launcher.panel import RunLauncher, RunnerFactory
from designer.launcher.runner import RunProcess
from designer.launcher.settings import DEFAULT_MASTER, is_bundled_sample_data
from designer.launcher.warm import PreviewRunner, WarmSession, warm_master
from designer.problems import ProblemsPanel
from designer.recent import RecentFiles
from designer.slots import bound
from designer.tree import ModelTree
from engine.edits import Edit
from engine.export import EXPORTERS
from engine.rules import Finding, Location, count

if TYPE_CHECKING:
    from designer.browser.window import ConflictBrowser


class MainWindow(DocumentFiles):
    """The designer's one window over one document (`set_document` replaces it)."""

    def __init__(self, document: Document | None = None, settings: QSettings | None = None,
                 ask: bool = True, runner_factory: RunnerFactory = RunProcess, warm: bool = False) -> None:
        """`warm`: run previews in warm sessions: one of Spark for the window's lifetime, started only when a
        Spark engine is picked or a run needs it (Auto and In process never start it)."""
        super().__init__()
        self.settings = settings or QSettings("Mapwright", "Mapwright")
        self.ask = ask  # False in tests: never block on a dialog
        self.check_when_painted = True  # False: a large model is checked by its first edit (a screenshot)
        self.export_findings: list[str] = []  # what PostgreSQL cannot express, shown before its export
        self.warm_session = WarmSession(DEFAULT_MASTER, self) if warm else None
        self.runner_factory = ((lambda parent: PreviewRunner(parent, self.warm_session, inprocess=True)) if warm
                               else runner_factory)
        self.browsers: list[ConflictBrowser] = []
        self.status = QLabel()
        self.statusBar().addPermanentWidget(self.status)
        self.spark_status = plain_label()  # names the Spark master the user typed
        self.spark_status.setObjectName("sparkStatus")
        self.statusBar().addPermanentWidget(self.spark_status)
        self.resize(1500, 920)
        preferences.apply_environment(preferences.load(self.settings))  # the runs folder, the driver memory
        self._make_actions()
        self.set_document(document or Document.new())
        if self.warm_session is not None:
            self.warm_session.sig_state.connect(self._show_spark_state)
        self._show_spark_state()

    def warm_up(self, master: str) -> None:
        """Start the warm Spark session on `master` (a local one), unless it runs already."""
        warm = self.warm_session
        if warm is not None and warm.state == "stopped":
            warm.master = warm_master(master, DEFAULT_MASTER)
            warm.start()

    def _show_spark_state(self) -> None:
        """The warm session in the status bar: starting / ready / busy / stopped, the details as a tooltip."""
        warm = self.warm_session
        self.spark_status.setVisible(warm is not None)
        if warm is not None:
            text, tip = warm.status_text()
            self.spark_status.setText(text)
            self.spark_status.setToolTip(plain_tip(tip))

    # --- the document ----------------------------------------------------------

    def set_document(self, document: Document) -> None:
        old = getattr(self, "document", None)
        self.document = document
        document.setParent(self)
        self.scene = MappingScene(document)
        self.view = MappingView(self.scene)
        self.setCentralWidget(self.view)
        self.controller = CanvasController(document, self.scene, self.view)
        self.tree = ModelTree(document)
        self.inspector = Inspector(document)
        self.conflicts = ConflictEditor(document)
        self.problems = ProblemsPanel(document)
        self.launcher = RunLauncher(lambda: self.document.path, self.runner_factory, settings=self.settings,
                                    confirm_run=self.ready_to_run, model=lambda: self.document.model)
        self.launcher.sig_run_finished.connect(self.run_finished)
        self.launcher.sig_spark_wanted.connect(self.warm_up)
        document.sig_path_changed.connect(lambda _p: self.launcher.model_saved_as())
        self.autosaver = Autosaver(document, interval_ms=preferences.load(self.settings).autosave_seconds * 1000)
        self.autosaver.sig_failed.connect(lambda text: self.statusBar().showMessage(text, 15000))
        self.grid = MappingGrid(document)
        self.current_ref: tuple[object, ...] = ()
        self.controller.extra_menu = self.authoring.fill_menu
        self.tree.sig_context_requested.connect(self._tree_menu)
        self.tree.sig_selected.connect(self.centre_on)
        self.grid.sig_selected.connect(self.select)
        self.inspector.sig_edit_where.connect(self.authoring.edit_where)
        self._docks()
        self.scene.sig_selected.connect(self.select)
        self.scene.sig_refused.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.tree.sig_selected.connect(self.select)
        self.problems.sig_activated.connect(self.go_to)
        document.sig_findings.connect(self._show_counts)
        document.sig_dirty_changed.connect(self._title)
        document.sig_path_changed.connect(self._title)
        self.undo_action.setEnabled(True)
        self._rebind_undo()
        self._show_counts(document.findings())
        self._title()
        QTimer.singleShot(0, self.view.show_start)
        if self.check_when_painted:  # a large model is checked once the canvas has painted
            self.view.sig_painted.connect(document.check_in_background)
        if getattr(self, "find_dialog", None) is not None:
            self.find_dialog.set_model(document.model)
        document.sig_changed.connect(self._refresh_find)
        document.sig_changed.connect(self._follow_selection)
        if old is not None:
            old.deleteLater()

    def _docks(self) -> None:
        for dock in self.findChildren(QDockWidget):
            self.removeDockWidget(dock)
            self.view_menu.removeAction(dock.toggleViewAction())
            dock.setParent(None)
            dock.deleteLater()
        self.side_tabs = QTabWidget()
        self.side_tabs.addTab(self.inspector, "Properties")
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # it wraps to the dock
        scroll.setWidget(self.conflicts)
        self.side_tabs.addTab(scroll, "Conflict resolution")
        self.side_tabs.addTab(self.grid, "Mapping grid")
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.addTab(self.problems, "Problems")
        self.run_page = QScrollArea()  # the Run tab scrolls rather than making the dock (and the canvas) give way
        self.run_page.setWidgetResizable(True)
        self.run_page.setWidget(self.launcher)
        self.bottom_tabs.addTab(self.run_page, "Run")
        docks = {}
        for title, widget, area in (("Model", self.tree.with_filter(), Qt.DockWidgetArea.LeftDockWidgetArea),
                                    ("Details", self.side_tabs, Qt.DockWidgetArea.RightDockWidgetArea),
                                    ("Problems and runs", self.bottom_tabs, Qt.DockWidgetArea.BottomDockWidgetArea)):
            dock = docks[title] = QDockWidget(title, self)
            dock.setObjectName(title)
            dock.setWidget(widget)
            self.addDockWidget(area, dock)
            self.view_menu.addAction(dock.toggleViewAction())
        self.docks = docks
        self._size_docks()

    def _size_docks(self) -> None:
        width = max(self.width(), 1200)  # Details: at least 400 px, the conflict editor's and grid's width at 1280
        self.resizeDocks([self.docks["Model"], self.docks["Details"]], [int(width * 0.15), max(int(width * 0.27), 400)],
                         Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["Problems and runs"]], [int(self.height() * 0.24)], Qt.Orientation.Vertical)

    def showEvent(self, event: object) -> None:
        super().showEvent(event)  # type: ignore[arg-type]
        QTimer.singleShot(0, self._size_docks)
        QTimer.singleShot(10, self.view.show_start)

    def select(self, ref: tuple[object, ...]) -> None:
        self.current_ref = tuple(ref)
        self.authoring_menu.update()
        self.inspector.show_ref(ref)
        table = ref[1] if ref and ref[0] in ("table", "column") else None
        if ref and ref[0] in ("mapping", "link", "method", "reverse"):
            mapping = self.document.model.mapping(str(ref[1]))
            table = mapping.target if mapping else None
        if table:
            self.conflicts.show_table(str(table))

    def _follow_selection(self, edits: list[Edit]) -> None:
        """What the Edit menu acts on follows a rename, and is dropped when an edit (an undo) takes it away."""
        ref = follow_ref(self.current_ref, edits)
        if not ref_exists(self.document.model, ref):
            ref = ()
        if ref != self.current_ref:
            self.current_ref = ref
            self.authoring_menu.update()

    def delete_focused(self) -> None:
        """Edit ▸ Delete (the Delete key) acts on the selection of the view that has the keyboard focus: the
        canvas deletes its selected tables and column maps, the model tree its current item; elsewhere (a grid,
        a form) it does nothing, so a key pressed there never deletes what the canvas shows selected."""
        focus = QApplication.focusWidget()
        if focus is None:
            return
        if focus is self.view or self.view.isAncestorOf(focus):
            self.controller.delete_selection()
        elif focus is self.tree or self.tree.isAncestorOf(focus):
            selected = self.tree.selectionModel().selectedIndexes()
            self.authoring.remove(self.tree.ref_at(selected[0] if selected else self.tree.currentIndex()))

    def centre_on(self, ref: tuple[object, ...]) -> None:
        """Selecting a table (or column) in the tree selects it on the canvas and centres it."""
        item = self.scene.tables.get(str(ref[1])) if ref and ref[0] in ("table", "column") else None
        if item is None:
            return
        if ref[0] == "table" and not item.isSelected():
            self.scene.clearSelection()
            item.setSelected(True)
        self.view.centerOn(item)

    def _select_new(self, ref: tuple[object, ...]) -> None:
        self.select(ref)
        self.centre_on(ref)

    def _tree_menu(self, ref: tuple[object, ...], at: object) -> None:
        menu = QMenu(self)
        self.authoring.fill_menu(menu, ref)
        menu.exec(at)  # type: ignore[call-overload]
        menu.deleteLater()

    def go_to(self, finding: Finding) -> None:
        item = self.scene.focus(finding.location)
        if item is not None:
            self.view.centerOn(item)
        if finding.location.mapping and self.document.model.mapping(finding.location.mapping) is not None:
            # selected, not only shown: the Edit menu acts on what the properties panel shows (focusing the
            # canvas selected the mapping's target table)
            self.select(("mapping", finding.location.mapping))
        if finding.code.startswith("CR") and finding.location.table:
            self.conflicts.show_table(finding.location.table)
            self.side_tabs.setCurrentIndex(1)

    def _show_counts(self, findings: list[Finding]) -> None:
        if self.document.checking:
            self.status.setText("Checking the model…")
            return
        errors, warnings = count(findings)
        self.status.setText(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}")
        self.status.setStyleSheet("color: #d32f2f" if errors else "")

    def _title(self, *_: object) -> None:
        path = self.document.path
        name = self.document.model.name or (path.stem if path else "untitled")
        self.setWindowTitle(f"{name}[*] — {path if path else 'not saved'} — Mapwright")
        self.setWindowModified(self.document.dirty)

    # --- actions ---------------------------------------------------------------

    def _make_actions(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._action(file, "&New model", QKeySequence.StandardKey.New, self.new_model)
        self._action(file, "&Open…", QKeySequence.StandardKey.Open, self.open_dialog)
        self.recent = RecentFiles(self.settings, file.addMenu("Open &recent"), self.open_path)
        self._action(file, "&Save", QKeySequence.StandardKey.Save, self.save)
        self._action(file, "Save &as…", QKeySequence.StandardKey.SaveAs, self.save_as)
        export = file.addMenu("&Export")
        for kind in EXPORTERS:
            export.addAction(f"{kind}…", bound(self.export, kind))
        self.diagram_action = file.addAction("Export &diagram…", lambda: tool("diagram_export").export_from(self))
        file.addAction("&Import tables from database…", lambda: tool("import_dialog").open_for(self))
        file.addSeparator()
        self._action(file, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        edit = bar.addMenu("&Edit")
        self.undo_action = self._action(edit, "&Undo", QKeySequence.StandardKey.Undo,
                                        lambda: self.document.undo_stack.undo())
        self.redo_action = self._action(edit, "&Redo", QKeySequence.StandardKey.Redo,
                                        lambda: self.document.undo_stack.redo())
        self._action(edit, "&Delete", QKeySequence.StandardKey.Delete, self.delete_focused)
        self._action(edit, "Select &all", QKeySequence.StandardKey.SelectAll, lambda: self.scene.select_tables())
        self.authoring = AuthoringActions(lambda: self.document, self, ask=self.ask)
        self.authoring.sig_problem.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.authoring.sig_select.connect(self._select_new)
        self.authoring_menu = install_edit_menu(edit, self.authoring, lambda: self.current_ref)
        self.authoring_actions = self.authoring_menu.actions
        edit.addSeparator()
        self.find_action = self._action(edit, "&Find…", QKeySequence.StandardKey.Find, self.show_find)
        self.preferences_action = self._action(edit, "Pre&ferences…", QKeySequence.StandardKey.Preferences,
                                               lambda: preferences.open_for(self, self.settings, self.autosaver))
        self.preferences_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.view_menu = bar.addMenu("&View")
        self._action(self.view_menu, "Zoom &in", QKeySequence.StandardKey.ZoomIn, lambda: self.view.zoom(1.2))
        self._action(self.view_menu, "Zoom &out", QKeySequence.StandardKey.ZoomOut, lambda: self.view.zoom(1 / 1.2))
        self._action(self.view_menu, "&Fit", QKeySequence("Ctrl+0"), lambda: self.view.fit())
        self._action(self.view_menu, "Auto &layout", QKeySequence("Ctrl+L"), self.auto_layout)
        self.view_menu.addSeparator()
        run = bar.addMenu("&Run")
        self.run_action = self._action(run, "&Run on sample data", QKeySequence("F5"), self.run_now)
        self.show_run_tab_action = self._action(run, "Show the Run &tab", QKeySequence("Ctrl+F5"),
                                                self.show_launcher)
        self._action(run, "Open run &directory…", QKeySequence("Ctrl+Shift+O"), self.open_run_dialog)
        self._make_help_menu()
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        for action in file.actions()[:2] + [self.undo_action, self.redo_action]:
            toolbar.addAction(action)

    def _make_help_menu(self) -> None:
        help_menu = self.menuBar().addMenu("&Help")
        self.legend_action = self._action(help_menu, "&Legend", QKeySequence(), self.show_legend)
        self.about_action = self._action(help_menu, "&About Mapwright", QKeySequence(), self.show_about)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.shortcuts_action = self._action(help_menu, "&Keyboard shortcuts", QKeySequence(),
                                             lambda: show_shortcuts(self))

    def show_legend(self) -> LegendDialog:
        """What the canvas's dots, dashes and colours mean (one window, raised when asked again)."""
        if getattr(self, "legend", None) is None:
            self.legend = LegendDialog(self)
        self.legend.show()
        self.legend.raise_()
        return self.legend

    def show_about(self) -> None:
        self.about = about_box(self)
        self.about.show()

    def show_find(self) -> FindDialog:
        """Edit ▸ Find: one non-modal window over the current model."""
        if getattr(self, "find_dialog", None) is None:
            self.find_dialog = FindDialog(self.document.model, self)
            self.find_dialog.sig_go.connect(self.go_to_ref)
        self.find_dialog.set_model(self.document.model)
        self.find_dialog.show()
        self.find_dialog.raise_()
        self.find_dialog.edit.setFocus()
        self.find_dialog.edit.selectAll()
        return self.find_dialog

    def _refresh_find(self, _edits: object = None) -> None:
        """An open Find window follows every edit, undo and redo: its hits are never of what is gone."""
        dialog = getattr(self, "find_dialog", None)
        if dialog is not None and dialog.isVisible():
            dialog.refresh()

    def go_to_ref(self, ref: tuple[str, ...]) -> None:
        """Select a table, column or mapping found by name, and bring it into view."""
        kind, key = ref[0], ref[1]
        location = (Location(mapping=key) if kind == "mapping"
                    else Location(table=key, column=ref[2] if kind == "column" else None))
        item = self.scene.focus(location)
        if item is not None:
            self.view.centerOn(item)
        self.select(ref)

    def _action(self, menu: QMenu, text: str, shortcut: QKeySequence | QKeySequence.StandardKey,
                slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        action.setShortcut(shortcut)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _rebind_undo(self) -> None:
        stack = self.document.undo_stack
        for action, can, signal in ((self.undo_action, stack.canUndo, stack.canUndoChanged),
                                    (self.redo_action, stack.canRedo, stack.canRedoChanged)):
            action.setEnabled(can())
            signal.connect(action.setEnabled)
        stack.undoTextChanged.connect(self._undo_text)
        stack.redoTextChanged.connect(self._redo_text)

    def _undo_text(self, text: str) -> None:
        self.undo_action.setText(f"&Undo {menu_text(text)}".strip())

    def _redo_text(self, text: str) -> None:
        self.redo_action.setText(f"&Redo {menu_text(text)}".strip())

    def auto_layout(self) -> None:
        positions = self.scene.auto_positions()
        self.controller.move_tables([(k, p.x(), p.y()) for k, p in positions.items()], "Auto layout")  # one edit
        self.view.fit()

    # --- runs ------------------------------------------------------------------

    def show_launcher(self) -> None:
        self.bottom_tabs.setCurrentWidget(self.run_page)
        self.docks["Problems and runs"].show()

    def run_now(self) -> None:
        """F5: show the Run tab and start a run with its choices (what blocks a run is shown there); with no
        sample data, ask where it should come from first."""
        self.show_launcher()
        self.launcher.run_or_choose_data()

    def ready_to_run(self) -> bool:
        """A run reads the model file, so unsaved edits are saved first (asked) or the run does not start."""
        if not self.document.dirty:
            return True
        if self.ask:
            answer = QMessageBox.question(
                self, "Run the saved model?",
                "The model has unsaved changes, and a run reads the model file. Save them and run?",
                QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Save)
            if answer != QMessageBox.StandardButton.Save:
                return False
        return self.save()  # a write that fails (a read-only folder, a full disk) is said there

    def open_run_dialog(self) -> None:
        start = open_run_start(self.settings, self.launcher.out_edit.text())  # the last run's folder, or runs/
        path = QFileDialog.getExistingDirectory(self, "Open run directory", start)
        if path:
            self.open_run(Path(path))

    def open_run(self, path: Path, sample_data: bool | None = None) -> ConflictBrowser:
        """Show a run directory in a conflict browser window (`sample_data`: it read the bundled sample data)."""
        from designer.browser.window import ConflictBrowser  # pyarrow's readers: loaded by the first run opened

        browser = ConflictBrowser()
        browser.sample_data = sample_data
        browser.requeuer.current_model = lambda: self.document.path if self.ready_to_run() else None
        browser.requeuer.open_run = self.open_run
        browser.setWindowTitle(f"Run {path} — Mapwright")
        browser.load_run(path)  # read off the GUI thread: the window shows "Loading…" meanwhile
        remember_run(self.settings, path)
        browser.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._keep_browser(browser)
        browser.show()
        return browser

    def _keep_browser(self, browser: ConflictBrowser) -> None:
        """Hold a reference while the window lives; forget it when Qt deletes it (closed)."""
        self.browsers.append(browser)
        browser.destroyed.connect(lambda _obj=None, gone=browser: self._forget_browser(gone))

    def _forget_browser(self, gone: ConflictBrowser) -> None:
        self.browsers = [b for b in self.browsers if b is not gone]

    def run_finished(self, status: str, out_dir: str) -> None:
        self.statusBar().showMessage(f"Run {status}: {out_dir}", 8000)
        if out_dir and (Path(out_dir) / "manifest.json").exists():
            self.open_run(Path(out_dir), is_bundled_sample_data(self.launcher.data_edit.text().strip()))

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.maybe_discard():
            for dialog in self.findChildren(QDialog):  # a running import or sample stops: nothing lands
                dialog.reject() if getattr(dialog, "STOPS_WITH_WINDOW", False) else None  # for a window gone
            self.autosaver.discard() if not self.document.dirty else None
            if self.warm_session is not None:
                self.warm_session.stop()
            for browser in list(self.browsers):  # the runs' windows go with the designer's, as its tools do
                browser.close()
            event.accept()
        else:
            event.ignore()

