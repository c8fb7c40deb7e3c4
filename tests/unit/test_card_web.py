"""The memory card's pages on ``family-memory serve``, over HTTP without a browser: who may
send a change (the form token, the card's own origin, a form body, this machine only), what
a refusal shows (the message, and what was typed), escaping, and that every change is the
card service's (the same files and catalog rows the API's routes produce)."""

from __future__ import annotations

import http.client
import json
import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from family_memory.app.card_web.app import CardWeb, WebRequest, owns
from family_memory.app.card_web.markup import field, render, text
from family_memory.app.card_web.session import COOKIE, CardSessions
from family_memory.app.local_server import cookies_of, is_loopback, serve
from family_memory.app.runtime import Runtime
from family_memory.domain.clock import FixedClock
from family_memory.domain.memory import Status
from formation_helpers import FAMILY, FRIDAY_MORNING, save_family, session_json
from retrieval_helpers import local_runtime

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    runtime = local_runtime(tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed")
    save_family(runtime.store)
    return runtime


class Browser:
    """A client that keeps the card's cookie, as a browser does."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)
        self.cookie = ""

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
        sent = dict(headers or {})
        if self.cookie:
            sent["Cookie"] = self.cookie
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            answer = dict(response.getheaders())
            data = response.read().decode("utf-8")
        finally:
            connection.close()
        if "Set-Cookie" in answer:
            self.cookie = answer["Set-Cookie"].split(";", 1)[0]
        return response.status, answer, data

    def get(self, path: str) -> tuple[int, dict[str, str], str]:
        return self.request("GET", path)

    def post(self, path: str, form: dict[str, str], **headers: str) -> tuple[int, dict[str, str], str]:
        return self.request("POST", path, urlencode(form).encode(), {**FORM, **headers})

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        status, _, answer = self.request(method, path, data, {"Content-Type": "application/json"})
        return status, json.loads(answer)


@pytest.fixture
def browser(rt: Runtime) -> Iterator[Browser]:
    server = serve(rt, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Browser(server.url)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def remember(browser: Browser, summary: str, about: str = "A note") -> str:
    body = {"member_id": "lucia", "type": "fact", "about": about, "summary": summary}
    status, answer = browser.api("POST", f"/families/{FAMILY}/memories", body)
    assert status == 201, answer
    return str(answer["memory"]["id"])


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found is not None, "no form token on the page"
    return found.group(1)


def card(path: str = "") -> str:
    return f"/families/{FAMILY}/card{path}"


def test_the_card_lists_memories_newest_first_with_a_session_cookie_and_strict_headers(browser: Browser) -> None:
    older = remember(browser, "Bins go out on Thursday.")
    newer = remember(browser, "Maya's piano lesson is on Wednesday.")
    status, headers, page = browser.get(card())
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert page.index(newer) < page.index(older)
    cookie = headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert (
        "script-src 'self'" in headers["Content-Security-Policy"]
        and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    )
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["Cache-Control"] == "no-store"
    _, again, _ = browser.get(card())
    assert "Set-Cookie" not in again  # the browser kept its session


def test_more_continues_through_the_catalogs_cursor_and_filters_keep_to_one_person_and_type(
    browser: Browser, rt: Runtime
) -> None:
    ids = [remember(browser, f"Fact number {n}.", f"Fact {n}") for n in range(23)]
    _, _, page = browser.get(card())
    shown = re.findall(r'id="item-([0-9A-Z]{26})"', page)
    assert shown == list(reversed(ids))[:20]
    more = re.search(r'href="([^"]+)" data-more', page)
    assert more is not None
    _, _, fragment = browser.get(more.group(1).replace("&amp;", "&") + "&fragment=1")
    assert re.findall(r'id="item-([0-9A-Z]{26})"', fragment) == list(reversed(ids))[20:]
    assert "<html" not in fragment and "That is everything." in fragment
    session = session_json([("user", "lucia", "My daughter Maya loves swimming. We love Thai food.")])
    status, _ = browser.api("POST", f"/families/{FAMILY}/sessions", json.loads(session))
    assert status == 201
    maya = next(e for e in re.findall(r'<option value="([0-9A-Z]{26})">Maya', browser.get(card())[2]))
    _, _, hers = browser.get(card(f"?person={maya}"))
    summaries = re.findall(r"<bdi>([^<]*)</bdi></a></h2>", hers)
    assert summaries and all("Maya" in s for s in summaries) and not any("Thai" in s for s in summaries)
    _, _, preferences = browser.get(card("?type=preference"))
    assert "swimming" in preferences and "Fact number" not in preferences
    status, _, bad = browser.get(card("?type=opinion"))
    assert status == 400 and "type: &#x27;opinion&#x27; is not one of identity, directive" in bad


def test_a_change_without_the_form_token_is_refused_changes_nothing_and_keeps_what_was_typed(
    browser: Browser, rt: Runtime
) -> None:
    memory_id = remember(browser, "Bins go out on Thursday.")
    browser.get(card(f"/memories/{memory_id}"))
    form = {"summary": "Bins go out on Friday.", "about": "A note", "member": "lucia", "csrf": "0" * 64}
    status, _, page = browser.post(card(f"/memories/{memory_id}/edit"), form)
    assert status == 403 and "Nothing was changed: this form was not opened in this browser" in page
    assert 'value="Bins go out on Friday."' in page  # what was typed comes back, with a fresh token
    assert rt.catalog.get_rows(FAMILY, [memory_id])[memory_id].status is Status.ACTIVE
    status, headers, _ = browser.post(card(f"/memories/{memory_id}/edit"), {**form, "csrf": csrf_of(page)})
    assert status == 303 and headers["Location"].endswith("?done=edited")
    assert rt.catalog.get_rows(FAMILY, [memory_id])[memory_id].status is Status.SUPERSEDED


def test_a_token_of_another_session_or_an_earlier_server_is_refused(rt: Runtime) -> None:
    web = CardWeb(rt, CardSessions(b"k" * 32))
    session = CardSessions.new_session()
    token = web.sessions.token(session)
    assert web.sessions.accepts(session, token)
    assert not web.sessions.accepts(CardSessions.new_session(), token)  # another browser's
    assert not CardSessions(b"j" * 32).accepts(session, token)  # the server restarted: a new key
    assert not web.sessions.accepts(None, token) and not web.sessions.accepts(session, "")


def test_a_change_from_another_origin_or_as_json_is_refused_before_it_reaches_the_card(
    browser: Browser, rt: Runtime
) -> None:
    memory_id = remember(browser, "Bins go out on Thursday.")
    _, _, page = browser.get(card(f"/memories/{memory_id}"))
    form = {"reason": "wrong", "member": "lucia", "csrf": csrf_of(page)}
    path = card(f"/memories/{memory_id}/forget")
    status, _, refused = browser.post(path, form, Origin="http://evil.example")
    assert status == 403 and "must come from its own pages" in refused
    status, _, _ = browser.post(path, form, **{"Sec-Fetch-Site": "cross-site"})
    assert status == 403
    status, _, refused = browser.request("POST", path, json.dumps(form).encode(), {"Content-Type": "application/json"})
    assert status == 415 and "application/x-www-form-urlencoded" in refused
    status, _, refused = browser.post(path, form, Host="attacker.example:80")
    assert status == 403 and "is not this server" in refused
    assert rt.catalog.get_rows(FAMILY, [memory_id])[memory_id].status is Status.ACTIVE
    status, headers, _ = browser.post(path, form, Origin=f"http://127.0.0.1:{browser.port}")
    assert status == 303 and "done=forgotten" in headers["Location"]
    assert rt.catalog.get_rows(FAMILY, [memory_id])[memory_id].status is Status.RETRACTED


def test_the_json_api_still_refuses_any_request_with_an_origin(browser: Browser) -> None:
    status, _, answer = browser.request(
        "GET", f"/families/{FAMILY}/memories", headers={"Origin": f"http://127.0.0.1:{browser.port}"}
    )
    assert status == 403 and json.loads(answer)["error"]["code"] == "forbidden"


def test_bad_input_gets_a_specific_page_and_the_typed_text_back(browser: Browser, rt: Runtime) -> None:
    memory_id = remember(browser, "Bins go out on Thursday.")
    _, _, page = browser.get(card(f"/memories/{memory_id}"))
    form = {"summary": "Bins\u2028go out", "about": "A note", "member": "lucia", "csrf": csrf_of(page)}
    status, _, refused = browser.post(card(f"/memories/{memory_id}/edit"), form)
    assert status == 400 and "summary contains a line break or control character (U+2028)" in refused
    assert 'value="Bins\u2028go out"' in refused and 'role="alert"' in refused
    unchanged = {**form, "summary": "Bins go out on Thursday."}
    status, _, refused = browser.post(card(f"/memories/{memory_id}/edit"), unchanged)
    assert status == 400 and "an edit must change at least one field" in refused
    stranger = {**form, "summary": "Bins go out on Friday.", "member": "stranger"}
    status, _, refused = browser.post(card(f"/memories/{memory_id}/edit"), stranger)
    assert status == 400 and "member &#x27;stranger&#x27; is not in family fam-rivera" in refused
    assert rt.catalog.get_rows(FAMILY, [memory_id])[memory_id].status is Status.ACTIVE
    status, _, missing = browser.get("/families/fam-nobody/card")
    assert status == 404 and "there is no family fam-nobody on this machine" in missing
    status, _, bad_id = browser.get(card("/memories/not-a-ulid"))
    assert status == 400 and "memory id" in bad_id
    status, headers, _ = browser.request("PUT", card())
    assert status == 405 and headers["Allow"] == "GET"
    status, _, _ = browser.get(card("/nowhere"))
    assert status == 404


def test_a_group_forget_previews_its_count_and_list_and_refuses_a_stale_token(browser: Browser, rt: Runtime) -> None:
    chores = [remember(browser, f"Chore rota week {n}.", f"Chore {n}") for n in range(2)]
    remember(browser, "Bins go out on Thursday.")
    status, _, preview = browser.get(card("/forget-group?topic=chore+rota"))
    assert status == 200 and "It affects 2 memories:" in preview and all(c in preview for c in chores)
    token = re.search(r'name="preview_token" value="([0-9a-f]+)"', preview)
    assert token is not None
    form = {
        "csrf": csrf_of(preview),
        "topic": "chore rota",
        "entity": "",
        "type": "",
        "expected_count": "2",
        "preview_token": token.group(1),
        "member": "lucia",
        "reason": "",
    }
    assert browser.api("POST", f"/families/{FAMILY}/memories/{chores[0]}/forget", {"member_id": "marco"})[0] == 200
    third = remember(browser, "Chore rota week 9.", "Chore 9")
    status, _, stale = browser.post(card("/forget-group"), form)
    assert status == 409 and "Nothing was forgotten: the preview of everything on the topic" in stale
    assert third in stale and chores[0] not in stale  # the group as it is now, to confirm again
    assert rt.catalog.get_rows(FAMILY, [third])[third].status is Status.ACTIVE
    status, headers, _ = browser.post(card("/forget-group"), {**form, "preview_token": csrf_and_token(stale)[1]})
    assert status == 303 and headers["Location"].endswith("done=group&count=2")
    assert {r.status for r in rt.catalog.get_rows(FAMILY, [chores[1], third]).values()} == {Status.RETRACTED}
    status, _, nothing = browser.get(card("/forget-group"))
    assert status == 400 and "name exactly one group" in nothing


def csrf_and_token(page: str) -> tuple[str, str]:
    token = re.search(r'name="preview_token" value="([0-9a-f]+)"', page)
    assert token is not None
    return csrf_of(page), token.group(1)


def test_memory_text_is_escaped_and_invisible_characters_are_shown() -> None:
    hostile = "<script>alert(1)</script> \"q\" 's' & \u202eevil\u2066 \ud800"
    shown = text(hostile)
    assert (
        "<script>" not in shown and "&lt;script&gt;" in shown and "&quot;q&quot;" in shown and "&#x27;s&#x27;" in shown
    )
    assert "[U+202E]" in shown and "[U+2066]" in shown and "[U+D800]" in shown and "\u202e" not in shown
    assert field(hostile) == field(hostile).replace("<", "")  # no raw markup in a field's value
    assert "\u202e" in field(hostile) and "\ufffd" in field(hostile)  # the exact text, except what cannot be sent
    filled = render("message.html", heading=hostile, message="m", details="<b>x</b>", back_url="/", back_label="b")
    assert "<b>" not in filled and "&lt;b&gt;x&lt;/b&gt;" in filled  # a plain str is escaped, never inserted


def test_only_the_cards_paths_are_the_cards_and_only_this_machine_may_open_them(rt: Runtime) -> None:
    assert owns(f"/families/{FAMILY}/card") and owns(f"/families/{FAMILY}/card/memories/x") and owns("/card/assets/x")
    assert not owns(f"/families/{FAMILY}/memories") and not owns(f"/families/{FAMILY}/cards")
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("::ffff:127.0.0.1")
    assert not is_loopback("192.168.1.20") and not is_loopback("not an address")
    assert cookies_of(f"a=1; {COOKIE}=abc; {COOKIE}=later") == {"a": "1", COOKIE: "abc"}
    assets = CardWeb(rt).handle(WebRequest("GET", "/card/assets/card.js"))
    assert assets.status == 200 and assets.content_type.startswith("text/javascript")
    assert CardWeb(rt).handle(WebRequest("GET", "/card/assets/../../etc/passwd")).status == 404


def test_family_memory_card_opens_one_familys_card_and_names_the_families_when_it_has_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from family_memory.app.cli import build_parser, main
    from family_memory.app.commands.serve import card_url

    args = build_parser().parse_args(["card", "--family", FAMILY, "--no-browser", "--port", "0"])
    assert (args.family, args.no_browser, args.port, args.host) == (FAMILY, True, 0, "127.0.0.1")
    runtime = local_runtime(tmp_path / "home", FixedClock(FRIDAY_MORNING), embedder="hashed")
    save_family(runtime.store)
    assert main(["--home", str(tmp_path / "home"), "card", "--family", "fam-nobody", "--no-browser"]) == 1
    assert "there is no family fam-nobody on this machine (families: fam-rivera)" in capsys.readouterr().err
    server = serve(runtime, "127.0.0.1", 0)
    try:
        assert card_url(server, FAMILY) == f"http://127.0.0.1:{server.server_address[1]}/families/{FAMILY}/card"
    finally:
        server.server_close()
