"""The memory card in a real browser: headless Chromium (Debian's package) driven by Playwright.

A family with more memories than one page (a conversation's, and ones typed on the card)
opens its card on ``family-memory serve``; scrolls to the second page; opens a memory's
evidence and the conversation it came from; corrects one and sees the new wording and its
history; forgets one and sees it gone from the list and from the next ``/context``
answer; previews a group forget (the count and the list), has a stale preview refused,
and confirms; and finds a hostile memory text shown as text. Keyboard use and labels are
checked on the way.

The browser is the system's (``CHROMIUM``, default ``/usr/bin/chromium``, which ``.ci/run``
installs); Playwright never downloads one. Without a chromium binary the test is skipped
and says why. ``FAMILY_MEMORY_CARD_SCREENSHOTS=docs`` saves the screenshots the README
shows (docs/card-list.png, docs/card-evidence.png, docs/card-phone.png); otherwise they go
to the test's temporary folder.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from family_memory.app.bootstrap import build_local
from family_memory.app.local_server import serve
from family_memory.app.settings import load_settings
from family_memory.domain.clock import SystemClock
from family_memory.families import save_family
from formation_helpers import FAMILY, family, session_json

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
HAVE_CHROMIUM = Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)
HOSTILE = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> \'single\' "double" \u202eevil\u202c & co'
)

#: What a family tells the card over time (newest last): enough for a second page.
HOUSEHOLD = [
    ("Marco takes the recycling out on Thursday nights.", "Recycling day", "fact"),
    ("Grandma Rosa visits on the first Sunday of each month.", "Grandma Rosa's visits", "fact"),
    ("The car's MOT is due in March.", "The car's MOT", "fact"),
    ("Lucía prefers window seats on flights.", "Lucía's seat on flights", "preference"),
    ("Marco is learning Portuguese on Tuesday evenings.", "Marco's Portuguese class", "fact"),
    ("The spare key is with the neighbours at number 12.", "The spare key", "fact"),
    ("Maya's piano lesson is on Wednesdays at 5pm.", "Maya's piano lessons", "fact"),
    ("Keep weekday dinners under 30 minutes.", "Weekday dinners", "directive"),
    ("The dentist is Dr. Okafor on Mill Road.", "The family dentist", "fact"),
    ("Lucía takes her coffee black.", "Lucía's coffee", "preference"),
    ("Bin day moved to Friday for the holidays.", "Bin day over the holidays", "fact"),
    ("The Wi-Fi password is on the fridge, not to be repeated.", "Where the Wi-Fi password is", "fact"),
    ("Marco's mother is called Inês.", "Marco's mother", "relationship"),
    ("Maya is saving up for a bike.", "Maya's savings", "fact"),
    ("Film night is Saturday; Maya chooses this month.", "Film night", "fact"),
    ("Remind Lucía to water the tomatoes in the evening.", "Watering the tomatoes", "directive"),
    ("The boiler service is booked every October.", "The boiler service", "fact"),
    ("Marco prefers tea to coffee after lunch.", "Marco's afternoon drink", "preference"),
    ("The family walks the dog, Pepa, before breakfast.", "Pepa's morning walk", "fact"),
]

pytestmark = [
    pytest.mark.skipif(not HAVE_CHROMIUM, reason=f"no chromium binary at {CHROMIUM} (apt-get install chromium)"),
    pytest.mark.allow_hosts(["127.0.0.1"]),
]


class Api:
    """The JSON API of the same server, as the assistant's backend calls it."""

    def __init__(self, url: str) -> None:
        self.host, port = url.removeprefix("http://").split(":")
        self.port = int(port)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            data = body if isinstance(body, bytes) else (None if body is None else json.dumps(body).encode())
            connection.request(method, path, body=data, headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()

    def add(self, summary: str, about: str, kind: str = "fact", **extra: Any) -> str:
        body = {"member_id": "lucia", "type": kind, "about": about, "summary": summary, **extra}
        status, answer = self.call("POST", f"/families/{FAMILY}/memories", body)
        assert status == 201, answer
        return str(answer["memory"]["id"])

    def context(self, message: str) -> str:
        status, answer = self.call("POST", f"/families/{FAMILY}/context", {"message": message})
        assert status == 200, answer
        return str(answer["block"])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Api]]:
    home = tmp_path_factory.mktemp("card-home")
    runtime = build_local(load_settings({}, home=str(home), backend="local", embedder="minilm"), SystemClock())
    save_family(runtime.store, family())
    server = serve(runtime, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    api = Api(server.url)
    # A conversation first (its memories are the oldest: the second page), then the card's own.
    started = datetime.now(UTC) - timedelta(days=3)
    talk = [
        ("user", "lucia", "My daughter Maya is allergic to peanuts."),
        ("assistant", None, "Noted, no peanuts for Maya."),
        ("user", "lucia", "Maya loves swimming."),
        ("user", "lucia", "We love Thai food."),
    ]
    status, answer = api.call("POST", f"/families/{FAMILY}/sessions", session_json(talk, started_at=started))
    assert status == 201 and answer["formation"] == "done", answer
    for n in range(3):
        api.add(f"Chore rota: week {n + 1} is the bins.", f"Chore rota week {n + 1}")
    for summary, about, kind in HOUSEHOLD:
        api.add(summary, about, kind)
    try:
        yield server.url, api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield launched
        finally:
            launched.close()


def shots() -> Path | None:
    where = os.environ.get("FAMILY_MEMORY_CARD_SCREENSHOTS")
    return Path(where) if where else None


def test_a_family_walks_through_its_memory_card_in_a_browser(
    served: tuple[str, Api], browser: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    url, api = served
    folder = shots() or tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    card = f"{url}/families/{FAMILY}/card"

    # --- open the card: newest first, one page -------------------------------------------
    page.goto(card)
    expect(page).to_have_title("Memory card · memory card")
    items = page.locator("#memories > li")
    expect(items).to_have_count(20)
    # Every control a person can reach has a label.
    unlabelled = page.evaluate(
        "() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]"
        ".filter(e => e.labels.length === 0).map(e => e.name)"
    )
    assert unlabelled == []
    expect(items.first.locator(".summary")).to_have_text(HOUSEHOLD[-1][0])  # the last one told is the newest
    page.screenshot(path=str(folder / "card-list.png"))

    # --- the hostile text is text ------------------------------------------------------------
    api.add(HOSTILE, "A hostile note")
    page.reload()
    hostile = items.first.locator(".summary")
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("main script, main img, #memories b").count() == 0
    assert "<script>window.__pwned=1</script><img src=x" in hostile.inner_text()
    assert "[U+202E]evil[U+202C]" in hostile.inner_text()  # the bidi controls are shown, not obeyed

    # --- the second page: keyboard on "more", then scrolling loads it ---------------------------
    _, listing = api.call("GET", f"/families/{FAMILY}/memories?limit=200&status=active")
    total = len(listing["memories"])
    assert 20 < total < 40  # the conversation's memories and the card's: more than one page, less than two
    more = page.locator("a[data-more]")
    more.focus()
    page.keyboard.press("Enter")
    expect(items).to_have_count(total)
    expect(page.locator("#loaded")).to_have_text(f"{total - 20} more memories loaded.")
    focused = page.evaluate("() => document.activeElement.closest('li').id")
    assert focused == page.locator("#memories > li").nth(20).get_attribute("id")  # focus moved to the first new one
    expect(page.locator("#pager")).to_contain_text("That is everything.")
    expect(page.locator("#memories")).to_contain_text("Maya is allergic to peanuts.")

    # --- evidence: the quote, its date, the conversation it came from ---------------------------
    page.get_by_role("link", name="Maya is allergic to peanuts.").click()
    expect(page.locator("h1")).to_have_text("Maya is allergic to peanuts.")
    evidence = page.locator(".evidence-item").first
    expect(evidence.locator(".quote")).to_contain_text("allergic to peanuts")
    expect(evidence.locator(".meta")).to_contain_text("from a conversation, said by Lucía Rivera")
    expect(evidence.locator("time")).to_have_attribute("datetime", re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"))
    expect(evidence.locator(".turns li.cited")).to_contain_text("My daughter Maya is allergic to peanuts.")
    expect(evidence.locator(".turns")).to_contain_text("Noted, no peanuts for Maya.")  # the turn after, for context
    expect(page.locator(".facts")).to_contain_text("health: kept out of the brief")  # sensitive, said discreetly
    page.screenshot(path=str(folder / "card-evidence.png"), full_page=True)

    # --- edit: the new wording becomes a new memory that replaces the old -----------------------
    page.goto(card + "?type=preference")
    page.get_by_role("link", name="Maya loves swimming.").click()
    page.get_by_label("What it should say").fill("Maya loves swimming on Saturdays.")
    page.locator("form.edit").get_by_label("Changed by").select_option("lucia")
    page.get_by_role("button", name="Save the new wording").click()
    expect(page.locator("h1")).to_have_text("Maya loves swimming on Saturdays.")
    expect(page.locator(".notice")).to_contain_text("The new wording replaces the old one")
    expect(page.locator(".lineage-note")).to_have_text("It replaced “Maya loves swimming.”.")
    expect(page.locator(".versions li")).to_have_count(2)
    expect(page.locator(".versions li").first).to_contain_text("replaced")
    page.locator(".versions li").first.get_by_role("link").click()
    expect(page.locator(".lineage-note")).to_have_text("It was replaced by “Maya loves swimming on Saturdays.”.")
    page.goto(card + "?type=preference")  # the preferences fit one page: the whole list is here
    expect(page.locator("#memories")).to_contain_text("Maya loves swimming on Saturdays.")
    expect(page.locator("#memories")).not_to_contain_text("Maya loves swimming.")

    # --- forget: gone from the list and from the next /context answer ---------------------------
    assert "Thai food" in api.context("What should we cook tonight? Thai food again?")
    page.goto(card + "?type=preference")
    page.get_by_role("link", name="The family loves Thai food.").click()
    page.get_by_label("Why (optional, a few words)").fill("we went off it")
    page.get_by_role("button", name="Forget this memory").click()
    expect(page.locator(".notice")).to_contain_text("Forgotten: “The family loves Thai food.”")
    page.goto(card + "?type=preference")
    expect(page.locator("#memories")).to_contain_text("Maya loves swimming on Saturdays.")
    expect(page.locator("#memories")).not_to_contain_text("The family loves Thai food.")
    assert "Thai food" not in api.context("What should we cook tonight? Thai food again?")

    # --- forget a group: the preview's count and list; a stale preview is refused --------------
    page.get_by_label("Everything on the topic").fill("chore rota")
    page.locator("form", has=page.get_by_label("Everything on the topic")).get_by_role("button").click()
    expect(page.locator("h1")).to_contain_text("Forget everything on the topic 'chore rota'?")
    expect(page.locator("#group-count")).to_have_text("It affects 3 memories:")
    expect(page.locator(".memories > li")).to_have_count(3)
    # Meanwhile the group changes to another list of the same size: one forgotten, one added.
    _, first_page = api.call("GET", f"/families/{FAMILY}/memories?limit=200&status=active")
    week1 = next(r["id"] for r in first_page["memories"] if r["summary"].startswith("Chore rota: week 1"))
    status, _ = api.call("POST", f"/families/{FAMILY}/memories/{week1}/forget", {"member_id": "marco"})
    assert status == 200
    api.add("Chore rota: week 4 is the dishes.", "Chore rota week 4")
    page.get_by_role("button", name="Forget these 3 memories").click()
    expect(page.locator("#problem")).to_contain_text("Nothing was forgotten: the preview of everything on the topic")
    expect(page.locator("#problem")).to_contain_text("is out of date")
    expect(page.locator("#problem")).to_be_focused()
    expect(page.locator(".memories > li")).to_contain_text(["week 4", "week 3", "week 2"])  # the group as it is now
    page.get_by_role("button", name="Forget these 3 memories").click()
    expect(page.locator(".notice")).to_have_text("Forgot 3 memories. The assistant will not learn them again.")
    _, after = api.call("GET", f"/families/{FAMILY}/memories?limit=200&status=active")
    assert not [r for r in after["memories"] if "Chore rota" in r["summary"]]
    expect(page.locator("#memories")).not_to_contain_text("Chore rota")

    # --- a phone's width: one readable column ---------------------------------------------------
    phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.goto(card)
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390  # nothing wider than the screen
    phone.screenshot(path=str(folder / "card-phone.png"))
    phone.close()

    assert errors == []
    page.close()
    print(f"\ncard browser walk-through: {time.monotonic() - started:.1f} s")
