"""The memory card as web pages: ``/families/{id}/card`` on ``family-memory serve``.

Each route parses its query or form, calls one card service (``card/views.py`` to read,
``card/operations.py`` to change, the same functions the HTTP API's routes and the command
line call, under the same write protocol), and renders a page. A change answers with a
redirect to the page that shows its result (post/redirect/get), after
``Runtime.drain_committed`` delivered what it caused (the index, the brief's patch), so
the next ``/context`` answer already reflects it.

Routes (``GET`` pages change nothing; every ``POST`` carries the form token):

- ``GET  /families/{f}/card``: the list, newest first, filtered by ``person`` (an entity
  id), ``type`` and ``status``, continued with ``cursor``; ``fragment=1`` answers only the
  next items and link (what the page's script appends for "more" and scrolling);
- ``GET  /families/{f}/card/memories/{m}``: one memory, its evidence with the conversation
  it came from, its history, and the forms to correct or forget it;
- ``POST /families/{f}/card/memories/{m}/edit`` and ``.../forget``;
- ``GET  /families/{f}/card/forget-group?entity=|topic=|type=``: the preview (the count, the
  list, a confirmation form carrying the preview's token); ``POST`` the same path confirms;
- ``GET  /card/assets/{card.css,card.js}``: the page's only assets, shipped in the package.

A refusal is a page that says what was wrong and keeps what was typed: the form comes
back filled in, with the message beside it; a stale group preview comes back as the group
as it is now, to confirm again. Statuses come from the API's one table (``app.api.ERRORS``).
Who may call at all (this machine only, the card's own origin, form bodies) is checked
by the local server before a request reaches this module (``app/local_server.py``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from family_memory.app.api import ERRORS
from family_memory.app.card_web import pages
from family_memory.app.card_web.markup import Html, asset, render
from family_memory.app.card_web.markup import field as value_of
from family_memory.app.card_web.session import COOKIE, CardSessions
from family_memory.app.runtime import Runtime
from family_memory.card import operations as card
from family_memory.card.views import (
    family_entities,
    lineage_view,
    list_filtered,
    read_memory,
    shown_evidence,
)
from family_memory.domain.errors import (
    ConflictError,
    FamilyMemoryError,
    InvalidInputError,
    NotFoundError,
    public_message,
)
from family_memory.domain.family import FamilySettings
from family_memory.domain.ids import check_entity_id, check_family_id, check_memory_id
from family_memory.domain.layout import FAMILY_SETTINGS
from family_memory.domain.memory import Memory, MemoryType, Status
from family_memory.domain.okf import validate
from family_memory.families import load_family

log = logging.getLogger(__name__)

__all__ = ["COOKIE", "MAX_FORM_BYTES", "CardWeb", "WebRequest", "WebResponse", "owns"]

#: Memories per page of the list.
PAGE_SIZE = 20
#: The largest form body a card page sends (an edit is a few hundred bytes).
MAX_FORM_BYTES = 64 * 1024
ASSETS = {"card.css": "text/css; charset=utf-8", "card.js": "text/javascript; charset=utf-8"}
#: Every card answer: no script but the package's own, no framing, no leaking the URL.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
_CARD_PATH = re.compile(r"/families/[^/]+/card(?:/.*)?")
_STATUS_CHOICES = [("active", "current"), *[(s.value, pages.STATUS_WORDS[s]) for s in Status if s is not Status.ACTIVE]]


@dataclass(frozen=True)
class WebRequest:
    method: str
    path: str
    query: Mapping[str, str] = field(default_factory=dict)
    form: Mapping[str, str] = field(default_factory=dict)
    session: str | None = None  # the session cookie's value


@dataclass
class WebResponse:
    status: int
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)

    def all_headers(self) -> dict[str, str]:
        return {"Content-Type": self.content_type, **SECURITY_HEADERS, **self.headers}


def owns(path: str) -> bool:
    """Whether ``path`` is the card's (a page or one of its assets), not the JSON API's."""
    return path.startswith("/card/assets/") or _CARD_PATH.fullmatch(path) is not None


def _status_of(exc: FamilyMemoryError) -> int:
    return int(next(ERRORS[cls] for cls in type(exc).__mro__ if cls in ERRORS)[0])


class _FormRefusedError(Exception):
    """The form's token does not match this browser's session: nothing was changed."""


Handler = Callable[["CardWeb", "_Call"], WebResponse]


@dataclass
class _Call:
    """One request being answered: the request, its family's page context, a cookie to set."""

    request: WebRequest
    session: str
    new_session: bool
    ctx: pages.PageContext | None = None
    match: dict[str, str] = field(default_factory=dict)

    @property
    def page(self) -> pages.PageContext:
        assert self.ctx is not None
        return self.ctx


