"""Escaping by default: a value is text unless it is `Html`, so a memory's words never become markup.

Templates are stdlib `string.Template` files beside this module; `render` escapes every value that is not Html.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from string import Template
from urllib.parse import urlencode

TEMPLATES = Path(__file__).with_name("templates")
PREFIX = "/ui"
VOID = frozenset({"input", "br", "meta", "link"})


class Html(str):
    """Markup built by this package from escaped parts: rendered as is."""

    __slots__ = ()


def esc(value: object) -> Html:
    """VALUE as text in HTML (Html passes through; None is empty)."""
    if isinstance(value, Html):
        return value
    return Html(html.escape("" if value is None else str(value), quote=True))


def join(parts: Iterable[object], sep: str = "") -> Html:
    return Html(esc(sep).join(esc(p) for p in parts))


def tag(name: str, body: object = "", /, **attrs: object) -> Html:
    """<NAME attrs>BODY</NAME>; attribute names take `_` for `-` and a trailing `_` is dropped (class_)."""
    shown = "".join(
        f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items() if v is not None and v is not False
    )
    if name in VOID:
        return Html(f"<{name}{shown}>")
    return Html(f"<{name}{shown}>{esc(body)}</{name}>")


def url(path: str, **query: object) -> str:
    """/ui/PATH?QUERY (None values left out)."""
    kept = {k: v for k, v in query.items() if v is not None and v != ""}
    return f"{PREFIX}/{path}" + (f"?{urlencode(kept)}" if kept else "")


def link(path: str, body: object, **query: object) -> Html:
    return tag("a", body, href=url(path, **query))


@cache
def template(name: str) -> Template:
    return Template((TEMPLATES / name).read_text(encoding="utf-8"))


def render(name: str, **values: object) -> Html:
    """Template NAME with VALUES, each escaped unless it is Html."""
    return Html(template(name).substitute({k: esc(v) for k, v in values.items()}))
