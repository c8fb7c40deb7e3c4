"""A family's settings file (``family.json``): read, create and change it through the store.

Every change is a conditional replace on the revision read (retried a few
times when another writer got there first), so two writers never lose each
other's change: intake adding a new speaker while a member sets the time zone
keeps both. The service functions here are what the ``family-memory family``
command group (and later the card's settings routes) call:

- ``set_time_zone``: the family's IANA zone (relative dates, expiry and the
  nightly dream follow it);
- ``add_member``: a new member (id, name, how to address them, adult or child);
- ``set_member``: change a member's name, address-as or role (never the id);
- ``add_speakers``: intake's part: members for user-turn speakers the family
  does not know yet (never removes or renames anyone);
- ``mark_children``: record that members are children (a parent said "my
  daughter Maya"); a role is only ever raised to child here, never lowered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from family_memory.domain.errors import ConflictError, InvalidInputError, NotFoundError, StaleRevisionError
from family_memory.domain.family import FamilySettings, Member, MemberRole
from family_memory.domain.ids import check_member_id
from family_memory.domain.layout import FAMILY_SETTINGS
from family_memory.domain.okf import parse_json, serialise_json, validate
from family_memory.ports.store import Store

#: Conditional writes tried before giving up on a family.json that keeps changing under us.
UPDATE_ATTEMPTS = 5
#: family.json holds at most this many members (FamilySettings).
MAX_MEMBERS = 50


def load_family(store: Store, family_id: str) -> FamilySettings:
    """The family's settings; a family that has none yet gets the defaults (UTC, no members)."""
    document = store.read_optional(family_id, FAMILY_SETTINGS)
    if document is None:
        return FamilySettings(family_id=family_id)
    return parse_json(FamilySettings, document.data, f"{family_id}/{FAMILY_SETTINGS}")


def save_family(store: Store, settings: FamilySettings) -> None:
    store.put(settings.family_id, FAMILY_SETTINGS, serialise_json(settings))


def show_family(store: Store, family_id: str) -> FamilySettings:
    """The family's settings as stored; NotFoundError when the family has no ``family.json``."""
    document = store.read_optional(family_id, FAMILY_SETTINGS)
    if document is None:
        raise NotFoundError(f"family {family_id} does not exist (it has no {FAMILY_SETTINGS})")
    return parse_json(FamilySettings, document.data, f"{family_id}/{FAMILY_SETTINGS}")


def update_family(
    store: Store, family_id: str, change: Callable[[FamilySettings], FamilySettings | None]
) -> FamilySettings:
    """Apply ``change`` to the stored settings with a conditional replace, retrying on a lost race.

    ``change`` returns the new settings, or None when there is nothing to change
    (then nothing is written). NotFoundError when the family has no ``family.json``."""
    for _ in range(UPDATE_ATTEMPTS):
        document = store.read_optional(family_id, FAMILY_SETTINGS)
        if document is None:
            raise NotFoundError(f"family {family_id} does not exist (it has no {FAMILY_SETTINGS})")
        current = parse_json(FamilySettings, document.data, f"{family_id}/{FAMILY_SETTINGS}")
        changed = change(current)
        if changed is None or changed == current:
            return current
        settings = validate(FamilySettings, changed.model_dump(mode="python"), FAMILY_SETTINGS)
        try:
            store.replace(family_id, FAMILY_SETTINGS, serialise_json(settings), expected_tag=document.tag)
        except StaleRevisionError:
            continue  # someone else changed it meanwhile: read again and redo the change on theirs
        return settings
    raise ConflictError(f"{family_id}/{FAMILY_SETTINGS} kept changing during the update; try again")


def _with_members(settings: FamilySettings, members: list[Member]) -> FamilySettings:
    return settings.model_copy(update={"members": members})


def set_time_zone(store: Store, family_id: str, time_zone: str) -> FamilySettings:
    """Set the family's IANA time zone (InvalidInputError naming ``time_zone`` for an unknown one)."""
    checked = validate(FamilySettings, {"family_id": family_id, "time_zone": time_zone}, FAMILY_SETTINGS).time_zone
    return update_family(store, family_id, lambda s: s.model_copy(update={"time_zone": checked}))


def _member(data: dict[str, object]) -> Member:
    return validate(Member, {k: v for k, v in data.items() if v is not None}, "member")


def add_member(
    store: Store,
    family_id: str,
    member_id: str,
    name: str,
    *,
    address_as: str | None = None,
    role: MemberRole = MemberRole.ADULT,
) -> FamilySettings:
    """Add a member. ConflictError when the id is taken; InvalidInputError for a bad id or name."""
    check_member_id(member_id)
    member = _member({"id": member_id, "name": name, "address_as": address_as, "role": role})

    def change(settings: FamilySettings) -> FamilySettings:
        if settings.member(member_id) is not None:
            raise ConflictError(f"member {member_id!r} is already in family {family_id}; use set-member to change it")
        if len(settings.members) >= MAX_MEMBERS:
            raise InvalidInputError(f"members: family {family_id} already has {MAX_MEMBERS} members, the limit")
        return _with_members(settings, [*settings.members, member])

    return update_family(store, family_id, change)


def set_member(
    store: Store,
    family_id: str,
    member_id: str,
    *,
    name: str | None = None,
    address_as: str | None = None,
    role: MemberRole | None = None,
) -> FamilySettings:
    """Change a member's name, address-as or role (the id stays). NotFoundError for an unknown member."""
    check_member_id(member_id)
    if name is None and address_as is None and role is None:
        raise InvalidInputError("set-member: give at least one of name, address_as, role")

    def change(settings: FamilySettings) -> FamilySettings:
        old = settings.member(member_id)
        if old is None:
            known = ", ".join(m.id for m in settings.members) or "none yet"
            raise NotFoundError(f"member {member_id!r} is not in family {family_id} (members: {known})")
        data = old.model_dump(mode="python")
        data.update({k: v for k, v in {"name": name, "address_as": address_as, "role": role}.items() if v is not None})
        new = _member(data)
        return _with_members(settings, [new if m.id == member_id else m for m in settings.members])

    return update_family(store, family_id, change)


def add_speakers(store: Store, family_id: str, member_ids: Iterable[str]) -> list[str]:
    """Add a member (named by the id) for each speaker the family does not know; the ids added.

    Nobody is removed or renamed. Beyond the members limit the rest are left out
    (the session is still stored; a member can be added by hand)."""
    wanted = list(dict.fromkeys(member_ids))
    added: list[str] = []

    def change(settings: FamilySettings) -> FamilySettings | None:
        added.clear()
        members = list(settings.members)
        for member_id in wanted:
            if settings.member(member_id) is None and len(members) < MAX_MEMBERS:
                members.append(Member(id=member_id, name=member_id))
                added.append(member_id)
        return _with_members(settings, members) if added else None

    update_family(store, family_id, change)
    return added


def mark_children(store: Store, family_id: str, member_ids: Iterable[str]) -> list[str]:
    """Record that these members are children (role ``child``); the ids whose role changed."""
    wanted = set(member_ids)
    changed: list[str] = []

    def change(settings: FamilySettings) -> FamilySettings | None:
        changed.clear()
        members = []
        for member in settings.members:
            if member.id in wanted and member.role is not MemberRole.CHILD:
                member = member.model_copy(update={"role": MemberRole.CHILD})
                changed.append(member.id)
            members.append(member)
        return _with_members(settings, members) if changed else None

    if wanted:
        update_family(store, family_id, change)
    return changed
