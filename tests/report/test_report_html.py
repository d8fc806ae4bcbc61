"""The HTML report: one self-contained file, well formed, every section and algorithm in it, text escaped."""

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from collsched.errors import FormatError
from collsched.report.html import render_report, write_report

VOID = {"meta", "br", "img", "hr", "input", "link", "col", "area", "base", "source", "wbr"}


class _Collect(HTMLParser):
    """Tags, attributes and text of a page; checks that every element is closed in order (HTML elements only)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.tags, self.refs, self.ids, self.text, self.errors = [], [], [], [], [], []
        self.in_svg = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action", "data", "poster") and value is not None:
                self.refs.append((tag, name, value))
            if name == "id":
                self.ids.append(value)
        if tag == "svg":
            self.in_svg += 1
        if not self.in_svg and tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href") and value is not None:
                self.refs.append((tag, name, value))
            if name == "id":
                self.ids.append(value)

    def handle_endtag(self, tag):
        if tag == "svg":
            self.in_svg -= 1
            return
        if self.in_svg or tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _parse(text):
    p = _Collect()
    p.feed(text)
    p.close()
    return p


@pytest.fixture(scope="module")
def report(tmp_path_factory, scatter_cmp, series_cmp, with_failure):
    path = tmp_path_factory.mktemp("report") / "report.html"
    sections = {"scatter <one>": scatter_cmp, "gather x3": series_cmp, "scatter & a failure": with_failure}
    out = write_report(path, sections, title="Report <title>", intro="Three sections & a failure.")
    return out, sections


def test_one_file_that_parses(report):
    out, _ = report
    assert [p.name for p in out.parent.iterdir()] == ["report.html"]   # nothing beside it, no temporary left
    page = _parse(out.read_text(encoding="utf-8"))
    assert not page.errors and not page.stack
    assert page.tags[0] == "html" and "head" in page.tags and "body" in page.tags


def test_every_section_and_algorithm_is_there(report):
    out, sections = report
    page = _parse(out.read_text())
    text = " ".join(page.text)
    for label, cmp in sections.items():
        assert label in text
        for c in cmp.candidates:
            assert c.algorithm in text
    assert page.tags.count("section") == len(sections)
    assert page.tags.count("table") == len(sections)
    # per section: bars, platform flows and Gantt chart of the best candidate
    assert page.tags.count("svg") == 3 * len(sections)
    assert "failed (planning)" in text


def test_no_external_reference(report):
    out, _ = report
    page = _parse(out.read_text())
    assert "script" not in page.tags and "link" not in page.tags and "iframe" not in page.tags
    for tag, name, value in page.refs:
        assert value.startswith("#") or value.startswith("data:"), (tag, name, value)
    assert not re.search(r"url\((?!#)", out.read_text())   # CSS or SVG urls only to ids of the page


def test_ids_are_unique_and_references_resolve(report):
    out, _ = report
    text = out.read_text()
    page = _parse(text)
    assert len(page.ids) == len(set(page.ids))
    for _, _, value in page.refs:
        if value.startswith("#"):
            assert value[1:] in page.ids, value
    for target in re.findall(r"url\(#([^)]+)\)", text):
        assert target in page.ids, target


def test_text_is_escaped(report):
    out, _ = report
    text = out.read_text()
    assert "<script>" not in text and "<one>" not in text and "<title>Report <title>" not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; more" in text
    assert "scatter &lt;one&gt;" in text and "bad&lt;alg&gt;" in text


def test_inline_svgs_are_xml(report):
    out, _ = report
    svgs = re.findall(r"<svg.*?</svg>", out.read_text(), flags=re.DOTALL)
    assert len(svgs) == 9
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")


def test_busiest_link_is_marked_in_each_flow_drawing(report):
    out, sections = report
    text = out.read_text()
    for i, cmp in enumerate(sections.values(), 1):
        assert f'id="s{i}-flows-busiest-link"' in text


def test_a_comparison_where_everything_failed(all_failed):
    text = render_report([("nothing works", all_failed)])
    page = _parse(text)
    assert "no valid schedule" in text and "failed (simulation)" in text
    assert page.tags.count("svg") == 1   # the bars only: no best schedule to draw


def test_bad_sections_and_bad_directory(tmp_path, scatter_cmp):
    with pytest.raises(ValueError, match="a report section must be a"):
        render_report([scatter_cmp])
    with pytest.raises(FormatError, match="does not exist"):
        write_report(tmp_path / "missing" / "r.html", {})
    assert not (tmp_path / "missing").exists()


def test_rewrite_replaces_the_file(tmp_path, all_failed):
    path = tmp_path / "r.html"
    path.write_text("old")
    write_report(path, {"again": all_failed})
    assert "<h2>again</h2>" in path.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_no_bound(scatter_cmp):
    import dataclasses

    text = render_report({"unbounded": dataclasses.replace(scatter_cmp, bound=None)})
    assert "none known" in text and text.count("<svg") == 3


def test_same_comparison_same_page(all_failed):
    assert render_report({"x": all_failed}) == render_report({"x": all_failed})


def test_a_long_periodic_series_is_drawn_whole_and_one_period_of_it():
    import collsched as cs
    from collsched.compare import compare

    p = cs.topologies.star(4, bandwidth=1e6, latency=1e-4)
    c = cs.Series(cs.Reduce(participants=p.hosts, target="h3", size=1e5, task_cost=1e5), count=400)
    cmp = compare(p, c, model=cs.models.OnePort(cost="edges"), algorithms=["steady_state"])
    text = render_report({"reduce x400": cmp})
    page = _parse(text)
    assert not page.errors and page.tags.count("svg") == 4   # bars, flows, the whole run, one period
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", text, flags=re.DOTALL)
    assert "too many to draw one by one" in captions[2] and f"makespan {cmp.best.result.makespan:.4g} s" in captions[2]
    assert captions[3].startswith("One period of the steady state") and "dashed lines mark" in captions[3]
    assert "T(k,l,m) is seed 000&#x27;s task that combines v[k..l] and v[l+1..m] into v[k..m]" in captions[1]
    assert 'id="s1-period-' in text and 'id="s1-gantt-' in text
