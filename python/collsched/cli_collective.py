"""``collsched collective {new,show}``: make and look at collective files without writing JSON by hand."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .cli_common import check_output, console
from .errors import CollschedError

__all__ = ["collective_app", "host_list"]

collective_app = typer.Typer(no_args_is_help=True, help="Make and show collective files.")


def host_list(items: List[str], option: str) -> list[str]:
    """Hosts given as repeated options, comma-separated lists, or both, in order.

    Examples
    --------
    >>> host_list(["h0,h1", "h2"], "--participants")
    ['h0', 'h1', 'h2']
    >>> host_list(["h0,,h1"], "--participants")
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: --participants 'h0,,h1' has an empty name (separate hosts with single commas)
    """
    hosts = []
    for item in items:
        names = [name.strip() for name in item.split(",")]
        if not all(names):
            raise CollschedError(f"{option} {item!r} has an empty name", fix="separate hosts with single commas")
        hosts.extend(names)
    return hosts


@collective_app.command("new")
def collective_new(kind: str = typer.Argument(..., help="scatter, broadcast, gather, reduce, alltoall, allgather, "
                                                     "reducescatter or allreduce."),
                   output: Path = typer.Option(..., "-o", "--output", help="Where to write the collective (.json)."),
                   participants: List[str] = typer.Option([], "--participants", "--hosts", show_default=False, metavar="HOSTS",
                                                          help="Hosts, in order (repeat, or comma-separated); "
                                                               "default: every host of --platform."),
                   size: str = typer.Option(..., metavar="SIZE", help="Bytes per message, e.g. 1e6, 1MB, 64KiB "
                                                                      "(reducescatter: per result block; allreduce: "
                                                                      "the whole vector)."),
                   source: Optional[str] = typer.Option(None, metavar="HOST", help="scatter, broadcast: the root (default: the first "
                                                                   "participant)."),
                   target: Optional[str] = typer.Option(None, metavar="HOST", help="gather, reduce: the root (default: the first "
                                                                   "participant)."),
                   task_cost: Optional[str] = typer.Option(None, metavar="FLOP", help="reduce: flop per combination; "
                                                                      "reducescatter, allreduce: flop to combine two "
                                                                      "whole vectors; e.g. 10Mf (default 0)."),
                   commutative: Optional[bool] = typer.Option(None, "--commutative/--ordered",
                                                              help="reducescatter, allreduce: a commutative operator "
                                                                   "(default) or seed 000's ordered one."),
                   receivers: List[str] = typer.Option([], show_default=False, metavar="HOSTS",
                                                       help="alltoall: the receivers, a subset for all-to-some "
                                                            "(default: every participant)."),
                   count: Optional[int] = typer.Option(None, help="A series of this many operations (steady state)."),
                   platform: Optional[Path] = typer.Option(None, help="Check the hosts against this platform; its "
                                                                      "hosts are the default participants.")):
    """Write a collective file: its kind, its hosts and the size of its messages."""
    from .collective_io import new_collective, save_collective

    check_output(output, (".json",), option="-o")
    hosts = host_list(participants, "--participants")
    if platform is not None:
        from .platform.io import load_platform

        p = load_platform(platform)
        hosts = hosts or list(p.hosts)
    elif not hosts:
        raise CollschedError("no participants", fix="give --participants h0,h1,... or --platform FILE")
    c = new_collective(kind, hosts, size=size, source=source, target=target, task_cost=task_cost,
                       receivers=host_list(receivers, "--receivers") or None, count=count, commutative=commutative)
    if platform is not None:
        c.validate(p)
    save_collective(c, output)
    console.print(f"wrote {output}: {_describe(c)}", soft_wrap=True)


def _describe(c) -> str:
    from .units import format_quantity

    one = c.collective if c.kind == "series" else c
    series = f"series of {c.count} " if c.kind == "series" else ""
    what = f"{series}{one.kind} on {len(one.hosts)} hosts, "
    if one.kind in ("reducescatter", "allreduce"):  # size is per rank; total_bytes is what must leave the ranks
        n = len(one.hosts)
        vector = one.size * (n if one.kind == "reducescatter" else 1)
        per_rank = f"{format_quantity(one.size, 'size')} block per rank ({format_quantity(vector, 'size')} vectors)" \
            if one.kind == "reducescatter" else f"{format_quantity(vector, 'size')} vector per rank"
        return what + f"{per_rank}, at least {format_quantity(one.total_bytes, 'size')} sent per operation"
    return what + f"{format_quantity(one.total_bytes, 'size')} per operation"
