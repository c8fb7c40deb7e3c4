"""HTML for the card page, with the standard library only: escaping and templates.

Every piece of memory text (a summary, a quote, a turn, a name, a reason) reaches the page
through ``text`` or ``field`` and nothing else; markup the page itself writes is ``Html``.
``render`` fills a template's ``$name`` placeholders (``string.Template``): an ``Html``
value goes in as it is, any other value is escaped first, so a template cannot be filled
with raw text by mistake.

``text`` escapes ``&``, ``<``, ``>``, ``"`` and ``'`` (no element or attribute can be opened
or closed) and shows each character a reader would not see, or that would make the line
read differently from what it holds (C0 and C1 controls, DEL, the line separators, the
bidirectional controls and every other format character, lone surrogates), as a visible
marker ``[U+202E]``; templates also isolate memory text in ``<bdi>``, so even a right-to-left
name cannot reorder the words around it. ``field`` is for a form field's value (an input
or a textarea): escaped, but otherwise the exact text, so editing a memory never changes
words the family did not touch.
"""

from __future__ import annotations

import functools
import html
import re
from importlib import resources
from string import Template
from urllib.parse import quote, urlencode

from family_memory.domain.literal import FORMAT_CHARACTERS


class Html(str):
    """Markup the page writes itself: inserted into a template as it is."""

    __slots__ = ()


#: What a reader cannot see, or what reorders a line (kept: tab and line feed, for bodies).
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + FORMAT_CHARACTERS + "]")


def _marker(match: re.Match[str]) -> str:
    code = f"U+{ord(match.group()):04X}"
    return f'<span class="hidden-char" title="an invisible character ({code})">[{code}]</span>'


def text(value: object) -> Html:
    """Untrusted text as HTML text: escaped, with invisible and reordering characters shown."""
    return Html(_HIDDEN.sub(_marker, html.escape(str(value), quote=True)))


def field(value: object) -> Html:
    """Untrusted text as a form field's value (attribute or textarea): escaped, otherwise exact.
    A lone surrogate cannot be sent to a browser at all: it becomes U+FFFD."""
    escaped = html.escape(str(value), quote=True)
    return Html(re.sub("[\ud800-\udfff]", "\ufffd", escaped))


def join(parts: list[Html] | tuple[Html, ...], separator: str = "") -> Html:
    return Html(separator.join(parts))


def path_url(*segments: str, query: dict[str, str] | None = None) -> str:
    """``/seg/seg?k=v`` with every segment percent-encoded; empty query values are left out."""
    url = "/" + "/".join(quote(s, safe="") for s in segments)
    kept = {k: v for k, v in (query or {}).items() if v}
    return url + ("?" + urlencode(kept) if kept else "")


@functools.cache
def template(name: str) -> Template:
    """A template shipped in the package (``templates/``), read once."""
    source = resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8")
    return Template(source)


def render(name: str, **values: object) -> Html:
    """The template ``name`` filled: ``Html`` values as they are, every other value escaped."""
    filled = {key: value if isinstance(value, Html) else text(value) for key, value in values.items()}
    return Html(template(name).substitute(filled))


def asset(name: str) -> bytes:
    """A static file shipped in the package (``static/``); FileNotFoundError when there is none."""
    return resources.files(__package__).joinpath("static", name).read_bytes()
