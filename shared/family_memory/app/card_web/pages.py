"""The card's pages as HTML fragments: a list item, the evidence, the history, the forms.

Everything here is presentation: each function takes what a card service returned
(``card/views.py``, ``card/operations.py``) and writes markup through ``markup`` (memory
text escaped, templates from the package). No rule about memories lives here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from family_memory.app.card_web.markup import Html, field, join, path_url, render, text
from family_memory.card.views import Excerpt, Lineage, ShownEvidence
from family_memory.domain.clock import format_utc, zone
from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Authority, Memory, MemoryType, Sensitivity, Status, Strength
from family_memory.forgotten import FORGOTTEN
from family_memory.ports.catalog import CatalogRow
from family_memory.retrieval.age import age_in_words

#: How the card names each status, in the family's words.
STATUS_WORDS = {
    Status.ACTIVE: "current",
    Status.DORMANT: "dormant (not used lately)",
    Status.EXPIRED: "expired",
    Status.SUPERSEDED: "replaced",
    Status.RETRACTED: "forgotten",
}
#: How the card names each type.
TYPE_WORDS = {
    MemoryType.IDENTITY: "who someone is",
    MemoryType.DIRECTIVE: "standing instruction",
    MemoryType.PREFERENCE: "preference",
    MemoryType.FACT: "fact",
    MemoryType.CONSTRAINT: "constraint",
    MemoryType.RELATIONSHIP: "relationship",
}
_AUTHORITY_WORDS = {
    Authority.USER_EXPLICIT: "stated plainly by the family",
    Authority.USER_IMPLICIT: "said in passing by the family",
    Authority.INFERRED: "inferred from a conversation",
    Authority.SYSTEM: "made by the system",
}


@dataclass(frozen=True)
class PageContext:
    """What every page of one family needs: its settings, the names of its entities, the
    current time, and this browser's form token."""

    family_id: str
    family: FamilySettings
    names: Mapping[str, str]  # entity id -> name
    now: datetime
    csrf: str

    @property
    def zone(self) -> str:
        return self.family.time_zone

    def card_url(self, **query: str) -> str:
        return path_url("families", self.family_id, "card", query=query)

    def memory_url(self, memory_id: str, **query: str) -> str:
        return path_url("families", self.family_id, "card", "memories", memory_id, query=query)

    def group_url(self, **query: str) -> str:
        return path_url("families", self.family_id, "card", "forget-group", query=query)

    def member_name(self, member_id: str) -> str:
        """A member's name, for a member id (a role such as "assistant" stays as it is)."""
        member = self.family.member(member_id)
        return member.name if member is not None else member_id

    def local_date(self, instant: datetime) -> str:
        return instant.astimezone(zone(self.zone)).strftime("%-d %b %Y")

    def local_time(self, instant: datetime) -> str:
        return instant.astimezone(zone(self.zone)).strftime("%-d %b %Y, %H:%M")


def options(choices: Iterable[tuple[str, str]], selected: str) -> Html:
    """``<option>`` elements (value, label); the one whose value is ``selected`` is selected."""
    return join(
        [
            Html(f'<option value="{field(value)}"{" selected" if value == selected else ""}>{text(label)}</option>')
            for value, label in choices
        ]
    )


def member_options(ctx: PageContext, selected: str) -> Html:
    members = [(m.id, m.name) for m in ctx.family.members]
    return options(members, selected or (members[0][0] if members else ""))


def forget_fields(ctx: PageContext, prefix: str, typed: Mapping[str, str]) -> Html:
    """A forget form's reason and member fields (ids start ``prefix``), as the family typed them."""
    return render(
        "forget_fields.html",
        prefix=prefix,
        reason_value=field(typed.get("reason", "")),
        member_options=member_options(ctx, typed.get("member", "")),
    )


def applies_names(ctx: PageContext, entity_ids: Iterable[str]) -> list[str]:
    return [ctx.names.get(entity_id, "someone no longer on file") for entity_id in entity_ids]


