"""What the ``mlnb`` command writes on the terminal: tables (or JSON), progress lines on
standard error, and one-line errors with exit code 1 (:class:`Failure`, :func:`reported`);
and :func:`write_text`, which writes an output file so that its failures name it."""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import sys
import time

import click

__all__ = [
    "Failure",
    "Progress",
    "echo_table",
    "naming",
    "os_error_message",
    "one_line_warnings",
    "progress_over",
    "reported",
    "table_columns",
    "version",
    "write_text",
]


def version():
    """mlnb's version, without importing the estimators (the package's, else its metadata)."""
    version = getattr(sys.modules.get("mlnb"), "__version__", None)
    if version is None:
        from importlib.metadata import version as installed

        version = installed("mlnb")
    return version


class Failure(click.ClickException):
    """An error the user can act on: printed as ``mlnb: error: ...``, exit code 1."""

    exit_code = 1

    def format_message(self):
        return self.message

    def show(self, file=None):
        click.echo(f"mlnb: error: {self.format_message()}", err=True)


def reported(command):
    """Turn every error of a command into one line, ``mlnb: error: ...``, and exit code 1.

    The library's errors (ValueError, TypeError, a missing extra's ImportError,
    :class:`~mlnb.io.ModelFileError`) keep their message; an OSError (a full disk, a denied
    permission, a missing folder) names its path (:func:`os_error_message`). Anything else
    is a bug in mlnb: one line that says so, and the traceback only with MLNB_DEBUG=1.
    """

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise  # click's own: usage errors (exit code 2), --help, Ctrl-C
        except OSError as error:
            raise Failure(os_error_message(error)) from None
        except (ValueError, TypeError, ImportError) as error:  # ModelFileError: a ValueError
            raise Failure(str(error)) from None
        except MemoryError:
            raise Failure(
                "out of memory: try a smaller data set or part (--part, --split), or fewer "
                "methods at once"
            ) from None
        except Exception as error:
            if os.environ.get("MLNB_DEBUG"):
                raise
            raise Failure(
                f"internal error: {type(error).__name__}: {error} (a bug in mlnb, please "
                "report it; MLNB_DEBUG=1 shows the traceback)"
            ) from None

    return wrapper


def os_error_message(error):
    """An OSError in one line that names its path: ``PATH: No space left on device``.

    A message of mlnb's own (not the system's ``[Errno N] ...``) is kept as it is.

    Examples
    --------
    >>> os_error_message(OSError(28, "No space left on device", "out/model.mlnb"))
    'out/model.mlnb: No space left on device'
    >>> os_error_message(FileNotFoundError("emotions.arff: no such file"))
    'emotions.arff: no such file'
    """
    if error.filename is None or not str(error).startswith("[Errno"):
        return str(error)
    names = [os.fsdecode(error.filename)]
    if error.filename2 is not None:
        names.append(os.fsdecode(error.filename2))
    return f"{' -> '.join(names)}: {error.strerror or error}"


@contextlib.contextmanager
def naming(path):
    """Give an OSError raised inside the block the name of ``path`` if it has none (the
    system names no file when a write finds the disk full)."""
    try:
        yield
    except OSError as error:
        if error.filename is None:
            raise OSError(error.errno, error.strerror or str(error), os.fspath(path)) from error
        raise


def write_text(path, text):
    """Write ``text`` (UTF-8) to ``path``: a file, a device or a named pipe.

    An OSError names ``path`` (:func:`naming`); a named pipe that no process reads is an
    error instead of a wait.
    """
    path = os.fspath(path)
    with naming(path):
        try:  # O_NONBLOCK: opening a pipe without a reader fails instead of waiting
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK, 0o666)
        except OSError as error:
            if error.errno == errno.ENXIO:
                raise OSError(error.errno, "a named pipe that no process reads", path) from None
            raise
        os.set_blocking(fd, True)
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(text)


def echo_table(rows, columns, *, as_json, quiet=False):
    """Rows (dicts) as aligned columns, or as JSON."""
    if as_json:
        click.echo(json.dumps(rows, indent=1, default=float))
        return
    if quiet and not rows:
        return
    widths = {c: max(len(c), *(len(_cell(r.get(c))) for r in rows)) for c in columns}
    click.echo("  ".join(c.ljust(widths[c]) for c in columns))
    for row in rows:
        click.echo("  ".join(_cell(row.get(c)).ljust(widths[c]) for c in columns))


def _cell(value):
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"
    return "" if value is None else str(value)


