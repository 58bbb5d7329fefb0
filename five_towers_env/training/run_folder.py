"""A training run's folder (``<out_dir>/<name>``) and the files both trainers write into it.

:class:`RunFolder` writes each file whole (:mod:`five_towers_env.atomic`): the run's ``config.yaml``
(read again on resume), its learning curve as a CSV (rewritten whole at every point, never appended
to: a kill leaves the previous curve) and that curve as a PNG (:func:`plot_curve`, the one
learning-curve plotter). It also knows the names of the run's files: a folder holding any of them
holds a run, which a new run does not overwrite unless ``--force`` removes them (and only them).
``provenance.json`` is the command line's (:class:`five_towers_env.provenance.Invocation`), the same for both.
"""
from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from five_towers_env.atomic import (
    PARTIAL,
    LinkRefused,
    atomic_open,
    folder_problem,
    link_problem,
    open_append,
    save_figure,
)
from five_towers_env.core.game import parse_setup_key
from five_towers_env.training.config_base import write_settings

CONFIG_FILE = "config.yaml"
#: the curve columns :func:`plot_curve` draws by default: ``win_rate_vs_<opponent>``
WIN_RATE_PREFIX = "win_rate_vs_"


def write_csv(path: str | Path, rows: Sequence[Mapping[str, Any]], fields: Sequence[str] | None = None) -> Path:
    """Write ``rows`` as a CSV, atomically: the columns ``fields`` (default: every key, in order of first
    appearance), an empty cell where a row has no value."""
    fields = list(fields) if fields is not None else list(dict.fromkeys(k for row in rows for k in row))
    with atomic_open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, restval="", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return Path(path)


def read_csv(path: str | Path) -> list[dict[str, str]]:
    """The rows of a CSV written by :func:`write_csv` (an empty list if there is no such file)."""
    if not Path(path).exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def share_multiple(column: str, several_setups: bool) -> float:
    """The factor that turns curve column ``column`` into a multiple of the equal share: ``n`` for a
    several-setup run's ``<name>@<n>p-<variant>`` column, 2 for its other columns (the pool test's rate,
    already scaled to two players), 1 (the plain win rate) in a one-setup run."""
    if "@" in column:
        return float(parse_setup_key(column.rsplit("@", 1)[1])[0])
    return 2.0 if several_setups else 1.0


