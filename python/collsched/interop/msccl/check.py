"""``check``: read an MSCCL file, run it symbolically, validate the Program, lint what the runtime ignores.

Examples
--------
>>> import collsched as cs
>>> from collsched.interop.msccl.xml_read import EXAMPLE
>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "ring2.xml"
>>> _ = path.write_text(EXAMPLE)
>>> result = check(path, cs.topologies.dgx2(1))
>>> result.summary()
'valid allgather on 2 gpus (in place): 2 thread blocks, 4 steps, 1.049MB per chunk per rank (2 chunks per loop), 0 warnings'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...errors import ValidationError
from ...schedules.validate import validate
from ...units import format_quantity
from .lint import Finding, lint
from .program import DEFAULT_SIZE, Imported, to_program
from .xml_read import parse

__all__ = ["Checked", "check", "check_text", "read"]


def read(path: str | Path, platform=None, *, size: float = DEFAULT_SIZE, task_cost: float = 0.0,
         inplace: bool | None = None, ranks=None) -> Imported:
    """Read an MSCCL file into a Program and the collective it claims (no validation beyond the file's own).

    Parameters
    ----------
    path : str or Path
    platform : Platform, optional
        Where the GPUs are.
    size : float
        The collective's size (see :data:`~collsched.interop.msccl.program.DEFAULT_SIZE`).
    task_cost : float
        Flop to combine two whole vectors (reductions).
    inplace : bool, optional
        The mode to read (default: in place if the file allows it).
    ranks : sequence of str, optional
        The host of GPU ``0, 1, ...`` (default: the platform's first hosts).

    Returns
    -------
    Imported

    Raises
    ------
    FormatError, ValidationError
        As :func:`~collsched.interop.msccl.xml_read.parse` and
        :func:`~collsched.interop.msccl.program.to_program`.

    Examples
    --------
    >>> read("/no/such.xml")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: /no/such.xml: cannot read: No such file or directory (check the path)
    """
    return to_program(parse(path), platform, size=size, task_cost=task_cost, inplace=inplace, ranks=ranks)


@dataclass(frozen=True)
class Checked:
    """A valid MSCCL file.

    Attributes
    ----------
    imported : Imported
        The file read (in place if it allows it, else out of place).
    warnings : tuple of Finding
        Lint warnings (cases where the runtime uses another algorithm).

    Examples
    --------
    >>> Checked.__dataclass_fields__.keys()
    dict_keys(['imported', 'warnings'])
    """

    imported: Imported
    warnings: tuple[Finding, ...]

    def summary(self) -> str:
        """One line: the collective, GPUs, thread blocks, steps, bytes per chunk per rank, warnings.

        Examples
        --------
        >>> from collsched.interop.msccl.xml_read import EXAMPLE
        >>> check_text(EXAMPLE).summary()
        'valid allgather on 2 gpus (in place): 2 thread blocks, 4 steps, 1.049MB per chunk per rank (2 chunks per loop), 0 warnings'
        """
        a, imp = self.imported.algo, self.imported
        tbs = sum(len(g.tbs) for g in a.gpus)
        mode = "in place" if imp.inplace else "out of place"
        return (f"valid {imp.collective.kind} on {len(a.gpus)} gpus ({mode}): {tbs} thread blocks, {a.n_steps} "
                f"steps, {format_quantity(imp.chunk_bytes, 'size')} per chunk per rank ({a.nchunksperloop} chunks "
                f"per loop), {len(self.warnings)} warning{'' if len(self.warnings) == 1 else 's'}")


def check(path: str | Path, platform=None, *, size: float = DEFAULT_SIZE, ranks=None) -> Checked:
    """Everything collsched can say about an MSCCL file before it runs on GPUs.

    The file parses; it runs symbolically without deadlock, each receive
    paired with a send; every output chunk ends with the right value (in
    every mode the file claims: in place, out of place); no two thread
    blocks of a GPU race on a chunk (:mod:`~collsched.interop.msccl.races`);
    the Program passes :func:`collsched.validate`; and the lint finds no error.

    Parameters
    ----------
    path : str or Path
    platform : Platform, optional
        Default: a star of ``ngpus`` hosts (the check does not depend on it).
    size : float
        The collective's size, for the bytes per chunk reported.
    ranks : sequence of str, optional
        The host of GPU ``0, 1, ...`` (default: the platform's first hosts).

    Returns
    -------
    Checked

    Raises
    ------
    FormatError, ValidationError
        The first problem, one line naming the file and line, the GPU,
        thread block and step.

    Examples
    --------
    >>> check("/no/such.xml")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: /no/such.xml: cannot read: No such file or directory (check the path)
    """
    return _check(parse(path), platform, size, ranks)


def check_text(text: str, platform=None, *, size: float = DEFAULT_SIZE, source: str = "<text>", ranks=None) -> Checked:
    """:func:`check` of XML text rather than a file.

    Examples
    --------
    >>> from collsched.interop.msccl.xml_read import EXAMPLE
    >>> check_text(EXAMPLE).imported.collective.kind
    'allgather'
    """
    from .xml_read import parse_text

    return _check(parse_text(text, source=source), platform, size, ranks)


def _check(algo, platform, size: float, ranks) -> Checked:
    if platform is None:
        from ...platform.topologies import star

        platform = star(len(algo.gpus))
    findings = lint(algo)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise ValidationError(errors[0].message, where=errors[0].where)
    modes = [m for m, on in ((True, algo.inplace), (False, algo.outofplace)) if on] or [algo.inplace]
    first = None
    for mode in modes:
        imp = to_program(algo, platform, size=size, inplace=mode, ranks=ranks)
        try:
            validate(platform, imp.collective, imp.program)
        except ValidationError as exc:
            raise ValidationError(f"{'in place' if mode else 'out of place'}: {exc}", where=algo.source) from None
        first = first or imp
    return Checked(first, tuple(f for f in findings if f.severity == "warning"))