def table_columns(rows, first):
    """``first``, then every key of the rows in order of appearance."""
    return [first, *dict.fromkeys(c for row in rows for c in row if c != first)]


def _elapsed(seconds):
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}:{seconds:02d}"


def _terminal_width():
    import shutil

    return shutil.get_terminal_size((100, 20)).columns


class Progress:
    """Progress on standard error, with the elapsed time; nothing when ``quiet``.

    On a terminal one line is redrawn at every :meth:`step` and :meth:`status`. Elsewhere
    (logs, pipes: no carriage returns) each step or status is a line of its own, at most
    one every ``every`` seconds (the first and the last always); :meth:`log` always writes
    its line. ``total``: the steps expected (e.g. folds x methods x data sets); the
    context's end writes how many were done, and in what time.

    Examples
    --------
    >>> import io
    >>> log = io.StringIO()
    >>> with Progress(2, "cross-validating", unit="folds", stream=log) as progress:
    ...     progress.status("br on emotions, 2 folds")
    ...     progress.step("br on emotions, fold 1/2 done")
    ...     progress.step("br on emotions, fold 2/2 done")
    >>> print(log.getvalue(), end="")
    [0/2 folds, 0:00] br on emotions, 2 folds
    [2/2 folds, 0:00] br on emotions, fold 2/2 done
    cross-validating: 2 folds in 0:00
    """

    def __init__(self, total, label, *, quiet=False, unit="steps", stream=None, every=5.0):
        self.total, self.label, self.quiet, self.unit = total, label, quiet, unit
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self.done, self.start, self._width = 0, time.perf_counter(), 0
        self._last_line = None  # when a rate-limited line was last written (not a terminal)

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, kind, *exc):
        self._clear()
        if kind is None:
            self._write(f"{self.label}: {self.done} {self.unit} in {self.elapsed()}")
        return False

    def elapsed(self):
        """Time since the start, as m:ss."""
        return _elapsed(time.perf_counter() - self.start)

    def step(self, note="", n=1):
        """``n`` more steps done; ``note`` says what is running or was done."""
        self.done += n
        self._show(note, last=self.done >= self.total)

    def status(self, note):
        """What is running now, without a step done (e.g. a long fold starting)."""
        self._show(note)

    def log(self, text):
        """One line (a finished part), with the count and the elapsed time."""
        self._clear()
        self._write(self._counted(text))

    def _counted(self, text):
        return f"[{self.done}/{self.total} {self.unit}, {self.elapsed()}] {text}"

    def _show(self, note, last=False):
        if self.quiet:
            return
        if not self.tty:
            now = time.perf_counter()
            if last or self._last_line is None or now - self._last_line >= self.every:
                self._last_line = now
                self._write(self._counted(note))
            return
        line = f"{self.label} {self.done}/{self.total} {self.unit}, {self.elapsed()}: {note}"
        self._clear()
        self.stream.write(line[: _terminal_width() - 1])
        self.stream.flush()
        self._width = len(line)

    def _clear(self):
        if self._width and self.tty and not self.quiet:
            self.stream.write("\r" + " " * min(self._width, _terminal_width() - 1) + "\r")
            self._width = 0

    def _write(self, text):
        if not self.quiet:
            click.echo(text, file=self.stream)
            self.stream.flush()


class _Items:
    """A Progress over ``items``: iterating steps once per item, naming it."""

    def __init__(self, items, label, quiet, name=str):
        self.items, self.name = list(items), name
        self.progress = Progress(len(self.items), label, quiet=quiet, unit="done")

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)

    def __iter__(self):
        for item in self.items:
            self.progress.status(f"{self.name(item)}...")
            yield item
            self.progress.step(f"{self.name(item)} done")


def progress_over(items, label, quiet):
    """Iterate ``items`` with a progress line (elapsed time) on standard error."""
    return _Items(items, label, quiet, name=lambda i: str(i[0] if isinstance(i, tuple) else i))


def one_line_warnings():
    """Show mlnb's own warnings (e.g. a :class:`~mlnb.multilabel.CardinalityWarning` from a
    fit) as one line, ``warning: <message>``; others as Python shows them."""
    import warnings

    shown = warnings.formatwarning
    if getattr(shown, "_mlnb_one_line", False):
        return  # installed by an earlier command in this process: wrap it only once

    def formatted(message, category, filename, lineno, line=None):
        if category.__module__.startswith("mlnb."):
            return f"warning: {message}\n"
        return shown(message, category, filename, lineno, line)

    formatted._mlnb_one_line = True
    warnings.formatwarning = formatted
