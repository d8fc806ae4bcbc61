"""Where a study's cells run: in this process, a local process pool, or a Dask cluster; each result kept.

A study hands its independent experiments to ``options.map(fn, items)``
(:meth:`~collsched.studies.base.StudyOptions.map`); the runner gives it a
:class:`Cells` that evaluates them. Every finished cell is pickled at once,
atomically, under ``cache/KEY.pkl``, ``KEY`` a digest of the function's
name and the item's ``repr``: a study interrupted (Ctrl-C, a crash, a lost
worker) and run again recomputes only the cells it had not finished.

Examples
--------
>>> import tempfile
>>> cells = Cells(cache=tempfile.mkdtemp())
>>> cells.map(abs, [-1, 2, -3])
[1, 2, 3]
>>> cells.computed, cells.reused
(3, 0)
>>> cells.map(abs, [-3, -4])
[3, 4]
>>> cells.computed, cells.reused
(4, 1)
"""

from __future__ import annotations

import hashlib
import os
import pickle
import signal
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path
from typing import Callable, Sequence

from ..errors import CollschedError
from ..fileformat import atomic_write

__all__ = ["Cells", "cell_key"]


def cell_key(fn: Callable, item) -> str:
    """The name of a cell's result: a digest of the function's full name and the item's ``repr``.

    Examples
    --------
    >>> cell_key(abs, (1, 2.5)) == cell_key(abs, (1, 2.5)) != cell_key(abs, (1, 2.6))
    True
    >>> len(cell_key(abs, 0))
    24
    """
    text = f"{fn.__module__}.{fn.__qualname__}:{item!r}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


class Cells:
    """Evaluates cells serially (``workers=1``), in a process pool, or on a Dask cluster, caching each result.

    Parameters
    ----------
    workers : int, optional
        Local processes (default: the machine's cores); 1 runs in this process.
    dask : str, optional
        Address of a Dask distributed scheduler (``tcp://host:8786``), or a
        ``distributed.Client`` (tests pass one on a LocalCluster); then
        ``workers`` is ignored.
    cache : path, optional
        Folder of finished cells; None keeps nothing.
    progress : callable, optional
        ``progress(label, done, total)`` after each cell.

    Examples
    --------
    >>> Cells(workers=0)
    Traceback (most recent call last):
    ...
    ValueError: workers=0 must be an integer >= 1
    """

    def __init__(self, *, workers: int | None = None, dask=None, cache: str | os.PathLike | None = None,
                 progress: Callable[[str, int, int], None] | None = None):
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers={workers!r} must be an integer >= 1")
        self.workers = workers or os.cpu_count() or 1
        self.dask = dask
        self.cache = None if cache is None else Path(cache)
        self.progress = progress
        self.computed = 0
        self.reused = 0
        self._client = None
        self._pool = None

    # --- the cache -------------------------------------------------------------------
    def _path(self, fn, item) -> Path | None:
        return None if self.cache is None else self.cache / f"{cell_key(fn, item)}.pkl"

    def _load(self, path: Path | None):
        if path is None or not path.exists():
            return _MISSING
        try:
            return pickle.loads(path.read_bytes())
        except Exception:  # a damaged file: compute the cell again
            return _MISSING

    def _store(self, path: Path | None, value) -> None:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, pickle.dumps(value))

    # --- evaluation ------------------------------------------------------------------
    def map(self, fn: Callable, items: Sequence, *, label: str = "cells") -> list:
        """``[fn(item) for item in items]``: cached cells read back, the others computed and stored as they finish.

        Parameters
        ----------
        fn : callable
            A module-level function (pool and Dask workers import it by name).
        items : sequence
            Picklable arguments, one per cell.
        label : str
            What the progress callback shows.

        Returns
        -------
        list
            Results in ``items`` order.

        Examples
        --------
        >>> Cells(workers=1).map(len, ["ab", "c"], label="lengths")
        [2, 1]
        """
        items = list(items)
        paths = [self._path(fn, item) for item in items]
        results = [self._load(path) for path in paths]
        todo = [i for i, r in enumerate(results) if r is _MISSING]
        self.reused += len(items) - len(todo)
        done = len(items) - len(todo)
        self._tick(label, done, len(items))
        for i, value in self._evaluate(fn, [items[i] for i in todo], todo):
            self._store(paths[i], value)
            results[i] = value
            self.computed += 1
            done += 1
            self._tick(label, done, len(items))
        return results

    def _tick(self, label: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(label, done, total)

    def _evaluate(self, fn, items: list, index: list[int]):
        """Yield ``(index, result)`` as cells finish, wherever they run."""
        if not items:
            return
        if self.dask is not None:
            yield from self._on_dask(fn, items, index)
        elif self.workers == 1 or len(items) == 1:
            for i, item in zip(index, items):
                yield i, fn(item)
        else:
            pool = self._local_pool()
            futures = {pool.submit(fn, item): i for i, item in zip(index, items)}
            for future in as_completed(futures):  # on an error or Ctrl-C, close(abort=True) stops the rest
                yield futures[future], future.result()

    def _local_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:  # spawn: the Rust core and BLAS may hold threads, which fork would copy badly
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context("spawn"),
                                             initializer=_ignore_sigint)  # Ctrl-C is the parent's to handle
        return self._pool

    def _on_dask(self, fn, items: list, index: list[int]):
        try:
            from distributed import Client, as_completed as dask_completed
        except ImportError:  # pragma: no cover - a declared dependency
            raise CollschedError("--dask needs the 'distributed' package", fix="pip install 'dask[distributed]'")
        if self._client is None:
            if isinstance(self.dask, Client):
                self._client = self.dask
            else:
                try:
                    self._client = Client(self.dask, timeout="5s")
                except (OSError, TimeoutError) as exc:
                    raise CollschedError(f"cannot reach the Dask scheduler at {self.dask!r}: {exc}",
                                         fix="start one with `dask scheduler` and `dask worker ADDRESS`") from None
        futures = self._client.map(fn, items, pure=False)
        where = {f.key: i for f, i in zip(futures, index)}
        try:
            for future in dask_completed(futures):
                yield where[future.key], future.result()
        except BaseException:
            self._client.cancel(futures)
            raise

    def close(self, *, abort: bool = False) -> None:
        """Stop the local pool and drop a Dask client this object opened (not one it was given).

        Parameters
        ----------
        abort : bool
            Stop the workers at once (after Ctrl-C or an error) instead of
            letting the cells they run finish; finished cells are already kept.

        Examples
        --------
        >>> Cells().close()
        """
        if self._pool is not None:
            if abort:  # the pool marks the cells left as failed (cancelling them races with that in Python 3.11)
                for process in list((getattr(self._pool, "_processes", None) or {}).values()):
                    process.terminate()
            self._pool.shutdown(wait=not abort, cancel_futures=not abort)
            self._pool = None
        if self._client is not None and self._client is not self.dask:
            self._client.close()
        self._client = None

    def __enter__(self) -> Cells:
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self.close(abort=kind is not None)


def _ignore_sigint() -> None:
    """Pool workers ignore Ctrl-C (sent to the whole process group): the parent stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Missing:
    def __repr__(self):  # pragma: no cover - never shown
        return "<missing>"


_MISSING = _Missing()
