"""Type stub of the Rust extension ``collsched._core`` (crates/py)."""

import numpy as np
import numpy.typing as npt

__version__: str

class ProgramInvalid(ValueError):
    """A program does not implement its collective; ``args == (code, details)``."""

def validate_program(
    n_ranks: int,
    op_rank: npt.NDArray[np.int64],
    op_kind: npt.NDArray[np.int64],
    op_peer: npt.NDArray[np.int64],
    op_msg: npt.NDArray[np.int64],
    dep_ptr: npt.NDArray[np.int64],
    dep_idx: npt.NDArray[np.int64],
    piece_ptr: npt.NDArray[np.int64],
    pieces: npt.NDArray[np.int64],
    denominator: int,
    initial: npt.NDArray[np.int64],
    finals: npt.NDArray[np.int64],
    *,
    rendezvous: bool = False,
    set_ptr: npt.NDArray[np.int64] | None = None,
    set_words: npt.NDArray[np.uint64] | None = None,
) -> list[int]: ...

class SimulationFailed(ValueError):
    """A simulation cannot run to the end; ``args == (code, details)``.

    ``code`` is a structure code of :class:`ProgramInvalid` (``"bad_op"``,
    ``"bad_dependency"``, ``"unmatched_message"``, ...), ``"bad_stages"``
    (``details["reason"]``) or ``"deadlock"`` (``details["stuck"]``: op indices).
    """

def simulate(
    n_ranks: int,
    op_rank: npt.NDArray[np.int64],
    op_kind: npt.NDArray[np.int64],
    op_peer: npt.NDArray[np.int64],
    op_msg: npt.NDArray[np.int64],
    dep_ptr: npt.NDArray[np.int64],
    dep_idx: npt.NDArray[np.int64],
    act_ptr: npt.NDArray[np.int64],
    kind: npt.NDArray[np.int64],
    amount: npt.NDArray[np.float64],
    res_ptr: npt.NDArray[np.int64],
    res: npt.NDArray[np.int64],
    chan_ptr: npt.NDArray[np.int64],
    chan: npt.NDArray[np.int64],
    cap: npt.NDArray[np.float64],
    needs_recv: npt.NDArray[np.uint8],
    sender_done: npt.NDArray[np.int64],
    recv_begins: npt.NDArray[np.int64],
    n_resources: int,
    capacities: npt.NDArray[np.float64],
    *,
    tie: str | int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], int, float]:
    """Run a program's stage table (``docs/engine.md``); the GIL is released during the run.

    ``tie`` is ``"fixed"`` (or None: activity order) or a seed ``>= 0`` (a
    random priority per activity). Returns ``(op_start, op_end,
    resource_busy, channel_busy, events, makespan)``; raises
    :class:`SimulationFailed`.
    """

def program_well_formed(
    n_ranks: int,
    op_rank: npt.NDArray[np.int64],
    op_kind: npt.NDArray[np.int64],
    op_peer: npt.NDArray[np.int64],
    op_msg: npt.NDArray[np.int64],
    dep_ptr: npt.NDArray[np.int64],
    dep_idx: npt.NDArray[np.int64],
) -> bool:
    """Whether a program is well formed (the structure check of :func:`simulate`) with message ids ``0 .. M-1``.

    False does not say what is wrong: the caller finds the fault itself.
    """

def fluid_stages(
    n_ranks: int,
    op_rank: npt.NDArray[np.int64],
    op_kind: npt.NDArray[np.int64],
    op_peer: npt.NDArray[np.int64],
    op_msg: npt.NDArray[np.int64],
    op_size: npt.NDArray[np.float64],
    rank_host: npt.NDArray[np.int64],
    speed: npt.NDArray[np.float64],
    n_hosts: int,
    pair_ptr: npt.NDArray[np.int64],
    pair_chan: npt.NDArray[np.int64],
    pair_latency: npt.NDArray[np.float64],
    pair_cap: npt.NDArray[np.float64],
    busy_ptr: npt.NDArray[np.int64],
    busy_chan: npt.NDArray[np.int64],
    n_channels: int,
    *,
    one_port: bool,
) -> tuple[list[npt.NDArray[np.int64]], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.uint8],
           npt.NDArray[np.float64]] | None:
    """A program's Fluid stage table from the routes of every host pair (``collsched.simulation.fluid_core``).

    Returns ``(ints, amount, cap, needs_recv, channel_bytes)``, ``ints`` being
    act_ptr, kind, res_ptr, res, chan_ptr, chan, sender_done, recv_begins; or
    None when the program or the pair table does not fit (the caller then
    compiles the slow way, which names the fault). The GIL is released.
    """

