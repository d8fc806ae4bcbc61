"""Cyclic waits across thread blocks and GPUs: the steps of an MSCCL file that can never start.

A step waits for the previous step of its thread block, for the step its
``depid``/``deps`` name, and, if it receives, for the send it is paired with
(the next send from its peer on the same channel). These waits form a
graph; the file deadlocks exactly when the graph has a cycle (or a step
waits on one). :func:`order` returns an order in which every step can run,
or raises naming one cycle, step by step.

Sends are taken as buffered (the runtime has a few slots per connection):
a cycle that only closes when a send waits for its receive is not reported.

Examples
--------
>>> order([[], [0], [1]], lambda i: f"step {i}")
[0, 1, 2]
>>> order([[2], [0], [1]], lambda i: f"step {i}")
Traceback (most recent call last):
...
collsched.errors.ValidationError: deadlock: step 0 waits for step 2, which waits for step 1, which waits for step 0 (break the cycle: remove or reorder one of these dependencies)
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Sequence

from ...errors import ValidationError

__all__ = ["order", "find_cycle"]


def find_cycle(waits: Sequence[Sequence[int]], stuck: set[int]) -> list[int]:
    """A cycle among the ``stuck`` nodes: ``[a, b, ..., a]`` where each waits for the next.

    Parameters
    ----------
    waits : sequence of sequences of int
        ``waits[i]``: the nodes node ``i`` waits for.
    stuck : set of int
        Nodes that can never run (every one waits, directly or not, on a cycle).

    Returns
    -------
    list of int

    Examples
    --------
    >>> find_cycle([[1], [2], [1]], {0, 1, 2})
    [1, 2, 1]
    """
    start = min(stuck)
    seen: dict[int, int] = {}
    path = []
    node = start
    while node not in seen:
        seen[node] = len(path)
        path.append(node)
        node = next(w for w in waits[node] if w in stuck)
    return path[seen[node]:] + [node]


def order(waits: Sequence[Sequence[int]], describe: Callable[[int], str]) -> list[int]:
    """Every node once, each after the nodes it waits for (Kahn's algorithm; the ready run first come, first served).

    Parameters
    ----------
    waits : sequence of sequences of int
        ``waits[i]``: the nodes node ``i`` waits for.
    describe : callable
        ``describe(i)`` names node ``i`` in the message.

    Returns
    -------
    list of int

    Raises
    ------
    ValidationError
        ``deadlock: A waits for B, which waits for ..., which waits for A``.

    Examples
    --------
    >>> order([[1], []], str)
    [1, 0]
    """
    n = len(waits)
    missing = [len(w) for w in waits]
    users: list[list[int]] = [[] for _ in range(n)]
    for i, ws in enumerate(waits):
        for w in ws:
            users[w].append(i)
    ready = deque(i for i in range(n) if missing[i] == 0)
    out = []
    while ready:
        i = ready.popleft()
        out.append(i)
        for u in users[i]:
            missing[u] -= 1
            if missing[u] == 0:
                ready.append(u)
    if len(out) < n:
        cycle = find_cycle(waits, set(range(n)) - set(out))
        text = describe(cycle[0]) + "".join(f" waits for {describe(c)}," if k == 0 else f" which waits for {describe(c)},"
                                            for k, c in enumerate(cycle[1:]))
        raise ValidationError(f"deadlock: {text.rstrip(',')}",
                              fix="break the cycle: remove or reorder one of these dependencies")
    return out
