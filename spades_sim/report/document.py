"""A report as a document: facts, sections of text, figures and tables, then HTML.

Contract
--------
:class:`Document` holds a title, the facts of the run(s) (rules, policies, seed, size,
versions) and :class:`Section` objects, each a list of blocks: :class:`Text` (a
paragraph or a list of generated sentences), :class:`Figure` (PNG bytes and a caption)
and :class:`Table`. :meth:`Document.to_html` renders one self-contained HTML5 file:
styles inline in a ``<style>`` element, images as ``data:`` URIs, no script, no link
to anything outside the file, so it opens the same offline, attached to a mail or
printed. Every piece of text is HTML-escaped; nothing is taken as markup.

Every page carries :data:`MARKER` (a ``<meta name="generator">`` element) in its head:
:func:`is_report` recognises a file this package wrote by it, so that writing a report
replaces an earlier report but never another file (``spades_sim.report.write``).

>>> doc = Document("A report", facts=[("seed", "1")],
...                sections=[Section("Nil", [Text(["Nil is hard."])])])
>>> html = doc.to_html()
>>> "<h2 id=\\"nil\\">Nil</h2>" in html and "http" not in html.replace("http-equiv", "")
True
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from spades_sim.report.figures import data_uri

MARKER = '<meta name="generator" content="spades_sim report">'
"""The element that marks a file as a report this package wrote."""


def is_report(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a file holding a report this package wrote (:data:`MARKER` in
    its head).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False) as f:
    ...     _ = f.write("<html><head></head></html>")
    >>> is_report(f.name), is_report(f.name + ".missing")
    (False, False)
    """
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return MARKER.encode() in head.split(b"</head>", 1)[0]


STYLE = """
body { font: 15px/1.55 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
       sans-serif; color: #1d2327; background: #fbfbf8; margin: 0; }
main { max-width: 800px; margin: 0 auto; padding: 28px 20px 60px; }
h1 { font-size: 27px; margin: 0 0 4px; letter-spacing: -0.01em; }
.subtitle { color: #5b6770; margin: 0 0 18px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-top: 10px; border-top: 2px solid #1f5f9e; }
h3 { font-size: 16px; margin: 22px 0 6px; }
p { margin: 8px 0; }
ul.says { margin: 8px 0 8px 0; padding-left: 20px; }
ul.says li { margin: 4px 0; }
figure { margin: 14px 0 18px; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid #e6e6e0;
             background: #fff; }
figcaption { font-size: 13px; color: #4a555d; margin-top: 5px; }
table { border-collapse: collapse; margin: 10px 0 16px; font-size: 13px;
        font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-size: 13px; color: #4a555d;
          padding-bottom: 4px; }
th, td { padding: 3px 8px; border-bottom: 1px solid #e2e2dc; text-align: right; }
.wide { overflow-x: auto; }
td .ci { white-space: nowrap; color: #5b6770; }
th { background: #eef2f5; font-weight: 600; }
td.text, th.text { text-align: left; white-space: normal; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px;
           background: #fff; border: 1px solid #e2e2dc; padding: 12px 16px; margin: 0; }
dl.facts dt { font-weight: 600; color: #3a454d; }
dl.facts dd { margin: 0; }
.note { font-size: 13px; color: #5b6770; }
.toc { font-size: 14px; }
.toc a { color: #1f5f9e; text-decoration: none; margin-right: 14px; }
details { margin: 6px 0; font-size: 13px; }
footer { margin-top: 40px; font-size: 12px; color: #7a858c; }
"""


@dataclass(frozen=True)
class Text:
    """Sentences: one paragraph, or a bulleted list when ``bullets``."""

    sentences: Sequence[str]
    bullets: bool = False
    note: bool = False  # small print: definitions, caveats


@dataclass(frozen=True)
class Figure:
    """A PNG image with the caption that says what it shows."""

    png: bytes
    caption: str
    alt: str = ""