def _tags(row: CatalogRow | Memory) -> Html:
    tags = []
    if row.strength is Strength.HARD:
        tags.append(Html('<span class="tag rule">hard rule</span>'))
    if row.pin:
        tags.append(Html('<span class="tag">always in the brief</span>'))
    if row.sensitivity is not Sensitivity.NORMAL:
        # Discreet: a small mark; the word is there for whoever looks (and for screen readers).
        label = f"sensitive: {row.sensitivity.value}"
        tags.append(Html(f'<span class="tag sensitive" title="{field(label)}">{text(label)}</span>'))
    if row.status is not Status.ACTIVE:
        tags.append(Html(f'<span class="tag status">{text(STATUS_WORDS[row.status])}</span>'))
    return join(tags, " ")


def item(ctx: PageContext, row: CatalogRow, *, link: bool = True) -> Html:
    """One claim of the list: its summary, what it concerns, how long it has been remembered."""
    names = applies_names(ctx, row.applies_to)
    applies = Html(" · for " + ", ".join(f"<bdi>{text(n)}</bdi>" for n in names)) if names else Html("")
    return render(
        "item.html",
        id=row.id,
        url=ctx.memory_url(row.id) if link else "#",
        summary=row.summary,
        about=row.about,
        applies=applies,
        kind=TYPE_WORDS[row.type],
        formed_iso=format_utc(row.formed_at),
        formed_date=ctx.local_date(row.formed_at),
        age=age_in_words(row.formed_at, ctx.now, ctx.zone),
        tags=_tags(row),
    )


def items(ctx: PageContext, rows: Iterable[CatalogRow]) -> Html:
    return join([item(ctx, row) for row in rows], "\n")


def more_link(url: str | None) -> Html:
    if url is None:
        return Html('<p class="end">That is everything.</p>')
    return Html(f'<a class="more button-like" href="{field(url)}" data-more>More memories</a>')


def fragment(ctx: PageContext, rows: list[CatalogRow], next_url: str | None) -> Html:
    """What "more" appends without reloading the page: the next items and the next link."""
    return Html(
        f"<ol data-items>{items(ctx, rows)}</ol><div data-pager>{more_link(next_url)}</div>"
        f'<p data-count="{len(rows)}"></p>'
    )


def _excerpt(ctx: PageContext, excerpt: Excerpt) -> Html:
    if not excerpt.turns:
        return Html(f'<p class="excerpt-missing">{text(excerpt.missing)}</p>')
    lines = []
    for turn in excerpt.turns:
        said = (
            Html(f'<span class="forgotten">{text(FORGOTTEN)}</span>')
            if turn.text is None
            else Html(f'<span class="said"><bdi>{text(turn.text)}</bdi></span>')
        )
        when = f" · {ctx.local_time(turn.at)}" if turn.at else ""
        speaker = ctx.member_name(turn.member_id) if turn.member_id else turn.role
        cited = ' class="cited"' if turn.cited else ""
        mark = '<span class="sr-only">(quoted) </span>' if turn.cited else ""
        lines.append(
            Html(f'<li{cited} value="{turn.n}"><span class="who">{mark}{text(speaker)}{text(when)}</span> {said}</li>')
        )
    started = f", started {ctx.local_date(excerpt.started_at)}" if excerpt.started_at else ""
    return Html(
        f'<details class="excerpt" open><summary>The conversation{text(started)}</summary>'
        f'<ol class="turns">{join(lines)}</ol></details>'
    )


def evidence(ctx: PageContext, shown: list[ShownEvidence]) -> Html:
    if not shown:
        return Html('<li class="evidence-item"><p>No evidence is on file for this memory.</p></li>')
    parts = []
    for record in shown:
        line = record.line
        if line.source == "conversation":
            who = ", ".join(ctx.member_name(name) for name in (line.speaker or "").split(", ") if name)
            source = f"from a conversation, said by {who}" if who else "from a conversation"
        elif line.source == "card":
            source = "typed on the memory card"
        else:
            source = "from another memory"
        stance = ""
        if line.stance != "supports":
            stance = f" · {line.stance}: {line.note}" if line.note else f" · {line.stance}"
        quote = (
            Html(f'<span class="forgotten">{text(FORGOTTEN)}</span>')
            if record.quote is None
            else Html(f"<bdi>{text(record.quote)}</bdi>")
        )
        parts.append(
            render(
                "evidence.html",
                quote=quote,
                source=source,
                recorded_iso=format_utc(line.recorded_at),
                recorded_date=ctx.local_date(line.recorded_at),
                stance=stance,
                excerpt=_excerpt(ctx, record.excerpt) if record.excerpt is not None else Html(""),
            )
        )
    return join(parts, "\n")


