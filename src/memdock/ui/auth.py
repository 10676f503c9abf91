"""Who may see the page: the bearer token (header, or a cookie set by the login form), the Host a loopback
server answers to (a page on another site must not reach it by DNS rebinding), and a CSRF token on every form
that writes (a page on another site must not post a forget to a loopback server)."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from urllib.parse import urlsplit

from ..mcp.http import TOKEN_ENV, is_loopback

COOKIE = "memdock_ui"


def _host_name(host: str) -> str:
    """The name in a Host header, without its port ([::1]:8766 -> ::1)."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """TOKEN (None: no token on loopback) and whether the server is bound to loopback only."""

    def __init__(self, token: str | None, *, loopback: bool):
        self.token = token
        self.loopback = loopback
        self._secret = secrets.token_bytes(32)
        self.env = TOKEN_ENV

    def host_ok(self, headers: Mapping[str, str]) -> bool:
        """A loopback server answers only requests addressed to a loopback name."""
        return not self.loopback or is_loopback(_host_name(headers.get("host", "")))

    def cookie_value(self) -> str:
        return hmac.new((self.token or "").encode(), b"memdock ui session", "sha256").hexdigest()

    def token_ok(self, given: str) -> bool:
        return self.token is None or hmac.compare_digest(given.encode(), self.token.encode())

    def authorised(self, headers: Mapping[str, str], cookies: Mapping[str, str]) -> bool:
        if self.token is None:
            return True
        header = headers.get("authorization", "")
        if hmac.compare_digest(header.encode(), f"Bearer {self.token}".encode()):
            return True
        return hmac.compare_digest(cookies.get(COOKIE, "").encode(), self.cookie_value().encode())

    def csrf(self) -> str:
        return hmac.new(self._secret, b"forget", "sha256").hexdigest()

    def post_ok(self, headers: Mapping[str, str], form: Mapping[str, str]) -> bool:
        """A write carries this process's CSRF token, and comes from this origin when the browser says where from."""
        origin = headers.get("origin")
        if origin and origin != "null" and urlsplit(origin).netloc != headers.get("host", ""):
            return False
        return hmac.compare_digest(form.get("csrf", "").encode(), self.csrf().encode())


def safe_next(target: str) -> str:
    """Where to go after a login or a forget: a path on this page only (never another site)."""
    if target.startswith("/ui/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/ui/"
