"""Loading and saving model files.

Every way a file can be unreadable ends in one `ModelLoadError` whose text
names the file, the line and the field path, as in
`orders.json:41 mappings[2].columns.NAME: unknown method 'concatt'`.
Saving writes a temporary file beside the target, then renames it.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.limits import MAX_METHOD_DEPTH
from engine.model.jsonpos import line_of
from engine.model.jsonsafe import JsonLimitError, TooDeep, load_json
from engine.model.methods import METHOD_NAMES, METHODS_TOO_DEEP, too_deep_in_data
from engine.model.schema import Model

MAX_MODEL_BYTES = 32 * 1024 * 1024
"""A model file larger than this is refused: it is almost surely a data file opened by mistake."""


class ModelLoadError(Exception):
    """A model file that cannot be read, with where and why."""

    def __init__(self, file: str, message: str, line: int | None = None, field: str = "") -> None:
        message, field = one_line(message), one_line(field)
        self.file, self.message, self.line, self.field = file, message, line, field
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where} {field}: {message}" if field else f"{where}: {message}")


_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
"""Unicode's bidirectional controls: an override in a name reorders the rest of the line as it is shown."""
_CONTROL = ({i: f"\\x{i:02x}" for i in (*range(32), *range(0x7F, 0xA0))} | {10: "\\n", 13: "\\r", 9: "\\t"}
            | {i: f"\\u{i:04x}" for i in (*_BIDI, 0x2028, 0x2029)})


def one_line(text: str) -> str:
    """`text` with control characters escaped, so a name holding a newline (or a line or paragraph
    separator) cannot split an error in two, nor one holding ESC or a C1 control (`\\x9b`, a CSI on its
    own) drive the terminal it is printed on, nor a bidirectional override (`\\u202e`) show the rest of the
    line reversed: what is printed reads as what the file holds."""
    return text.translate(_CONTROL)