def versions(ctx: PageContext, lineage: Lineage) -> tuple[Html, Html]:
    """The history of the claim, oldest version first, and a line saying what replaced what."""
    steps = lineage.steps
    parts = []
    for step in steps:
        memory = step.memory
        here = memory.id == lineage.asked
        summary = Html(f"<bdi>{text(memory.summary)}</bdi>")
        shown = summary if here else Html(f'<a href="{field(ctx.memory_url(memory.id))}">{summary}</a>')
        label = " (this one)" if here else ""
        current = ' aria-current="true" class="here"' if here else ""
        parts.append(
            Html(
                f"<li{current}>{shown}"
                f'<span class="meta"> · {text(STATUS_WORDS[memory.status])}{text(label)} · since '
                f"{text(ctx.local_date(memory.formed_at))}</span></li>"
            )
        )
    index = next(i for i, s in enumerate(steps) if s.memory.id == lineage.asked)
    notes = []
    if index > 0:
        notes.append(Html(f"It replaced “<bdi>{text(steps[index - 1].memory.summary)}</bdi>”."))
    if index < len(steps) - 1:
        notes.append(Html(f"It was replaced by “<bdi>{text(steps[index + 1].memory.summary)}</bdi>”."))
    if not notes:
        notes.append(Html("It has not replaced another memory, and nothing has replaced it."))
    return Html(f'<p class="lineage-note">{join(notes, " ")}</p>'), join(parts, "\n")


def memory_facts(ctx: PageContext, memory: Memory) -> dict[str, object]:
    """The fields of the memory page's summary block."""
    names = applies_names(ctx, memory.applies_to)
    reinforced = ""
    if memory.reinforcement_count > 1:
        reinforced = (
            f"; heard again {memory.reinforcement_count - 1} times, last {ctx.local_date(memory.last_reinforced_at)}"
        )
    valid_until = (
        Html(f"<dt>Until</dt><dd>{text(memory.valid_until.strftime('%-d %b %Y'))}</dd>")
        if memory.valid_until
        else Html("")
    )
    sensitivity = (
        Html(f"<dt>Sensitive</dt><dd>{text(memory.sensitivity.value)}: kept out of the brief</dd>")
        if memory.sensitivity is not Sensitivity.NORMAL
        else Html("")
    )
    body = (
        Html(f'<p class="body"><bdi>{text(memory.body)}</bdi></p>')
        if memory.body and memory.body != memory.summary
        else Html("")
    )
    status_note = Html("")
    if memory.status is not Status.ACTIVE:
        status_note = Html(f'<p class="status-note">This memory is {text(STATUS_WORDS[memory.status])}.</p>')
    kind = TYPE_WORDS[memory.type] + (" (a hard rule)" if memory.strength is Strength.HARD else "")
    return {
        "summary": memory.summary,
        "status_note": status_note,
        "about": memory.about,
        "applies": Html(", ".join(f"<bdi>{text(n)}</bdi>" for n in names)) if names else "the whole family",
        "kind": kind,
        "formed_iso": format_utc(memory.formed_at),
        "formed_date": ctx.local_date(memory.formed_at),
        "age": age_in_words(memory.formed_at, ctx.now, ctx.zone),
        "reinforced": reinforced,
        "authority": _AUTHORITY_WORDS[memory.authority],
        "valid_until": valid_until,
        "sensitivity": sensitivity,
        "body": body,
    }


def problem(message: str) -> Html:
    """An error shown beside the form it concerns; screen readers announce it."""
    return Html(f'<div class="problem" role="alert" tabindex="-1" id="problem"><p>{text(message)}</p></div>')


def notice(message: str) -> Html:
    return Html(f'<div class="notice" role="status"><p>{text(message)}</p></div>')
