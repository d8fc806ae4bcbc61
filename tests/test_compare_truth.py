"""Every bound, gap and status a comparison table shows is true under the model of that table.

The demo's comparisons (quick mode) are checked through every form they
are shown in: the candidates' numbers, ``Comparison.rows()`` (what the
terminal prints today), ``Comparison.table()`` (every renderer's table) and
the HTML report.
"""

import html
from html.parser import HTMLParser

import pytest

import collsched as cs
from collsched.bounds import own_model
from collsched.compare import OPTIMAL_TOLERANCE, compare
from collsched.demo import DEMO_MODELS, demo
from collsched.report.html import _table as html_table
from collsched.schedules import Status, TreeSchedule

TOL = 1e-9


def beats(value: float, bound: float, metric: str) -> bool:
    """True when ``value`` is better than ``bound`` allows (beyond TOL relative)."""
    if metric == "makespan":
        return value < bound * (1 - TOL)
    return value > bound * (1 + TOL)


@pytest.fixture(scope="module")
def sections():
    return demo(seed=1, quick=True)


def test_the_demo_makes_the_comparisons_this_file_checks(sections):
    assert [s.label for s in sections] == ["reduce series", "scatter series", "alltoall", "grid broadcast"]
    for s in sections:
        assert s.comparison.model == DEMO_MODELS[s.label]
        assert s.comparison.bound is not None, s.label


def test_no_achieved_value_beats_the_bound_it_is_shown_against(sections):
    for s in sections:
        cmp = s.comparison
        bound = float(cmp.bound.value)
        for c in cmp.candidates:
            assert c.valid, (s.label, c.algorithm, c.error)
            assert not beats(c.achieved, bound, cmp.metric), (s.label, c.algorithm, c.achieved, bound)
            assert c.gap >= -TOL, (s.label, c.algorithm)
            if cmp.metric == "throughput":
                assert c.steady is not None, (s.label, c.algorithm)
                rate = float(c.steady.rate)
                assert not beats(rate, bound, cmp.metric), (s.label, c.algorithm, rate, bound)
                assert c.steady_gap >= -TOL
            else:
                assert c.steady is None and c.steady_gap is None


def test_an_own_bound_in_the_bound_column_holds_under_the_table_model(sections):
    """rows()'s own bound (the terminal's 'bound (own)' column) is given only where it holds for every schedule."""
    for s in sections:
        cmp = s.comparison
        for c, row in zip(cmp.candidates, cmp.rows()):
            own = row[2]
            if own is None:
                continue
            assert own_model(c.schedule).holds_under(cmp.model), (s.label, c.algorithm)
            for other in cmp.candidates:
                assert not beats(other.achieved, own, cmp.metric), (s.label, c.algorithm, other.algorithm)
            # the comparison's bound is the tightest of the valid ones
            assert not beats(own, float(cmp.bound.value), "throughput" if cmp.metric == "makespan" else "makespan")


def test_every_optimal_status_shown_has_no_gap(sections):
    for s in sections:
        cmp = s.comparison
        table = cmp.table()
        statuses = table.column("status")
        for c, status in zip(cmp.candidates, statuses):
            assert status == c.status_text
            if status == "optimal":
                assert c.status is Status.OPTIMAL and c.gap <= OPTIMAL_TOLERANCE, (s.label, c.algorithm, c.gap)
            elif status == "optimal in steady state":
                assert c.status is Status.OPTIMAL and c.steady_gap <= OPTIMAL_TOLERANCE, (s.label, c.algorithm)
            else:
                assert "optimal" not in status, (s.label, c.algorithm, status)
                assert c.status is Status.FEASIBLE
                assert c.gap > OPTIMAL_TOLERANCE and (c.steady_gap is None or c.steady_gap > OPTIMAL_TOLERANCE)


def test_own_claims_under_another_model_are_labelled_with_it(sections):
    """A schedule's own bound and status appear only beside the model they hold under."""
    for s in sections:
        cmp = s.comparison
        table = cmp.table()
        for c, bound, where in zip(cmp.candidates, table.column("own bound"), table.column("own status (model)")):
            own = own_model(c.schedule)
            if c.schedule.bound is None and own is None:
                assert bound == where == "–"
                continue
            assert where == f"{c.schedule.status.value} ({own.label})", (s.label, c.algorithm)
            if c.schedule.bound is not None and any(beats(x.achieved, float(c.schedule.bound.value), cmp.metric)
                                                    for x in cmp.candidates):
                assert not own.holds_under(cmp.model), (s.label, c.algorithm)
                assert any(c.algorithm in note and own.label in note for note in table.notes), (s.label, c.algorithm)


def test_the_issue_s_three_rows(sections):
    """The all-to-all's Circuit bound 5.804 and the preemptive open shop's 'optimal', and the grid's pLogP bound."""
    by = {s.label: s.comparison for s in sections}
    alltoall = {c.algorithm: c for c in by["alltoall"].candidates}
    rows = {row[0]: row for row in by["alltoall"].rows()}
    assert rows["rs_nlh"][2] is None                 # its Circuit bound is not in the Fluid table's bound column
    pre = alltoall["open_shop_preemptive"]
    assert pre.schedule.status is Status.OPTIMAL and pre.gap > 0.1 and pre.status_text == "feasible"
    grid = by["grid broadcast"]
    ecef = next(c for c in grid.candidates if c.algorithm == "ecef")
    assert grid.bound.value < ecef.schedule.bound.value and "pLogP" not in grid.bound.name
    assert not own_model(ecef.schedule).holds_under(grid.model)