class CardWeb:
    """The card's pages over one runtime (the server's)."""

    def __init__(self, runtime: Runtime, sessions: CardSessions | None = None) -> None:
        self.runtime = runtime
        self.sessions = sessions or CardSessions()
        family = r"/families/(?P<family>[^/]+)/card"
        memory = family + r"/memories/(?P<memory>[^/]+)"
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = [
            ("GET", re.compile(family), CardWeb._list),
            ("GET", re.compile(memory), CardWeb._memory),
            ("POST", re.compile(memory + "/edit"), CardWeb._edit),
            ("POST", re.compile(memory + "/forget"), CardWeb._forget),
            ("GET", re.compile(family + "/forget-group"), CardWeb._group_preview),
            ("POST", re.compile(family + "/forget-group"), CardWeb._group_confirm),
        ]

    # --- dispatch --------------------------------------------------------------------

    def handle(self, request: WebRequest) -> WebResponse:
        """The answer to one request on a card path (``owns``)."""
        if request.path.startswith("/card/assets/"):
            return self._asset(request)
        known = self.sessions.known_shape(request.session)
        call = _Call(request, request.session if known and request.session else self.sessions.new_session(), not known)
        found = [(method, pattern.fullmatch(request.path), h) for method, pattern, h in self._routes]
        matching = [(method, m, h) for method, m, h in found if m is not None]
        chosen = next(((m, h) for method, m, h in matching if method == request.method.replace("HEAD", "GET")), None)
        try:
            if chosen is None:
                if matching:
                    allowed = " or ".join(sorted({method for method, _, _ in matching}))
                    response = self._message(
                        call, HTTPStatus.METHOD_NOT_ALLOWED, "Not here", f"This page takes {allowed} only."
                    )
                    response.headers["Allow"] = ", ".join(sorted({method for method, _, _ in matching}))
                else:
                    response = self._message(call, HTTPStatus.NOT_FOUND, "No such page", "The card has no such page.")
            else:
                match, handler = chosen
                call.match = {k: v for k, v in match.groupdict().items() if v is not None}
                call.ctx = self._context(call)
                response = handler(self, call)
        except FamilyMemoryError as exc:
            response = self._message(call, _status_of(exc), "That did not work", public_message(exc))
        except Exception:
            log.exception("a card page failed", extra={"path": request.path})
            response = self._message(
                call, HTTPStatus.INTERNAL_SERVER_ERROR, "Something went wrong", "The page failed; nothing was changed."
            )
        if call.new_session:
            response.headers["Set-Cookie"] = self.sessions.cookie(call.session)
        if request.method != "GET" or response.content_type.startswith("text/html"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    def refusal(self, status: int, message: str) -> WebResponse:
        """A page for what the server refuses before a request reaches a route (its origin, its size)."""
        call = _Call(WebRequest("GET", "/"), self.sessions.new_session(), new_session=False)
        return self._message(call, status, "Refused", message)

    def _context(self, call: _Call) -> pages.PageContext:
        family_id = check_family_id(call.match["family"])
        store = self.runtime.store
        if not store.exists(family_id, FAMILY_SETTINGS):
            raise NotFoundError(f"there is no family {family_id} on this machine (it has no {FAMILY_SETTINGS})")
        family: FamilySettings = load_family(store, family_id)
        names = {e.id: e.name for e in family_entities(store, family_id)}
        return pages.PageContext(family_id, family, names, self.runtime.clock.now(), self.sessions.token(call.session))

    def _asset(self, request: WebRequest) -> WebResponse:
        name = request.path.removeprefix("/card/assets/")
        if request.method not in ("GET", "HEAD"):
            return WebResponse(
                HTTPStatus.METHOD_NOT_ALLOWED, b"GET only\n", "text/plain; charset=utf-8", {"Allow": "GET"}
            )
        if name not in ASSETS:
            return WebResponse(HTTPStatus.NOT_FOUND, b"no such asset\n", "text/plain; charset=utf-8")
        return WebResponse(HTTPStatus.OK, asset(name), ASSETS[name], {"Cache-Control": "no-cache"})

    # --- rendering -------------------------------------------------------------------

    def _page(self, call: _Call, status: int, title: str, content: Html, notice: Html | None = None) -> WebResponse:
        ctx = call.ctx
        body = render(
            "page.html",
            title=title,
            home=ctx.card_url() if ctx else "/",
            family=ctx.family_id if ctx else "",
            notice=notice or Html(""),
            content=content,
        )
        return WebResponse(int(status), body.encode("utf-8"))

    def _message(
        self, call: _Call, status: int, heading: str, message: str, *, details: Html | None = None
    ) -> WebResponse:
        ctx = call.ctx
        back_url = ctx.card_url() if ctx else "/"
        content = render(
            "message.html",
            heading=heading,
            message=message,
            details=details or Html(""),
            back_url=back_url,
            back_label="Back to the memory card" if ctx else "Back",
        )
        return self._page(call, status, heading, content)

    @staticmethod
    def _see_other(location: str) -> WebResponse:
        return WebResponse(HTTPStatus.SEE_OTHER, b"", "text/plain; charset=utf-8", {"Location": location})

    def _check_form(self, call: _Call) -> None:
        if not self.sessions.accepts(call.session if not call.new_session else None, call.request.form.get("csrf")):
            raise _FormRefusedError

    # --- the list --------------------------------------------------------------------

    def _list(self, call: _Call) -> WebResponse:
        ctx, query = call.page, call.request.query
        person = query.get("person", "")
        kind = query.get("type", "")
        status_name = query.get("status", "active")
        entity_id = check_entity_id(person) if person else None
        memory_type = _choice(MemoryType, kind, "type")
        status = _choice(Status, status_name, "status") if status_name != "all" else None
        cursor = query.get("cursor") or None
        page = list_filtered(
            self.runtime.catalog,
            ctx.family_id,
            status=status,
            entity_id=entity_id,
            memory_type=memory_type,
            limit=PAGE_SIZE,
            cursor=cursor,
        )
        filters = {"person": person, "type": kind, "status": "" if status_name == "active" else status_name}
        next_url = ctx.card_url(**filters, cursor=page.cursor) if page.cursor else None
        if query.get("fragment") == "1":
            return WebResponse(HTTPStatus.OK, pages.fragment(ctx, page.rows, next_url).encode("utf-8"))
        people = [("", "anyone"), *sorted(ctx.names.items(), key=lambda kv: kv[1].casefold())]
        types = [("", "any type"), *[(t.value, pages.TYPE_WORDS[t]) for t in MemoryType]]
        statuses = [*_STATUS_CHOICES, ("all", "everything, with history")]
        filtered = any(filters.values())
        if cursor:
            note = "Further memories (continued from the previous page)."
        elif page.rows:
            note = "Newest first."
        else:
            note = ""
        content = render(
            "list.html",
            card_url=ctx.card_url(),
            group_url=ctx.group_url(),
            person_options=pages.options(people, person),
            type_options=pages.options(types, kind),
            status_options=pages.options(statuses, status_name),
            clear_link=Html(f'<a href="{value_of(ctx.card_url())}">Clear the filters</a>') if filtered else Html(""),
            listing_note=note,
            items=pages.items(ctx, page.rows),
            empty=Html("") if page.rows else Html('<p class="empty">No memory matches these filters.</p>'),
            more=pages.more_link(next_url) if page.rows or cursor else Html(""),
            entity_options=pages.options(
                sorted(((n, n) for n in set(ctx.names.values())), key=lambda kv: kv[0].casefold()), ""
            ),
            group_type_options=pages.options([(t.value, pages.TYPE_WORDS[t]) for t in MemoryType], ""),
        )
        return self._page(call, HTTPStatus.OK, "Memory card", content, self._done_notice(call))

    def _done_notice(self, call: _Call) -> Html | None:
        done = call.request.query.get("done", "")
        if done == "forgotten":
            memory_id = call.request.query.get("memory", "")
            try:
                summary = read_memory(self.runtime.store, call.page.family_id, check_memory_id(memory_id)).summary
            except FamilyMemoryError:
                summary = ""
            said = f"“{summary}”" if summary else "The memory"
            return pages.notice(f"Forgotten: {said}. The assistant no longer uses it and will not learn it again.")
        if done == "group":
            count = call.request.query.get("count", "")
            number = int(count) if count.isdigit() else 0
            memories = "memory" if number == 1 else "memories"
            return pages.notice(f"Forgot {number} {memories}. The assistant will not learn them again.")
        if done == "edited":
            return pages.notice("Saved. The new wording replaces the old one; the history below shows both.")
        return None

    # --- one memory ------------------------------------------------------------------

    def _memory(self, call: _Call) -> WebResponse:
        memory_id = check_memory_id(call.match["memory"])
        return self._memory_page(call, memory_id, HTTPStatus.OK)

    def _memory_page(
        self,
        call: _Call,
        memory_id: str,
        status: int,
        *,
        typed: Mapping[str, str] | None = None,
        error: str = "",
    ) -> WebResponse:
        ctx = call.page
        memory, shown = shown_evidence(self.runtime.store, ctx.family_id, memory_id)
        lineage_note, versions = pages.versions(ctx, lineage_view(self.runtime.store, ctx.family_id, memory_id))
        content = render(
            "memory.html",
            card_url=ctx.card_url(),
            evidence=pages.evidence(ctx, shown),
            lineage_note=lineage_note,
            versions=versions,
            actions=self._actions(ctx, memory, typed or {}, error),
            **pages.memory_facts(ctx, memory),
        )
        notice = self._done_notice(call) if status == HTTPStatus.OK else None
        return self._page(call, status, memory.summary, content, notice)

    def _actions(self, ctx: pages.PageContext, memory: Memory, typed: Mapping[str, str], error: str) -> Html:
        if memory.status not in card.EDITABLE:
            if memory.status is Status.SUPERSEDED and memory.superseded_by:
                where = Html(
                    f'<a href="{value_of(ctx.memory_url(memory.superseded_by))}">the memory that replaced it</a>'
                )
                return Html(f'<p class="actions-note">To correct or forget it, open {where}.</p>')
            return Html('<p class="actions-note">It was forgotten: the assistant does not use it.</p>')
        if not ctx.family.members:
            return Html(
                '<p class="actions-note">This family has no members in family.json yet, so nobody can change '
                "its memories here (family-memory family add-member).</p>"
            )
        member = typed.get("member", "")
        return render(
            "actions.html",
            error=pages.problem(error) if error else Html(""),
            edit_url=ctx.memory_url(memory.id) + "/edit",
            forget_url=ctx.memory_url(memory.id) + "/forget",
            csrf=ctx.csrf,
            summary_value=value_of(typed.get("summary", memory.summary)),
            about_value=value_of(typed.get("about", memory.about)),
            member_options_edit=pages.member_options(ctx, member),
            forget_fields=pages.forget_fields(ctx, "f", typed),
        )

    def _edit(self, call: _Call) -> WebResponse:
        ctx, form = call.page, call.request.form
        memory_id = check_memory_id(call.match["memory"])
        typed = {k: form.get(k, "") for k in ("summary", "about", "member")}
        try:
            self._check_form(call)
            current = read_memory(self.runtime.store, ctx.family_id, memory_id)
            # Only what the family changed: an untouched field keeps the old memory's value.
            changes = {
                name: form[name].strip()
                for name in ("summary", "about")
                if name in form and form[name].strip() != getattr(current, name)
            }
            edit = validate(card.MemoryEdit, changes, "edit")
            _, new = self.runtime.card.edit(ctx.family_id, memory_id, form.get("member", ""), edit)
        except _FormRefusedError:
            return self._memory_page(call, memory_id, HTTPStatus.FORBIDDEN, typed=typed, error=_REFUSED_FORM)
        except FamilyMemoryError as exc:
            status = _status_of(exc)
            return self._memory_page(call, memory_id, status, typed=typed, error=_change_refused(exc))
        self.runtime.drain_committed()  # committed: the index and the brief catch up before the next page
        return self._see_other(ctx.memory_url(new.id, done="edited"))

    def _forget(self, call: _Call) -> WebResponse:
        ctx, form = call.page, call.request.form
        memory_id = check_memory_id(call.match["memory"])
        typed = {k: form.get(k, "") for k in ("reason", "member")}
        try:
            self._check_form(call)
            reason = form.get("reason", "").strip()
            self.runtime.card.forget(ctx.family_id, memory_id, form.get("member", ""), reason)
        except _FormRefusedError:
            return self._memory_page(call, memory_id, HTTPStatus.FORBIDDEN, typed=typed, error=_REFUSED_FORM)
        except FamilyMemoryError as exc:
            return self._memory_page(call, memory_id, _status_of(exc), typed=typed, error=_change_refused(exc))
        self.runtime.drain_committed()
        return self._see_other(ctx.card_url(done="forgotten", memory=memory_id))

    # --- forget a group --------------------------------------------------------------

    @staticmethod
    def _selector(values: Mapping[str, str]) -> card.GroupSelector:
        given = {
            "entity": values.get("entity", "").strip() or None,
            "topic": values.get("topic", "").strip() or None,
            "memory_type": values.get("type", "").strip() or None,
        }
        return validate(card.GroupSelector, given, "group")

    def _group_preview(self, call: _Call) -> WebResponse:
        selector = self._selector(call.request.query)
        return self._group_page(call, selector, HTTPStatus.OK)

    def _group_page(
        self,
        call: _Call,
        selector: card.GroupSelector,
        status: int,
        *,
        typed: Mapping[str, str] | None = None,
        error: str = "",
    ) -> WebResponse:
        ctx = call.page
        preview = self.runtime.card.preview_group(ctx.family_id, selector)
        count = preview.count
        if count == 0:
            count_text = "It affects no memory now; confirming keeps the assistant from learning such memories later."
            confirm_label = "Forget this group"
        else:
            count_text = f"It affects {count} {'memory' if count == 1 else 'memories'}:"
            confirm_label = f"Forget {'this memory' if count == 1 else f'these {count} memories'}"
        content = render(
            "group.html",
            card_url=ctx.card_url(),
            group=selector.describe(),
            error=pages.problem(error) if error else Html(""),
            count_text=count_text,
            items=pages.items(ctx, preview.memories),
            group_url=ctx.group_url(),
            csrf=ctx.csrf,
            entity_value=value_of(selector.entity or ""),
            topic_value=value_of(selector.topic or ""),
            type_value=value_of(selector.memory_type.value if selector.memory_type else ""),
            count=str(count),
            token=preview.token,
            forget_fields=pages.forget_fields(ctx, "c", typed or {}),
            confirm_label=confirm_label,
        )
        return self._page(call, status, f"Forget {selector.describe()}?", content)

    def _group_confirm(self, call: _Call) -> WebResponse:
        ctx, form = call.page, call.request.form
        selector = self._selector(form)
        typed = {k: form.get(k, "") for k in ("reason", "member")}
        try:
            self._check_form(call)
            expected = form.get("expected_count", "")
            if not expected.isdigit():
                raise InvalidInputError("expected_count: the count the preview showed is missing; preview again")
            result = self.runtime.card.forget_group(
                ctx.family_id,
                selector,
                form.get("member", ""),
                expected_count=int(expected),
                expected_token=form.get("preview_token") or None,
                reason=form.get("reason", "").strip(),
            )
        except _FormRefusedError:
            return self._group_page(call, selector, HTTPStatus.FORBIDDEN, typed=typed, error=_REFUSED_FORM)
        except ConflictError as exc:
            message = (
                f"Nothing was forgotten: {public_message(exc)}. Below is the group as it is now; "
                "check it and confirm again."
            )
            return self._group_page(call, selector, HTTPStatus.CONFLICT, typed=typed, error=message)
        except FamilyMemoryError as exc:
            return self._group_page(call, selector, _status_of(exc), typed=typed, error=_change_refused(exc))
        self.runtime.drain_committed()
        return self._see_other(ctx.card_url(done="group", count=str(result.preview.count)))


_REFUSED_FORM = (
    "Nothing was changed: this form was not opened in this browser's current session of the card "
    "(the server was restarted, or the page came from elsewhere). Check what you typed below and send it again."
)


def _change_refused(exc: FamilyMemoryError) -> str:
    return f"Nothing was changed: {public_message(exc)}"


def _choice(enum: Any, value: str, name: str) -> Any:
    if not value:
        return None
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise InvalidInputError(f"{name}: {value[:40]!r} is not one of {allowed}") from None