def format_path(path: Sequence[str | int]) -> str:
    """`("mappings", 2, "columns", "NAME")` -> `mappings[2].columns.NAME`."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def load_model(path: str | os.PathLike[str]) -> Model:
    """Read and check a model file; raises `ModelLoadError`."""
    name = str(path)
    try:
        raw = read_model_bytes(Path(path), name)
    except FileNotFoundError:
        raise ModelLoadError(name, "no such file") from None
    except PermissionError:
        raise ModelLoadError(name, "permission denied") from None
    except OSError as exc:  # a path through a file (ENOTDIR), a symlink loop, an I/O error: unreadable all the same
        raise ModelLoadError(name, f"cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ModelLoadError(name, f"not UTF-8 text (byte {exc.start})", line=line) from None
    return parse_model(text, name)


def read_model_bytes(path: Path, name: str) -> bytes:
    """The bytes of a model file, refused (`ModelLoadError`) unless it is a regular file of at most
    `MAX_MODEL_BYTES`.

    A device or a FIFO has a size of 0 to `stat()`, so the size cap alone would let `/dev/zero` be read
    until memory runs out, and a FIFO without a writer block forever: only a regular file is read, as a save
    only ever replaces one (`write_atomic`). The path is checked before it is opened (opening a device can
    act on it), then the descriptor, opened without blocking, is checked again (the path may have been
    swapped meanwhile), and at most the cap and one byte are read whatever the size said (a file that grows).
    """
    _check_model_file(name, path.stat())
    with open(path, "rb", opener=_open_nonblocking) as fh:
        _check_model_file(name, os.fstat(fh.fileno()))
        raw = fh.read(MAX_MODEL_BYTES + 1)
    if len(raw) > MAX_MODEL_BYTES:
        raise _too_big(name, f"more than {MAX_MODEL_BYTES // 2**20} MB")
    return raw


def _check_model_file(name: str, info: os.stat_result) -> None:
    """Refuse what cannot be a model file: a folder, anything but a regular file, or one over the cap."""
    if stat.S_ISDIR(info.st_mode):
        raise ModelLoadError(name, "is a folder, not a model file")
    if not stat.S_ISREG(info.st_mode):
        raise ModelLoadError(name, f"is {file_kind(info.st_mode)}, not a model file (a model is a regular file; "
                             "a pipe, device or socket is never read)")
    if info.st_size > MAX_MODEL_BYTES:
        raise _too_big(name, f"{info.st_size / 1e6:.1f} MB")


def _too_big(name: str, size: str) -> ModelLoadError:
    return ModelLoadError(name, f"the file is {size}; a model file is at most {MAX_MODEL_BYTES // 2**20} MB "
                          "(is this a data file?)")


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _open_nonblocking(path: str, flags: int) -> int:
    """`open()`'s opener: without blocking, so a FIFO swapped in after the check cannot hang the open (a
    regular file reads as ever). Where there is no O_NONBLOCK (Windows), there are no FIFOs to open."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def parse_model(text: str, name: str = "<model>") -> Model:
    """Parse model JSON text; `name` is the file name errors show."""
    if not text.strip():
        raise ModelLoadError(name, "the file is empty (expected a Mapwright model in JSON)")
    try:
        data = load_json(text)
    except json.JSONDecodeError as exc:
        raise ModelLoadError(name, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except TooDeep as exc:
        raise _too_deep(name, text, exc) from None
    except JsonLimitError as exc:
        raise ModelLoadError(name, exc.message, line=line_of(text, exc.path), field=format_path(exc.path)) from None
    if not isinstance(data, dict):
        raise ModelLoadError(name, f"expected a JSON object, found {_json_kind(data)}", line=1)
    if "format" not in data:
        raise ModelLoadError(name, "missing 'format' (expected \"mapwright/1\")", line=1, field="format")
    deep = _methods_too_deep(data)
    if deep:
        column_map, node = deep
        raise ModelLoadError(name, METHODS_TOO_DEEP, line=line_of(text, node), field=format_path(column_map))
    try:
        model = Model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        path = _data_path(data, err["loc"])
        raise ModelLoadError(name, _describe(err) + _column_named(data, path), line=line_of(text, path),
                             field=format_path(path)) from None
    problem = structure_problem(model)
    if problem:
        path, message = problem
        raise ModelLoadError(name, message, line=line_of(text, path), field=format_path(path))
    return model


def _column_named(data: Any, path: Sequence[str | int]) -> str:
    """` (column NAME)` for an error inside a column (its type, say), whose path names it only by its place:
    the contract has a load error name the column."""
    for i in range(len(path) - 2, -1, -1):
        if path[i] == "columns" and isinstance(path[i + 1], int):
            node: Any = data
            for step in path[:i + 2]:
                try:
                    node = node[step]
                except (KeyError, IndexError, TypeError):
                    return ""
            named = node.get("name") if isinstance(node, dict) else None
            return f" (column {named})" if isinstance(named, str) and named and path[i + 2:] != ("name",) else ""
    return ""


def _methods_too_deep(data: dict[str, Any]) -> tuple[tuple[str | int, ...], tuple[str | int, ...]] | None:
    """The first column map whose methods nest beyond `MAX_METHOD_DEPTH`: its path and the path of
    the first method too deep. Checked on the JSON data, before pydantic builds (recursively) the model."""
    mappings = data.get("mappings")
    for i, mapping in enumerate(mappings if isinstance(mappings, list) else []):
        columns = mapping.get("columns") if isinstance(mapping, dict) else None
        for column, method in (columns.items() if isinstance(columns, dict) else ()):
            inner = too_deep_in_data(method)
            if inner is not None:
                column_map = ("mappings", i, "columns", column)
                return column_map, (*column_map, *inner)
    return None


def _too_deep(name: str, text: str, exc: TooDeep) -> ModelLoadError:
    """Say what is nested too deeply: the methods of a column map (the one deep structure a model has),
    or else arrays and objects, at the path where the nesting passes the limit."""
    steps = [o.step for o in exc.opened]
    line = text.count("\n", 0, exc.offset) + 1
    if len(steps) > 4 and steps[0] == "mappings" and steps[2] == "columns" and isinstance(steps[3], str):
        methods = [o for o in exc.opened[4:] if o.kind == "{"]
        if len(methods) > MAX_METHOD_DEPTH:  # the line of the first method past the limit
            past = methods[MAX_METHOD_DEPTH].offset
            return ModelLoadError(name, METHODS_TOO_DEEP, line=text.count("\n", 0, past) + 1,
                                  field=format_path(steps[:4]))  # type: ignore[arg-type]
    path = tuple(s for s in steps[:-1] if s is not None)
    field = format_path(path[:6]) + ("..." if len(path) > 6 else "")
    return ModelLoadError(name, f"{exc.message} (a model file nests at most {exc.limit})", line=line, field=field)


def structure_problem(model: Model) -> tuple[tuple[str | int, ...], str] | None:
    """The first duplicate or dangling identity that makes references ambiguous, or None.

    Rules report what a data architect can fix in the designer; these are
    the few faults that leave no well-defined model to show.
    """
    servers: set[str] = set()
    for i, server in enumerate(model.servers):
        if server.id in servers:
            return ("servers", i, "id"), f"server id {server.id!r} is used twice"
        servers.add(server.id)
    tables: set[str] = set()
    for i, table in enumerate(model.tables):
        if table.server not in servers:
            return ("tables", i, "server"), f"unknown server {table.server!r} (servers: {', '.join(sorted(servers))})"
        if table.key in tables:
            return ("tables", i, "name"), f"table {table.key} is defined twice"
        tables.add(table.key)
        names: set[str] = set()
        for j, col in enumerate(table.columns):
            if col.name in names:
                return ("tables", i, "columns", j, "name"), f"column {col.name!r} appears twice in {table.key}"
            names.add(col.name)
    mappings: set[str] = set()
    for i, mapping in enumerate(model.mappings):
        if mapping.id in mappings:
            return ("mappings", i, "id"), f"mapping id {mapping.id!r} is used twice"
        mappings.add(mapping.id)
    conflicts: set[str] = set()
    for i, entry in enumerate(model.conflicts):
        if entry.table in conflicts:
            return ("conflicts", i, "table"), f"table {entry.table} has two conflicts entries"
        conflicts.add(entry.table)
    return None


def _data_path(data: Any, loc: Sequence[str | int]) -> tuple[str | int, ...]:
    """Follow pydantic's error location through the data, dropping union tags it inserts."""
    path: list[str | int] = []
    node = data
    for step in loc:
        if (isinstance(node, dict) and isinstance(step, str) and step in node) or (
                isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)):
            node = node[step]  # type: ignore[index]
            path.append(step)
        elif isinstance(node, dict) and isinstance(step, str) and step not in METHOD_NAMES \
                and not step.startswith("function-") and step not in ("str", "int", "float", "bool", "none"):
            path.append(step)  # a missing field: point at its parent's line, name the field
            break
    return tuple(path)


