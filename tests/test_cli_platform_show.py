"""``platform show`` is O(hosts + links) unless asked for routes or matrices; ``--matrix`` prints every value whole."""

import io

import pytest
from rich.console import Console

import collsched as cs
from collsched.cli_platform import matrix_tables
from collsched.platform.model import Platform

from test_cli import run

QUADRATIC = ("route", "route_hops", "latency", "bandwidth", "latency_matrix", "bandwidth_matrix", "_pair_matrix",
             "graph", "check_reachable")


@pytest.fixture
def star(tmp_path):
    path = tmp_path / "star.json"
    cs.save_platform(cs.topologies.star(400), path)
    return str(path)


def test_show_builds_no_pairwise_view_and_visits_hosts_a_few_times(star, monkeypatch, capsys):
    """Nothing pairwise runs without --routes/--matrix (a 65,536-host star took 85 s before)."""
    for name in QUADRATIC:
        def forbidden(*args, _name=name, **kwargs):
            raise AssertionError(f"platform show called Platform.{_name}")
        monkeypatch.setattr(Platform, name, forbidden)
    visits = []
    hosts = Platform.hosts
    monkeypatch.setattr(Platform, "hosts", property(lambda self: visits.append(1) or hosts.fget(self)))
    code, out, err = run(["platform", "show", star], capsys)
    assert code == 0, err
    assert "400: h0, h1, h2, h3, h4, h5, ..." in out
    assert len(visits) < 10  # not once per host (the old pair loop read it 401 times)


def test_routes_visits_only_the_pairs_shown(star, monkeypatch, capsys):
    calls = []
    route = Platform.route
    monkeypatch.setattr(Platform, "route", lambda self, a, b: calls.append((a, b)) or route(self, a, b))
    code, out, _ = run(["platform", "show", star, "--routes", "3"], capsys)
    assert code == 0 and sorted(set(calls)) == [("h0", "h1"), ("h0", "h2"), ("h0", "h3")]
    assert "h0 -> h3: " in out


def test_matrix_redirected_prints_whole_values_with_units(tmp_path, capsys):
    p = cs.topologies.tiers(seed=3)
    path = tmp_path / "tiers.json"
    cs.save_platform(p, path)
    code, out, _ = run(["platform", "show", str(path), "--matrix"], capsys)
    assert code == 0 and "…" not in out
    lines = out.splitlines()
    header = lines.index("latency\t" + "\t".join(p.hosts))
    row = lines[header + 1].split("\t")
    assert len(row) == len(p.hosts) + 1 and row[:2] == ["h0", "-"]
    assert row[2] == cs.units.format_quantity(p.latency("h0", "h1"), "time", digits=6)
    assert row[2].endswith("s")
    bandwidth = lines[lines.index("bandwidth\t" + "\t".join(p.hosts)) + 1].split("\t")
    assert all(x == "-" or x.endswith("Bps") for x in bandwidth[1:])


def test_matrix_on_a_terminal_wraps_columns_into_tables_that_fit():
    p = cs.topologies.tiers(seed=3)
    tables = matrix_tables("latency", p.hosts, p.latency_matrix(), "time", width=80)
    assert len(tables) > 1
    buf = io.StringIO()
    console = Console(file=buf, width=80)
    for t in tables:
        console.print(t)
    text = buf.getvalue()
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    assert sum(len(t.columns) - 1 for t in tables) == len(p.hosts)


def test_matrix_of_too_many_hosts_is_refused_before_any_work(star, monkeypatch, capsys):
    import collsched.cli_platform

    monkeypatch.setattr(collsched.cli_platform, "MATRIX_LIMIT", 100)
    monkeypatch.setattr(Platform, "_pair_matrix", lambda *args: pytest.fail("the matrix was computed"))
    code, out, err = run(["platform", "show", star, "--matrix"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--matrix of 400 hosts would print 320,000 values (it prints up to 100 hosts; use --routes N" in err
