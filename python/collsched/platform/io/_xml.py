"""A small XML element tree that remembers the line of each element, for error messages.

The standard :mod:`xml.etree.ElementTree` forgets where an element was; a
reader that wants to say ``platform.xml:12: link 'l1': ...`` needs the line.
This module parses with :mod:`xml.parsers.expat` (never fetching external
entities or DTDs) into :class:`Element` objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat

from ...errors import FormatError

__all__ = ["Element", "parse_xml"]

# expat errors that mean the text stopped before the document did
_TRUNCATION = {expat.errors.codes[name] for name in (
    expat.errors.XML_ERROR_NO_ELEMENTS, expat.errors.XML_ERROR_UNCLOSED_TOKEN,
    expat.errors.XML_ERROR_PARTIAL_CHAR, expat.errors.XML_ERROR_UNCLOSED_CDATA_SECTION)}


@dataclass
class Element:
    """An XML element: tag, attributes, children, and the line where it starts (1-based)."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)


def parse_xml(text: str, where: str) -> Element:
    """Parse ``text`` into a tree of :class:`Element`; text content and comments are dropped.

    Raises
    ------
    FormatError
        ``where:line: malformed XML: <expat's message>``, with a hint when the text looks truncated.

    Examples
    --------
    >>> root = parse_xml('<platform version="4.1">\\n  <zone id="z"/>\\n</platform>', "p.xml")
    >>> root.tag, root.children[0].attrib, root.children[0].line
    ('platform', {'id': 'z'}, 2)
    >>> parse_xml('<platform>\\n<zone id="z">\\n', "p.xml")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: p.xml:3: malformed XML: no element found (the file ends too early: it may be truncated)
    """
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Element] = []
    roots: list[Element] = []

    def start(tag: str, attrib: dict[str, str]) -> None:
        element = Element(tag, attrib, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(element)
        stack.append(element)

    def end(tag: str) -> None:
        stack.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        fix = "the file ends too early: it may be truncated" if exc.code in _TRUNCATION else None
        raise FormatError(f"malformed XML: {expat.ErrorString(exc.code)}", where=f"{where}:{exc.lineno}",
                          fix=fix) from None
    return roots[0]