class _Tables(HTMLParser):
    """Header and body cells of every <table> of a page."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell, self._row = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "small" and self._cell is not None:   # a failure's reason, under its status
            self._cell.append("\n")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).split("\n")[0].strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_the_html_report_shows_the_same_true_table(sections):
    """The report's tables are the comparisons' tables (its figures are another file's; not rendered here)."""
    for s in sections:
        parser = _Tables()
        parser.feed(html_table(s.comparison))
        table = s.comparison.table()
        assert tuple(parser.tables[0][0]) == table.header
        assert [tuple(r) for r in parser.tables[0][1:]] == list(table.rows), s.label
        assert all(html.escape(note, quote=True) in html_table(s.comparison) for note in table.notes)


def test_the_hierarchical_bound_is_not_a_fluid_bound():
    """On three one-host clusters ecef is OPTIMAL under pLogP, yet a segmented chain beats its bound under Fluid."""
    bw = [[0, 1e8, 1e6], [1e8, 0, 1e8], [1e6, 1e8, 0]]
    g = cs.topologies.grid_of_clusters([1, 1, 1], inter_bandwidth=bw, inter_latency=1e-3, intra_bandwidth=1e9,
                                       intra_latency=1e-6)
    c = cs.Broadcast(source="h0", targets=g.hosts, size=1e7)
    fluid = cs.models.Fluid()
    cmp = compare(g, c, model=fluid, algorithms=["ecef"])
    ecef = cmp.best
    assert ecef.schedule.status is Status.OPTIMAL and ecef.schedule.bound.name.startswith("exhaustive")
    chain = TreeSchedule(root="h0", children={"h0": ("h1",), "h1": ("h2",)}, segments=8, algorithm="chain")
    cs.validate(g, c, chain)
    piped = cs.simulate(g, chain, c, model=fluid).makespan
    assert piped < 0.65 * float(ecef.schedule.bound.value)       # the pLogP "optimum" is beaten under Fluid
    assert piped >= float(cmp.bound.value)                       # the comparison's bound is not
    assert cmp.rows()[0][2] is None and ecef.status_text == "feasible"
    assert cmp.table().column("own status (model)") == ["optimal (pLogP, hierarchical trees)"]


@pytest.mark.parametrize("name, model", [("rs_n", cs.models.Circuit()),
                                         ("open_shop", cs.models.OnePort(cost="overheads")),
                                         ("open_shop_preemptive", cs.models.OnePort()),
                                         ("liquid", cs.models.Fluid()),
                                         ("liquid", cs.models.Circuit())])
def test_an_own_bound_holds_where_own_model_says(name, model):
    """Where own_model says a family's bound holds, no applicable schedule beats it (a drift guard)."""
    p = cs.topologies.tiers(seed=3)
    c = cs.AllToAll(senders=p.hosts[:6], size=1e5)
    s = cs.plan(p, c, algorithm=name)
    if s.bound is None:
        pytest.skip(f"{name} gives no bound here")
    assert own_model(s).holds_under(model)
    cmp = compare(p, c, model=model)
    for cand in cmp.candidates:
        assert cand.achieved >= float(s.bound.value) * (1 - TOL), (name, cand.algorithm)
    assert float(cmp.bound.value) >= float(s.bound.value) * (1 - 1e-12)   # the tightest valid one is used


def test_progress_reports_each_algorithm_done_and_lets_an_interrupt_through():
    p = cs.topologies.star(4)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
    seen = []
    compare(p, c, algorithms=["binomial", "linear"], progress=lambda *a: seen.append(a))
    assert seen == [(0, 2, ""), (1, 2, "binomial"), (2, 2, "linear")]

    def interrupt(done, total, name):
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        compare(p, c, algorithms=["binomial", "linear"], progress=interrupt)
    with pytest.raises(ValueError, match="steady"):
        compare(p, c, steady=1)


def test_a_tighter_own_bound_that_holds_becomes_the_comparison_s(monkeypatch):
    """The comparison takes the tightest valid bound: an own bound that holds under the model and is tighter wins."""
    import dataclasses

    from collsched.algorithms import registry
    from collsched.schedules import Bound

    p = cs.topologies.star(4, bandwidth=1e6, latency=1e-4)
    c = cs.AllToAll(senders=p.hosts, size=1e5)
    model = cs.models.Circuit()
    plain = compare(p, c, model=model, algorithms=["rs_n", "caterpillar"])
    algo = registry.get("rs_n")
    tighter = float(plain.bound.value) * 1.0001    # still below every makespan here, and claimed under Circuit

    def planned(platform, collective, *, seed=0):
        s = algo.function(platform, collective, seed=seed)
        return dataclasses.replace(s, bound=Bound(tighter, "makespan", "a sharper Circuit bound"))

    monkeypatch.setitem(registry._REGISTRY, "rs_n", dataclasses.replace(algo, function=planned))
    cmp = compare(p, c, model=model, algorithms=["rs_n", "caterpillar"])
    assert float(cmp.bound.value) == tighter and "rs_n's own" in cmp.bound.name
    assert all(cand.gap == pytest.approx(cand.achieved / tighter - 1) for cand in cmp.candidates)
    assert dict((r[0], r[2]) for r in cmp.rows())["rs_n"] == tighter
    # under a model where it does not hold, the same claim is shown but not used
    fluid = compare(p, c, model=cs.models.Fluid(), algorithms=["rs_n", "caterpillar"])
    assert "rs_n" not in fluid.bound.name and dict((r[0], r[2]) for r in fluid.rows())["rs_n"] is None
