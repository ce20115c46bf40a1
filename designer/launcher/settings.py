"""What the launcher remembers per model (QSettings) and the folders it proposes when it knows nothing yet."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from resources import SAMPLE_MODEL

ORGANIZATION = APPLICATION = "Mapwright"
DEFAULT_MASTER = "local[*]"
#: The engine choices of the Run panel, as remembered: the first two run without Spark.
AUTO, INPROCESS, SPARK_LOCAL, SPARK_CLUSTER = "auto", "inprocess", "spark-local", "spark-cluster"
ENGINE_CHOICES = (AUTO, INPROCESS, SPARK_LOCAL, SPARK_CLUSTER)
SAMPLE_DATA = SAMPLE_MODEL.parent / "orders-data"
SAMPLE_DEBEZIUM_DATA = SAMPLE_MODEL.parent / "orders-debezium"  # the same day as Debezium events
SAMPLE_DATA_NOTE = ("The bundled sample data is faulty on purpose: its malformed change records and its schema "
                    "change at noon (web.ORDERS version 2) are there to show what rejects look like.")
_GROUP = "runLauncher"
PREFERENCES = "preferences"
"""The QSettings group of Edit ▸ Preferences (`designer.preferences`): defaults for what a model has not chosen."""
RUNS_DIR_ENV = "MAPWRIGHT_RUNS_DIR"
"""Where runs are kept when set (Edit ▸ Preferences sets it for the designer and the runs it starts)."""
SAMPLE_MARKER = "sampledata.json"  # what the sample-data generator leaves in a folder it wrote


@dataclass(frozen=True)
class RunChoices:
    """The choices remembered for one model: the local Spark master, the sample data folder, the engine
    (one of `ENGINE_CHOICES`) and the cluster's URL (for `spark-cluster`)."""

    master: str
    data_dir: str
    engine: str = AUTO
    cluster: str = ""


def preference(settings: QSettings, name: str, default: str = "") -> str:
    """The value of preference `name` (`PREFERENCES`), or `default` when none was set."""
    value = settings.value(f"{PREFERENCES}/{name}", "")
    return str(value) if value not in (None, "") else default


class LauncherSettings:
    """Per-model run choices in QSettings, keyed by the model's absolute path (hashed: paths hold `/`)."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self._settings = settings if settings is not None else QSettings(ORGANIZATION, APPLICATION)

    @property
    def qsettings(self) -> QSettings:
        """The settings behind (the database sampler remembers its URL there, as the import does)."""
        return self._settings

    def load(self, model: Path) -> RunChoices:
        key = _key(model)
        default_master = preference(self._settings, "master", DEFAULT_MASTER)
        master = str(self._settings.value(f"{key}/master", default_master) or default_master)
        data_dir = str(self._settings.value(f"{key}/dataDir", "") or "") or default_data_dir(model)
        engine = str(self._settings.value(f"{key}/engine", "") or "")
        if not engine and not self.knows(model):  # a model never run here: the preferred engine
            engine = preference(self._settings, "engine", AUTO)
        cluster = str(self._settings.value(f"{key}/cluster", "") or "")
        if engine not in ENGINE_CHOICES:  # remembered before the engine choice: Auto, unless a cluster was chosen
            engine = AUTO if master.startswith("local") else SPARK_CLUSTER
        if not master.startswith("local"):  # a cluster remembered as the master, before the URL field
            master, cluster = DEFAULT_MASTER, cluster or master
        return RunChoices(master, data_dir, engine, cluster)

    def knows(self, model: Path) -> bool:
        """True when choices were ever saved for `model`."""
        return self._settings.contains(f"{_key(model)}/master")

    def save(self, model: Path, choices: RunChoices) -> None:
        key = _key(model)
        self._settings.setValue(f"{key}/model", str(model.absolute()))
        self._settings.setValue(f"{key}/master", choices.master)
        self._settings.setValue(f"{key}/dataDir", choices.data_dir)
        self._settings.setValue(f"{key}/engine", choices.engine)
        self._settings.setValue(f"{key}/cluster", choices.cluster)
        self._settings.sync()


def _key(model: Path) -> str:
    digest = hashlib.sha1(str(model.absolute()).encode("utf-8")).hexdigest()[:16]
    return f"{_GROUP}/{digest}"


def is_sample_model(model: Path) -> bool:
    try:
        return model.resolve() == SAMPLE_MODEL.resolve()
    except OSError:
        return False


def is_bundled_sample_data(folder: str | Path | None) -> bool:
    """True when `folder` is the bundled (deliberately faulty) sample data, in either format."""
    if not folder:
        return False
    try:
        return Path(folder).expanduser().resolve() in (SAMPLE_DATA.resolve(), SAMPLE_DEBEZIUM_DATA.resolve())
    except OSError:
        return False


def default_data_dir(model: Path) -> str:
    """The bundled sample data for the bundled model; else a `data/` folder beside the model, if any."""
    if is_sample_model(model) and SAMPLE_DATA.is_dir():
        return str(SAMPLE_DATA)
    beside = model.absolute().parent / "data"
    return str(beside) if beside.is_dir() else ""


def runs_folder(model: Path) -> Path:
    """The folder Edit ▸ Preferences names (`RUNS_DIR_ENV`); else `runs/` beside the model when that folder is
    writable (never inside the bundle), else in user data."""
    chosen = os.environ.get(RUNS_DIR_ENV, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    parent = model.absolute().parent
    if not is_sample_model(model) and os.access(parent, os.W_OK):
        return parent / "runs"
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return (Path(location) if location else Path.home()) / APPLICATION / "runs"


def samples_folder() -> Path:
    """Where sample data of a model never saved goes: the application's data location."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return (Path(location) if location else Path.home()) / APPLICATION / "samples"


def default_sample_dir(model: Path | None, now: datetime | None = None) -> Path:
    """The folder to generate sample data into: `<stem>-data/` beside a saved model (written again when the
    generator wrote it: its `sampledata.json` says so; `<stem>-data-2/`, ... when it holds anything else), else
    `<stem>-<timestamp>-data/` in the application's data location."""
    if model is not None and not is_sample_model(model) and os.access(model.absolute().parent, os.W_OK):
        base = model.absolute().parent / f"{model.stem}-data"
    else:
        stem = model.stem if model is not None else "untitled"
        base = samples_folder() / f"{stem}-{(now or datetime.now()).strftime('%Y%m%d-%H%M%S')}-data"
    candidate, n = base, 1
    while candidate.exists() and not _may_generate_into(candidate):
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def _may_generate_into(folder: Path) -> bool:
    try:
        return folder.is_dir() and (not any(folder.iterdir()) or (folder / SAMPLE_MARKER).is_file())
    except OSError:
        return False


def default_out_dir(model: Path, now: datetime | None = None) -> Path:
    """A fresh `runs/<model-stem>-<timestamp>` folder for the next run."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    base = runs_folder(model) / f"{model.stem}-{stamp}"
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate
