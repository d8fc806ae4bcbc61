"""The command line: what users run, and the one-line errors (exit code 2) for every kind of bad input."""

import json
import subprocess
import sys

import pytest

import collsched as cs
from collsched.cli import main


def run(argv, capsys):
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


def write(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def platform_doc(**changes):
    doc = {"format": "collsched", "version": 1, "kind": "platform", "name": "p",
           "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "sw", "kind": "router"}],
           "links": [{"id": "la", "bandwidth": "1GBps", "latency": "10us", "ends": ["a", "sw"]},
                     {"id": "lb", "bandwidth": "1GBps", "latency": "10us", "ends": ["b", "sw"]},
                     {"id": "lc", "bandwidth": "1GBps", "latency": "10us", "ends": ["c", "sw"]}],
           "routing": {"kind": "shortest_path", "metric": "hops"}}
    doc.update(changes)
    return doc


def link_with(**fields):
    return platform_doc(links=[{"id": "la", "bandwidth": "1GBps", "latency": "10us", "ends": ["a", "sw"], **fields},
                               {"id": "lb", "bandwidth": "1GBps", "latency": "10us", "ends": ["b", "sw"]}])


def collective_doc(body):
    return {"format": "collsched", "version": 1, "kind": "collective", "collective": body}


BAD_PLATFORMS = {
    "unknown node named by a link": (link_with(ends=["a", "zz"]), "link 'la' names unknown node 'zz'"),
    "unknown node named by a route": (platform_doc(routing={"kind": "table", "symmetric": True, "routes": [
        {"src": "a", "dst": "qq", "hops": ["la"]}]}), "route a->qq names unknown node 'qq'"),
    "duplicate node id": (platform_doc(nodes=[{"id": "a"}, {"id": "a"}, {"id": "b"}, {"id": "sw", "kind": "router"}]),
                          "duplicate node id 'a'"),
    "duplicate link id": (platform_doc(links=[{"id": "la", "bandwidth": 1, "ends": ["a", "sw"]},
                                              {"id": "la", "bandwidth": 1, "ends": ["b", "sw"]}]), "duplicate link id 'la'"),
    "zero bandwidth": (link_with(bandwidth=0), "links[0].bandwidth"),
    "negative bandwidth": (link_with(bandwidth=-5), "links[0].bandwidth"),
    "NaN bandwidth": (link_with(bandwidth="NaN"), "links[0].bandwidth"),
    "infinite bandwidth": (link_with(bandwidth="inf"), "links[0].bandwidth"),
    "negative latency": (link_with(latency=-1e-6), "links[0].latency"),
    "unit that does not parse": (link_with(latency="12 parsecs"), "cannot read '12 parsecs' as a time"),
    "truncated JSON": (json.dumps(platform_doc())[:-40], "invalid JSON"),
    "malformed JSON": ("{\"format\": \"collsched\", nodes: []}", "invalid JSON"),
}


@pytest.mark.parametrize("case", list(BAD_PLATFORMS))
def test_bad_platform_is_one_line_and_exit_2(case, tmp_path, capsys):
    document, expected = BAD_PLATFORMS[case]
    path = write(tmp_path, "bad.json", document)
    code, out, err = run(["platform", "show", path], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("collsched: error: ")
    assert expected in err and "bad.json" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("text, expected", [
    ("<platform version='4.1'><zone id='z' routing='Full'><host id='a' speed='1Gf'/>", "malformed XML"),
    ("<platform version='4.1'><zone id='z' routing='Full'><host id='a' speed='1Gf'/><link id='l' bandwidth='fast' "
     "latency='0'/></zone></platform>", "cannot read 'fast' as a bandwidth"),
])
def test_bad_simgrid_xml(tmp_path, capsys, text, expected):
    path = write(tmp_path, "bad.xml", text)
    code, _, err = run(["platform", "show", path], capsys)
    assert code == 2 and expected in err and "bad.xml" in err and err.count("\n") == 1


BAD_COLLECTIVES = {
    "participant is a router": ({"type": "broadcast", "source": "a", "targets": ["b", "sw"], "size": 10},
                                "broadcast participant 'sw' is a router"),
    "participant not in the platform": ({"type": "gather", "sources": ["b", "x9"], "target": "a", "size": 10},
                                        "gather participant 'x9' is not in platform"),
    "empty participant list": ({"type": "scatter", "source": "a", "targets": [], "size": 10}, "empty"),
    "size zero": ({"type": "scatter", "source": "a", "targets": ["b"], "size": 0}, "size"),
    "negative size": ({"type": "reduce", "participants": ["a", "b"], "target": "a", "size": -1}, "size"),
}


@pytest.mark.parametrize("case", list(BAD_COLLECTIVES))
def test_bad_collective_is_one_line_and_exit_2(case, tmp_path, capsys):
    body, expected = BAD_COLLECTIVES[case]
    platform = write(tmp_path, "p.json", platform_doc())
    collective = write(tmp_path, "c.json", collective_doc(body))
    code, _, err = run(["plan", platform, collective, "-a", "linear", "-o", str(tmp_path / "s.json")], capsys)
    assert code == 2 and expected in err and err.count("\n") == 1, err
    assert not (tmp_path / "s.json").exists()


def test_unreachable_host_the_collective_needs(tmp_path, capsys):
    doc = platform_doc(links=[{"id": "la", "bandwidth": 1e9, "ends": ["a", "sw"]},
                              {"id": "lb", "bandwidth": 1e9, "ends": ["b", "sw"]}])
    platform = write(tmp_path, "p.json", doc)
    collective = write(tmp_path, "c.json", collective_doc({"type": "scatter", "source": "a", "targets": ["b", "c"],
                                                           "size": 1}))
    code, _, err = run(["plan", platform, collective, "-o", str(tmp_path / "s.json")], capsys)
    assert code == 2 and "host 'c' is unreachable from host 'a', which the scatter needs" in err


def test_plan_then_validate_round_trip(tmp_path, capsys):
    platform = write(tmp_path, "p.json", platform_doc())
    collective = write(tmp_path, "c.json", collective_doc({"type": "reduce", "participants": ["c", "a", "b"],
                                                           "target": "b", "size": "1MB", "task_cost": "1Gf"}))
    schedule = str(tmp_path / "s.json")
    code, out, _ = run(["plan", platform, collective, "-a", "binomial", "-o", schedule], capsys)
    assert code == 0 and "validated" in out
    code, out, _ = run(["validate", platform, collective, schedule], capsys)
    assert code == 0 and "implement the reduce" in out


def test_compare_plan_best_and_simulate(tmp_path, capsys):
    """compare ranks every algorithm; plan without -a writes the best; simulate reads it back with its gap."""
    platform = write(tmp_path, "p.json", platform_doc())
    collective = write(tmp_path, "c.json", collective_doc({"type": "alltoall", "senders": ["a", "b", "c"],
                                                           "size": "1MB"}))
    code, out, _ = run(["compare", platform, collective, "--model", "oneport:sync=false"], capsys)
    assert code == 0 and "open_shop" in out and "caterpillar" in out and "gap and status are against it" in out
    schedule = str(tmp_path / "s.json")
    code, out, _ = run(["plan", platform, collective, "-o", schedule, "--model", "circuit"], capsys)
    assert code == 0 and "validated" in out
    code, out, _ = run(["simulate", platform, collective, schedule, "--model", "circuit",
                        "--gantt", str(tmp_path / "g.png")], capsys)
    assert code == 0 and "makespan" in out and "gap" in out and (tmp_path / "g.png").stat().st_size > 1000


def test_plan_passes_algorithm_options(tmp_path, capsys):
    platform = write(tmp_path, "p.json", platform_doc())
    collective = write(tmp_path, "c.json", collective_doc({"type": "alltoall", "senders": ["a", "b", "c"], "size": 8}))
    schedule = tmp_path / "s.json"
    code, _, _ = run(["plan", platform, collective, "-a", "liquid", "-p", "method=heuristic", "-o", str(schedule)], capsys)
    assert code == 0 and cs.load_schedule(schedule).algorithm == "liquid"
    code, _, err = run(["plan", platform, collective, "-a", "liquid", "-p", "depth=2", "-o", str(schedule)], capsys)
    assert code == 2 and "algorithm 'liquid' has no option 'depth'" in err
    code, _, err = run(["plan", platform, collective, "-a", "liquid", "-p", "method=magic", "-o", str(schedule)], capsys)
    assert code == 2 and "magic" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(["plan", platform, collective, "-p", "method=heuristic", "-o", str(schedule)], capsys)
    assert code == 2 and "name the algorithm with -a" in err


def test_lower_writes_programs_the_cli_reads_back(tmp_path, capsys):
    platform = write(tmp_path, "p.json", platform_doc())
    collective = write(tmp_path, "c.json", collective_doc({"type": "alltoall", "senders": ["a", "b", "c"], "size": 8}))
    schedule = str(tmp_path / "s.json")
    assert run(["plan", platform, collective, "-a", "caterpillar", "-o", schedule], capsys)[0] == 0
    program = str(tmp_path / "prog.json")
    code, out, _ = run(["lower", platform, collective, schedule, "-o", program, "--sync", "ready"], capsys)
    assert code == 0 and "validated" in out
    assert run(["validate", platform, collective, program], capsys)[0] == 0
    assert run(["simulate", platform, collective, program], capsys)[0] == 0
    code, _, _ = run(["lower", platform, collective, schedule, "-o", str(tmp_path / "prog.goal")], capsys)
    assert code == 0 and "\nnum_ranks 3\n" in (tmp_path / "prog.goal").read_text()
    code, _, err = run(["lower", platform, collective, schedule, "-o", str(tmp_path / "prog.txt")], capsys)
    assert code == 2 and "cannot tell the format" in err


@pytest.mark.parametrize("argv, expected", [
    (["--model", "bogus"], "unknown model 'bogus'"),
    (["--model", "oneport:sync"], "is not key=value"),
    (["--model", "fluid:speed=3"], "Fluid has no option 'speed'"),
    (["-a", "caterpillar"], "does not apply to a broadcast"),
])
def test_compare_bad_options_are_one_line(tmp_path, capsys, argv, expected):
    platform = write(tmp_path, "p.json", platform_doc())
    collective = write(tmp_path, "c.json", collective_doc({"type": "broadcast", "source": "a", "targets": ["b", "c"],
                                                           "size": 1}))
    code, _, err = run(["compare", platform, collective, *argv], capsys)
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1


def test_validate_rejects_a_schedule_for_another_collective(tmp_path, capsys):
    platform = write(tmp_path, "p.json", platform_doc())
    scatter = write(tmp_path, "c.json", collective_doc({"type": "scatter", "source": "a", "targets": ["b", "c"], "size": 1}))
    broadcast = write(tmp_path, "b.json", collective_doc({"type": "broadcast", "source": "a", "targets": ["b", "c"],
                                                          "size": 1}))
    schedule = str(tmp_path / "s.json")
    assert run(["plan", platform, broadcast, "-a", "linear", "-o", schedule], capsys)[0] == 0
    p = cs.load_platform(platform)
    program = cs.load_schedule(schedule).lower(p, cs.load_collective(broadcast))
    cs.save_program(program, str(tmp_path / "prog.json"))
    code, _, err = run(["validate", platform, scatter, str(tmp_path / "prog.json")], capsys)
    assert code == 2 and "rank a op 0 (send msg 0 to b) uses m[a→*]@0, which its rank does not hold" in err and err.count("\n") == 1


def test_generate_show_convert(tmp_path, capsys):
    json_path, xml_path = str(tmp_path / "h.json"), str(tmp_path / "h.xml")
    code, out, _ = run(["platform", "generate", "hypercube", "-p", "d=3", "-p", "bandwidth=\"86MBps\"", "-o", json_path],
                       capsys)
    assert code == 0 and "8 hosts" in out
    assert run(["platform", "convert", json_path, xml_path], capsys)[0] == 0
    assert cs.load_platform(xml_path) == cs.load_platform(json_path)
    code, out, _ = run(["platform", "show", xml_path, "--routes", "2"], capsys)
    assert code == 0 and "h0 -> h1: e0-1" in out and "86MBps" in out


def test_generate_with_an_unknown_option(tmp_path, capsys):
    code, _, err = run(["platform", "generate", "star", "-p", "hosts=3", "-o", str(tmp_path / "s.json")], capsys)
    assert code == 2 and "generator 'star' has no option 'hosts'" in err
    code, _, err = run(["platform", "generate", "moebius", "-o", str(tmp_path / "s.json")], capsys)
    assert code == 2 and "unknown generator 'moebius'" in err


def test_debug_shows_the_traceback(tmp_path):
    path = write(tmp_path, "bad.json", link_with(bandwidth=0))
    quiet = subprocess.run([sys.executable, "-m", "collsched.cli", "platform", "show", path],
                           capture_output=True, text=True)
    loud = subprocess.run([sys.executable, "-m", "collsched.cli", "--debug", "platform", "show", path],
                          capture_output=True, text=True)
    assert quiet.returncode == 2 and "Traceback" not in quiet.stderr
    assert loud.returncode != 0 and "Traceback" in loud.stderr and "FormatError" in loud.stderr


def test_demo_prints_the_comparisons_and_writes_the_report(tmp_path, capsys):
    report = tmp_path / "demo.html"
    code, out, _ = run(["demo", "--quick", "-o", str(report)], capsys)
    assert code == 0
    for word in ("reduce series", "scatter series", "alltoall", "grid broadcast", "steady_state", "binomial",
                 "open_shop", "gap and status are against it"):
        assert word in out
    assert "planning:" not in out and "validation:" not in out and "simulation:" not in out
    assert f"report: {report.resolve()}" in out.replace("\n", "")
    text = report.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.count("<svg") >= 12 and "grid broadcast" in text


def test_report_writes_one_html_file(tmp_path, capsys):
    platform = write(tmp_path, "p.json", platform_doc())
    collective = write(tmp_path, "c.json", collective_doc({"type": "gather", "sources": ["a", "b", "c"], "target": "a",
                                                           "size": "1MB"}))
    out = tmp_path / "r.html"
    code, text, _ = run(["report", platform, collective, "-o", str(out), "--model", "oneport"], capsys)
    assert code == 0 and "report:" in text and "binomial" in out.read_text()


def test_study_lists_and_runs(tmp_path, capsys):
    from collsched.studies.base import Report, Table, _STUDIES, study

    @study("cli-test", title="a test study", paper="none")
    def _run(options):
        return Report("cli-test", (Table("cubes", ("n", "n³"), [(n, n ** 3) for n in range(options.n(5, 2))]),))

    try:
        code, out, _ = run(["study"], capsys)
        assert code == 0 and "cli-test" in out
        code, out, _ = run(["study", "cli-test", "--quick", "--out", str(tmp_path)], capsys)
        assert code == 0 and "cubes" in out
        assert (tmp_path / "cli-test" / "cubes.csv").read_text().splitlines() == ["n,n³", "0,0", "1,1"]
        code, _, err = run(["study", "no-such-study"], capsys)
        assert code == 2 and "unknown study 'no-such-study'" in err
    finally:
        del _STUDIES["cli-test"]


def test_usage_errors_exit_2_without_traceback(capsys):
    code, _, err = run(["platform", "show"], capsys)
    assert code == 2 and "Traceback" not in err and "Missing argument" in err
    code, _, err = run(["no-such-command"], capsys)
    assert code == 2 and "Traceback" not in err
