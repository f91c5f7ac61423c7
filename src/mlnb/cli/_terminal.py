"""What the ``mlnb`` command writes on the terminal: tables (or JSON), progress lines on
standard error, and one-line errors with exit code 1 (:class:`Failure`, :func:`reported`)."""

from __future__ import annotations

import functools
import json
import sys
import time

import click

from ..io import ModelFileError

__all__ = [
    "Failure",
    "Progress",
    "echo_table",
    "one_line_warnings",
    "progress_over",
    "reported",
    "table_columns",
    "version",
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
    """Turn the library's errors into one-line messages and exit code 1."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (ValueError, TypeError, FileNotFoundError, ModelFileError, ImportError) as error:
            raise Failure(str(error)) from None

    return wrapper


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

    On a terminal one line is redrawn at every :meth:`step`; elsewhere (logs, pipes) a line
    is written per :meth:`log` call only. ``total``: the steps expected (e.g. folds x
    methods x data sets); the context's end writes how many were done, and in what time.
    """

    def __init__(self, total, label, *, quiet=False, unit="steps", stream=None):
        self.total, self.label, self.quiet, self.unit = total, label, quiet, unit
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done, self.start, self._width = 0, time.perf_counter(), 0

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
        """``n`` more steps done; ``note`` says what is running."""
        self.done += n
        if self.quiet or not self.tty:
            return
        line = f"{self.label} {self.done}/{self.total} {self.unit}, {self.elapsed()}: {note}"
        self._clear()
        self.stream.write(line[: _terminal_width() - 1])
        self.stream.flush()
        self._width = len(line)

    def log(self, text):
        """One line (a finished part), with the count and the elapsed time."""
        self._clear()
        self._write(f"[{self.done}/{self.total} {self.unit}, {self.elapsed()}] {text}")

    def _clear(self):
        if self._width and self.tty and not self.quiet:
            self.stream.write("\r" + " " * min(self._width, _terminal_width() - 1) + "\r")
            self._width = 0

    def _write(self, text):
        if not self.quiet:
            click.echo(text, file=self.stream)


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
            yield item
            self.progress.step(self.name(item))


def progress_over(items, label, quiet):
    """Iterate ``items`` with a progress line (elapsed time) on standard error."""
    return _Items(items, label, quiet, name=lambda i: str(i[0] if isinstance(i, tuple) else i))


def one_line_warnings():
    """Show mlnb's own warnings (e.g. a :class:`~mlnb.multilabel.CardinalityWarning` from a
    fit) as one line, ``warning: <message>``; others as Python shows them."""
    import warnings

    shown = warnings.formatwarning

    def formatted(message, category, filename, lineno, line=None):
        if category.__module__.startswith("mlnb."):
            return f"warning: {message}\n"
        return shown(message, category, filename, lineno, line)

    warnings.formatwarning = formatted