def plot_curve(csv_path: str | Path, png: str | Path, series: Mapping[str, str] | None = None,
               x: str = "timesteps", title: str | None = None) -> Path:
    """Draw a learning curve's win rates into ``png`` (atomically): each column of ``series`` (column ->
    label; default: every ``win_rate_vs_<opponent>`` column, labelled ``<opponent>``) against ``x``,
    ``timesteps`` (learner decisions) or ``wall_s`` (drawn in hours). Rows without a value are skipped.
    A several-setup run (columns ``...@<n>p-<variant>``) is drawn as multiples of the equal share ``1/n``
    (:func:`share_multiple`), so setups of different player counts share one axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_csv(csv_path)
    if series is None:
        columns = rows[0] if rows else {}
        series = {k: k[len(WIN_RATE_PREFIX):] for k in columns if k.startswith(WIN_RATE_PREFIX)}
    several = any("@" in key for key in series)
    hours = x == "wall_s"
    fig, ax = plt.subplots(figsize=(7, 4))
    drawn, top = 0, 1.0
    for key, label in series.items():
        scale = share_multiple(key, several)
        points = [(float(r[x]) / 3600 if hours else int(r[x]), float(r[key]) * scale) for r in rows if r.get(key)]
        if points:
            ax.plot(*zip(*points), marker=".", label=label)
            drawn += 1
            top = max(top, max(y for _, y in points))
    ax.axhline(1.0 if several else 0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("training time (hours)" if hours else "training timesteps (learner decisions)")
    ax.set_ylabel("win share x n (1: the equal share 1/n)" if several else "win rate")
    ax.set_ylim(0, max(2.0, top * 1.05) if several else 1)
    ax.grid(alpha=0.3)
    if drawn:  # a run without evaluations has no series to name
        ax.legend(title="against" if all(k.startswith(WIN_RATE_PREFIX) for k in series) else None)
    ax.set_title(title or f"{Path(csv_path).parent.name}: win {'share' if several else 'rate'} during training")
    fig.tight_layout()
    save_figure(fig, png, dpi=110)
    plt.close(fig)
    return Path(png)


def run_files(folder: Path, names: Sequence[str]) -> list[Path]:
    """The files of a run in ``folder``: those of ``names`` there (a folder only when not empty)."""
    found = [folder / name for name in names]
    return [p for p in found if p.is_file() or (p.is_dir() and any(p.iterdir()))]


def remove_run_files(folder: Path, names: Sequence[str]) -> None:
    """Remove the files ``names`` of the run in ``folder`` (folders with what they hold) and the
    temporaries a killed run left (``.partial-``); other files in ``folder`` stay."""
    import shutil

    for path in [folder / name for name in names] + sorted(folder.glob(f".*{PARTIAL}*")):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def existing_run_message(folder: Path, found: Sequence[Path], resume: str) -> str:
    """The one-line error for a new run into ``folder``, which holds the run files ``found``."""
    names = ", ".join(p.name + ("/" if p.is_dir() else "") for p in found[:4]) + (", ..." if len(found) > 4 else "")
    return (f"the run folder {folder} holds a run already ({names}): continue it with {resume}, start a new one "
            "beside it with --set name=NAME, or start over with --force (deletes that run's files first)")


class RunFolder:
    """The folder ``path`` of a run whose files are ``names`` (see the module docstring)."""

    def __init__(self, path: str | Path, names: Sequence[str]) -> None:
        self.path = Path(path)
        self.names = tuple(names)

    def write_config(self, data: Mapping[str, Any]) -> Path:
        """Write the run's ``config.yaml`` (the settings as plain data)."""
        return write_settings(self.path / CONFIG_FILE, data)

    def write_curve(self, name: str, rows: Sequence[Mapping[str, Any]], fields: Sequence[str] | None = None) -> Path:
        """Write the learning curve ``name`` (a CSV in the run folder) whole; see :func:`write_csv`."""
        return write_csv(self.path / name, rows, fields)

    def read_curve(self, name: str) -> list[dict[str, str]]:
        """The rows of the learning curve ``name`` written so far (none if it is not there)."""
        return read_csv(self.path / name)

    def plot_curve(self, name: str, png: str, series: Mapping[str, str] | None = None, x: str = "timesteps",
                   title: str | None = None) -> Path | None:
        """Draw the learning curve ``name`` into ``png`` (see :func:`plot_curve`); ``None`` without matplotlib
        (the ``eval`` extra) or a curve."""
        if not (self.path / name).exists():
            return None
        try:
            return plot_curve(self.path / name, self.path / png, series=series, x=x, title=title)
        except ImportError:
            return None

    def run_files(self) -> list[Path]:
        """The run's files found in the folder (see :func:`run_files`)."""
        return run_files(self.path, self.names)

    def remove_run_files(self) -> None:
        """Remove the run's files from the folder (see :func:`remove_run_files`)."""
        remove_run_files(self.path, self.names)

    def prepare(self, new_run: bool, force: bool, resume: str) -> list[Path]:
        """Check, before anything is written, that the run may write here: the folder can be made and
        written in, and a new run does not overwrite an old one unasked (``force`` removes the old run's
        files, which ``resume``, a command, would continue). Returns the files removed; ``ValueError``
        says why the run may not start."""
        problem = folder_problem(self.path)
        if problem:
            raise ValueError(f"out_dir / name: the run folder {self.path} cannot be made: {problem}")
        old = self.run_files() if new_run else []
        if old and not force:
            raise ValueError(existing_run_message(self.path, old, resume))
        if old:
            self.remove_run_files()
        return old


__all__ = ["CONFIG_FILE", "RunFolder", "existing_run_message", "plot_curve", "read_csv", "remove_run_files",
           "run_files", "write_csv"]


def progress_logger(folder: Path, resume: bool) -> Any:
    """SB3's logger for a run's ``tb/``: TensorBoard event files and ``progress.csv``; a resumed run
    continues the CSV of its earlier legs (SB3's own writer would truncate it)."""
    from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat

    class ContinuedCSV(CSVOutputFormat):
        """SB3's CSV writer, opened on the existing file with its header's columns."""

        def __init__(self, filename: str) -> None:  # not SB3's, which opens the file with "w+"
            self.file = open_append(filename, "r+")  # type: ignore[assignment]  # (a text file, as SB3's); the logger closes it
            self.keys = next(csv.reader([self.file.readline()]), [])
            self.separator, self.quotechar = ",", '"'
            self.file.seek(0, 2)

    csv_path = folder / "progress.csv"
    for path in (folder, csv_path):  # SB3's writers would follow a link out of the run folder
        problem = link_problem(path)
        if problem:
            raise LinkRefused(problem)
    folder.mkdir(parents=True, exist_ok=True)
    continued = resume and csv_path.is_file() and csv_path.stat().st_size > 0
    writer = ContinuedCSV(str(csv_path)) if continued else CSVOutputFormat(str(csv_path))
    return Logger(folder=str(folder), output_formats=[TensorBoardOutputFormat(str(folder)), writer])
