"""Who may send the card's forms: a per-session token, bound to a SameSite cookie.

A browser gets a random session id in a cookie (``HttpOnly``, ``SameSite=Strict``: no other
site's page, link or form makes the browser send it). Every form the card renders carries
a token derived from that id with a key this server process drew at start (HMAC-SHA256);
a change is accepted only when the form's token matches the cookie's. A page of another
site can neither read the token nor make the browser send the cookie, and the local
server also refuses a change whose Origin is not the card's own (``app/local_server.py``).
A token of an earlier run of the server is refused (the key changed), with a message
saying so and the typed text kept.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

COOKIE = "fm_card_session"
#: A session id as this module issues it (URL-safe base64 of 24 random bytes).
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{32}")


class CardSessions:
    """Issues session ids and checks the forms' tokens against them."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    @staticmethod
    def new_session() -> str:
        return secrets.token_urlsafe(24)

    @staticmethod
    def known_shape(session: str | None) -> bool:
        return session is not None and _SESSION_ID.fullmatch(session) is not None

    def token(self, session: str) -> str:
        """The forms' token for ``session``."""
        return hmac.new(self._key, session.encode("ascii"), hashlib.sha256).hexdigest()

    def accepts(self, session: str | None, token: str | None) -> bool:
        """Whether a form's ``token`` was issued for the browser's ``session`` by this server."""
        if not self.known_shape(session) or not token:
            return False
        assert session is not None
        return hmac.compare_digest(self.token(session), token)

    @staticmethod
    def cookie(session: str) -> str:
        """The Set-Cookie value for ``session``: the whole site, script cannot read it, same site only."""
        return f"{COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict"