def _describe(err: Any) -> str:
    kind, ctx, given = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "union_tag_invalid":
        return f"unknown method {ctx.get('tag')!r} (methods: {', '.join(METHOD_NAMES)})"
    if kind == "union_tag_not_found":
        if isinstance(given, dict):
            return "a method object needs a 'method' field"
        return f"expected a source column name or a method object (found {_json_kind(given)}{_preview(given)})"
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "literal_error":
        return f"{given!r} is not one of {ctx.get('expected')}"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    return f"{err['msg'][0].lower()}{err['msg'][1:]} (found {_json_kind(given)}{_preview(given)})"


def _json_kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _preview(value: Any) -> str:
    if isinstance(value, (str, int, float, bool)):
        text = json.dumps(value)
        return f" {text[:40]}" + ("..." if len(text) > 40 else "")
    return ""


def dump_model(model: Model) -> str:
    """The model as the JSON text a save writes (defaults left out, stable key order)."""
    data = model.model_dump(mode="json", exclude_defaults=True, by_alias=True)
    data = {"format": model.format, **data}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def save_model(model: Model, path: str | os.PathLike[str]) -> None:
    """Write atomically: a temporary file in the same folder, flushed, then renamed over the target."""
    write_atomic(Path(path), dump_model(model))


def write_atomic(target: Path, text: str | bytes, mode: int | None = None) -> None:
    """Write `text` (UTF-8) or bytes to `target` so that a reader sees the old file or the new one, never a part.

    A symlink is followed, so the file it points to is replaced; a target that is a pipe, a device or a
    socket raises `OSError` (EINVAL), and a file without any write permission `PermissionError` (EACCES):
    either is left as it is. `mode`: the permissions to give it
    (default: keep the replaced file's, or the umask's for a new file). The text goes to
    `.NAME.PID.XXXXXXXX.tmp` beside the target, then is renamed over it. A writer that is killed leaves its
    temporary file behind: the next write of the same target removes such leftovers.
    """
    target = Path(target)
    if target.is_symlink():
        target = target.resolve()
    if target.exists() and not target.is_file() and not target.is_dir():
        # the rename would put a regular file in place of a FIFO or a device (as root, `--out /dev/null`
        # would replace /dev/null): never ours to replace
        raise OSError(errno.EINVAL, "not a regular file (a pipe, device or socket is never replaced)", str(target))
    if target.is_file() and not target.stat().st_mode & 0o222:
        # the rename needs only the folder's permission: a file its owner made read-only would be replaced
        # (and by root, whatever os.access says), where writing it in place is refused
        raise PermissionError(errno.EACCES, "the file is read-only (no one may write it)", str(target))
    remove_stale_temporaries(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8") if isinstance(text, str) else text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(target) if mode is None else mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def starts_with(path: Path, opening: str) -> bool:
    """Whether the file at `path` begins with `opening` (False when it cannot be read): how an export knows
    a file it may replace or remove is one it wrote."""
    try:
        with path.open("rb") as f:
            return f.read(len(opening.encode())) == opening.encode()
    except OSError:
        return False


def _mode_for(target: Path) -> int:
    """The permissions the saved file gets: the replaced file's, or for a new file what the umask allows
    (a temporary file is created 0600, which would hide a model from the rest of a team)."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


LEGACY_TEMPORARY_AGE_S = 3600


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove the temporary files that killed writers of `target` left; returns those removed.

    Only files named as `write_atomic` names them (`.NAME.PID.XXXXXXXX.tmp`, regular files) whose
    process PID is gone; other files, and the temporaries of writers still running, stay. Earlier versions
    named them `.NAME.XXXXXXXX.tmp`, without the pid: those go once they are an hour old (a save takes
    milliseconds, so their writer is long gone).
    """
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(?:(\d+)\.)?[a-z0-9_]{{8}}\.tmp")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return []
    removed = []
    for name in sorted(names):
        match = pattern.fullmatch(name)
        path = target.parent / name
        if match is None or path.is_symlink() or not path.is_file():
            continue
        pid = match.group(1)
        if _process_alive(int(pid)) if pid else time.time() - path.stat().st_mtime < LEGACY_TEMPORARY_AGE_S:
            continue
        try:
            path.unlink()
        except OSError:  # another save removed it first, or the folder is read-only: not this save's concern
            continue
        removed.append(path)
    return removed


def _process_alive(pid: int) -> bool:
    """True unless no process `pid` exists (one we may not signal exists)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