def shortest_path_trees(
    ptr: npt.NDArray[np.int64],
    node: npt.NDArray[np.int64],
    arc: npt.NDArray[np.int64],
    latency: npt.NDArray[np.float64],
    sources: npt.NDArray[np.int64],
    *,
    by_latency: bool,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...

def tree_routes(
    parent: npt.NDArray[np.int64],
    arc_in: npt.NDArray[np.int64],
    n_nodes: int,
    nodes: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """The routes of every ordered pair of ``nodes`` read off their trees (``len(nodes) x n_nodes``, flat).

    Returns ``(hop_ptr, arcs)`` over pairs ``a * len(nodes) + b`` (arcs
    ``2 * link + (0 forward, 1 backward)``), or None if a pair has no route.
    """

_Ints = npt.NDArray[np.int64]

def dmodk_routes(up: _Ints, down: _Ints, leaf: _Ints, spine: _Ints, to_spine: _Ints, from_spine: _Ints,
                 n_spines: int) -> tuple[_Ints, _Ints] | None:
    """The d-mod-k routes of every ordered pair of hosts on a two-level fat tree.

    Host ``a`` goes up by arc ``up[a]`` to leaf ``leaf[a]``; across leaves, through spine ``spine[b]`` of the
    destination (arcs ``to_spine[leaf, spine]`` and ``from_spine[spine, leaf]``, flat, row-major); then down by
    ``down[b]``. Returns ``(hop_ptr, arcs)`` over pairs ``a * len(up) + b``, or None if the arrays do not fit
    (``collsched_core::routing::dmodk_routes``).
    """

def fluid_pair_table(
    hop_ptr: npt.NDArray[np.int64],
    arcs: npt.NDArray[np.int64],
    sharing: npt.NDArray[np.int64],
    latency: npt.NDArray[np.float64],
    bandwidth: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64],
           npt.NDArray[np.int64]]:
    """The Fluid table of pairs from their routes: ``(ptr, chan, latency, cap, busy_chan)``.

    Raises ValueError if the arrays do not fit (``collsched_core::compile::pair_table``).
    """

def decompose_permutations(
    n: int,
    row_ptr: npt.NDArray[np.int64],
    dst: npt.NDArray[np.int64],
    size: npt.NDArray[np.float64],
    path_ptr: npt.NDArray[np.int64],
    path: npt.NDArray[np.int64],
    n_resources: int,
    *,
    pairs: bool,
    links: bool,
    heap_k: int | None = None,
    denominator: int = 1,
    seed: int = 0,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Decompose a row-wise COM matrix into partial permutations (seed 002's RS family).

    Returns ``(msg, phase, start, end)``: piece ``p`` sends units
    ``start[p]:end[p]`` (of ``denominator``) of message ``msg[p]`` in phase
    ``phase[p]``. Raises ValueError on inconsistent arrays.
    """

def open_shop_orders(
    cost: npt.NDArray[np.float64],
    mask: npt.NDArray[np.bool_],
    prio: npt.NDArray[np.int64],
) -> tuple[list[list[int]], float]: ...

def matching_rounds(
    cost: npt.NDArray[np.float64],
    mask: npt.NDArray[np.bool_],
) -> list[list[tuple[int, int]]]:
    """Rounds of maximum-weight matchings of an S x R exchange (seed 004, Bhat et al.).

    Per round, its ``(sender, receiver)`` pairs in sender order. Raises
    ValueError on bad shapes or a cost that is not finite.
    """

def liquid_search(
    routes: list[list[int]],
    n_resources: int,
    length: int,
    budget: int,
    symmetry: bool = True,
) -> tuple[int, list[list[int]], int]:
    """Search a schedule of exactly ``length`` steps (seed 001's liquid search, generalised).

    Returns ``(code, steps, nodes)``: code 0 found (``steps`` are transfer
    indices), 1 proved infeasible, 2 budget of categories exhausted.
    Raises ValueError if a route names a resource ``>= n_resources``.
    """

def liquid_greedy(routes: list[list[int]], n_resources: int) -> list[list[int]]:
    """Greedy steps, most loaded resources first (seed 001's traffic, a fast heuristic)."""

def liquid_first_fit(routes: list[list[int]], n_resources: int, order: list[int], home: list[int]) -> list[list[int]]:
    """First-fit steps: transfers in ``order``, each in its ``home`` step when free, else the first step with room.

    Raises ValueError unless ``order`` is a permutation of the transfers and ``home`` has one entry per transfer.
    """

def weighted_edge_coloring(
    src: list[int],
    dst: list[int],
    weight: list[int],
    n_left: int,
    n_right: int,
) -> list[tuple[int, list[int]]]: ...

def pattern_columns(
    transfers: list[object], tasks: list[object], index: dict[str, int], denominator: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64],
           npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """A periodic pattern's transfers and tasks as columns: ``(tr_src, tr_dst, tr_count, tk_node, tk_count, tk_cost,
    rows)``; ``rows`` flat, 6 int64 per piece ``(kind, inst, a, b, start, end)``, every transfer's pieces then every
    task's inputs and output (a whole Value: ``start = 0``, ``end = denominator``).

    Raises KeyError for a node not in ``index``, OverflowError when an integer does not fit 64 bits, TypeError for a
    piece of another shape.
    """

def number_values(
    kind: npt.NDArray[np.int64], a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Values ``(kind, a, b)`` numbered in order of first appearance: per row its number, per number its first row.

    Raises ValueError if the columns' lengths differ.
    """

def tree_messages(
    parent: npt.NDArray[np.int64], cluster: npt.NDArray[np.int64], coordinator: npt.NDArray[np.bool_],
    segments: npt.NDArray[np.int64], denominator: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], int,
           npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """One hierarchical broadcast's messages in the builder's order, nodes numbered in preorder: ``(src, dst, start,
    end, n_whole, dep_ptr, dep_idx)`` (``schedules/tree_columns.hierarchical_messages`` computes the same with numpy).

    Raises ValueError if the arrays' lengths differ, a parent is not an earlier node, a cluster is negative or
    ``denominator`` is not positive.
    """

class FlowNetwork:
    """A digraph with integer capacities (i128) kept between maximum-flow questions (Dinic's algorithm).

    Nodes are ``0 .. n_nodes-1``; arcs are numbered in the order added
    (parallel arcs allowed); ``INFINITE`` marks an unbounded arc. Raises
    IndexError for an unknown node or arc, ValueError for a negative
    capacity, an empty side or a node that is both source and sink.
    """

    INFINITE: int
    def __init__(self, n: int) -> None: ...
    @property
    def n_nodes(self) -> int: ...
    @property
    def n_arcs(self) -> int: ...
    def add_node(self) -> int: ...
    def add_arc(self, u: int, v: int, cap: int) -> int: ...
    def set_capacity(self, arc: int, cap: int) -> None: ...
    def capacity(self, arc: int) -> int: ...
    def max_flow(self, sources: list[int], sinks: list[int], limit: int | None = None) -> int:
        """Maximum flow from the node set ``sources`` to ``sinks`` (unlimited supply and demand), stopped at ``limit``."""
    def min_max_flow(self, queries: list[tuple[list[int], list[int]]], limit: int | None = None) -> tuple[int, int]:
        """The smallest maximum flow of ``[(sources, sinks), ...]`` (each asked up to the running minimum) and its index."""
    def arc_flows(self) -> list[int]:
        """The flow on every arc (by arc index) after the last :meth:`max_flow`."""
    def source_side(self) -> list[int]:
        """Nodes reachable from the sources in the last flow's residual network (a minimum cut's source side)."""

def pack_spanning_trees(n: int, capacity: list[tuple[tuple[int, int], int]], rate: int) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Spanning out-trees on nodes ``0 .. n-1`` of total weight ``rate`` per root within ``capacity`` ``[((u, v), c), ...]``.

    Returns ``[(root, weight, [(parent, child), ...]), ...]`` (breadth first). RuntimeError when Edmonds' cut
    condition fails (no packing), IndexError for a node ``>= n``, ValueError for a capacity or rate out of range or
    an arc given twice.
    """