@dataclass(frozen=True)
class Table:
    """A table of text cells; the first ``text_columns`` columns are flush left."""

    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    caption: str = ""
    text_columns: int = 1


@dataclass(frozen=True)
class Heading:
    """A sub-heading inside a section."""

    text: str


Block = Text | Figure | Table | Heading


@dataclass
class Section:
    """A titled part of the report."""

    title: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        """The section's id in the page (its title, lower case, dashes).

        >>> Section("Bags & penalties").anchor
        'bags-penalties'
        """
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")


@dataclass
class Document:
    """A whole report."""

    title: str
    subtitle: str = ""
    facts: Sequence[tuple[str, str]] = ()
    sections: list[Section] = field(default_factory=list)
    footer: str = ""
    fact_table: Table | None = None  # facts of two runs side by side (a pair)

    def images(self) -> list[Figure]:
        """Every figure, in order."""
        return [b for s in self.sections for b in s.blocks if isinstance(b, Figure)]

    def to_html(self) -> str:
        """The self-contained HTML page."""
        e = html.escape
        out = [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            MARKER,
            f"<title>{e(self.title)}</title>",
            f"<style>{STYLE}</style>",
            "</head>",
            "<body><main>",
            f"<h1>{e(self.title)}</h1>",
        ]
        if self.subtitle:
            out.append(f'<p class="subtitle">{e(self.subtitle)}</p>')
        if self.facts:
            out.append('<dl class="facts">')
            for key, value in self.facts:
                out.append(f"<dt>{e(key)}</dt><dd>{e(value)}</dd>")
            out.append("</dl>")
        if self.fact_table is not None:
            out.append(_table_html(self.fact_table))
        if len(self.sections) > 1:
            links = " ".join(f'<a href="#{s.anchor}">{e(s.title)}</a>' for s in self.sections)
            out.append(f'<p class="toc">{links}</p>')
        for section in self.sections:
            out.append(f'<h2 id="{section.anchor}">{e(section.title)}</h2>')
            out += [_block_html(b) for b in section.blocks]
        if self.footer:
            out.append(f"<footer>{e(self.footer)}</footer>")
        out.append("</main></body></html>")
        return "\n".join(out) + "\n"


def _block_html(block: Block) -> str:
    e = html.escape
    if isinstance(block, Heading):
        return f"<h3>{e(block.text)}</h3>"
    if isinstance(block, Text):
        cls = ' class="note"' if block.note else ""
        if block.bullets:
            items = "".join(f"<li>{e(s)}</li>" for s in block.sentences)
            return f'<ul class="says{" note" if block.note else ""}">{items}</ul>'
        return f"<p{cls}>{e(' '.join(block.sentences))}</p>"
    if isinstance(block, Figure):
        alt = e(block.alt or block.caption, quote=True)
        return (
            f'<figure><img src="{data_uri(block.png)}" alt="{alt}">'
            f"<figcaption>{e(block.caption)}</figcaption></figure>"
        )
    return _table_html(block)


def _table_html(table: Table) -> str:
    e = html.escape

    def cell(tag: str, i: int, text: str) -> str:
        cls = ' class="text"' if i < table.text_columns else ""
        value, bracket, rest = text.partition(" (")
        if tag == "td" and bracket and rest.endswith(")"):  # an interval: kept on one line
            return f'<{tag}{cls}>{e(value)} <span class="ci">({e(rest)}</span></{tag}>'
        return f"<{tag}{cls}>{e(text)}</{tag}>"

    head = "".join(cell("th", i, c) for i, c in enumerate(table.columns))
    body = "".join(
        "<tr>" + "".join(cell("td", i, c) for i, c in enumerate(row)) + "</tr>"
        for row in table.rows
    )
    caption = f"<caption>{e(table.caption)}</caption>" if table.caption else ""
    return (
        f'<div class="wide"><table>{caption}<thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


__all__ = ["Block", "Document", "Figure", "Heading", "Section", "Table", "Text"]
