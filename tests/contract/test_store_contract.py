"""One contract, two stores: a local directory and S3 (under moto)."""

from __future__ import annotations

import pytest

from conftest import Adapters
from family_memory.domain.errors import AlreadyExistsError, InvalidInputError, NotFoundError, StaleRevisionError

FAMILY = "fam-rivera"


def test_create_then_read_returns_bytes_and_tag(adapters: Adapters) -> None:
    store = adapters.store
    tag = store.create(FAMILY, "memories/a.md", b"one")
    document = store.read(FAMILY, "memories/a.md")
    assert document.data == b"one" and document.tag == tag


def test_create_is_conditional_on_absence(adapters: Adapters) -> None:
    store = adapters.store
    store.create(FAMILY, "memories/a.md", b"one")
    with pytest.raises(AlreadyExistsError):
        store.create(FAMILY, "memories/a.md", b"two")
    assert store.read(FAMILY, "memories/a.md").data == b"one"


def test_replace_is_conditional_on_the_tag_read(adapters: Adapters) -> None:
    store = adapters.store
    first = store.create(FAMILY, "memories/a.md", b"one")
    second = store.replace(FAMILY, "memories/a.md", b"two", expected_tag=first)
    assert second != first
    with pytest.raises(StaleRevisionError):
        store.replace(FAMILY, "memories/a.md", b"three", expected_tag=first)
    assert store.read(FAMILY, "memories/a.md").data == b"two"


def test_replace_of_a_missing_document_is_stale(adapters: Adapters) -> None:
    with pytest.raises(StaleRevisionError):
        adapters.store.replace(FAMILY, "memories/gone.md", b"x", expected_tag="whatever")


def test_lost_races_raise_the_cores_errors_not_vendor_ones(adapters: Adapters) -> None:
    store = adapters.store
    tag = store.create(FAMILY, "memories/a.md", b"one")
    store.replace(FAMILY, "memories/a.md", b"two", expected_tag=tag)
    try:
        store.replace(FAMILY, "memories/a.md", b"three", expected_tag=tag)
    except Exception as exc:
        assert type(exc).__module__ == "family_memory.domain.errors"
    else:
        pytest.fail("a stale replace succeeded")


def test_reading_a_missing_document_is_not_found(adapters: Adapters) -> None:
    with pytest.raises(NotFoundError):
        adapters.store.read(FAMILY, "memories/none.md")
    assert adapters.store.read_optional(FAMILY, "memories/none.md") is None


def test_conditional_fetch_skips_unchanged_documents(adapters: Adapters) -> None:
    store = adapters.store
    tag = store.put(FAMILY, "brief.json", b"{}")
    assert store.read_if_changed(FAMILY, "brief.json", tag) is None
    new_tag = store.put(FAMILY, "brief.json", b'{"a": 1}')
    changed = store.read_if_changed(FAMILY, "brief.json", tag)
    assert changed is not None and changed.data == b'{"a": 1}' and changed.tag == new_tag


def test_evidence_sidecar_is_rewritten_without_touching_the_claim(adapters: Adapters) -> None:
    store = adapters.store
    claim_tag = store.create(FAMILY, "memories/m.md", b"claim")
    ledger_tag = store.create(FAMILY, "memories/m.evidence.jsonl", b'{"a":1}\n')
    store.replace(FAMILY, "memories/m.evidence.jsonl", b'{"a":1}\n{"b":2}\n', expected_tag=ledger_tag)
    assert store.read(FAMILY, "memories/m.md").tag == claim_tag


def test_listing_is_scoped_to_the_family_and_prefix(adapters: Adapters) -> None:
    store = adapters.store
    for path in ["memories/b.md", "memories/a.md", "changes/c.json", "family.json"]:
        store.create(FAMILY, path, b"x")
    store.create("fam-other", "memories/z.md", b"x")
    assert list(store.list(FAMILY, "memories/")) == ["memories/a.md", "memories/b.md"]
    assert list(store.list(FAMILY)) == ["changes/c.json", "family.json", "memories/a.md", "memories/b.md"]
    assert list(store.list("fam-other", "memories/")) == ["memories/z.md"]
    assert list(store.families()) == ["fam-other", FAMILY]


def test_one_family_cannot_read_anothers_document(adapters: Adapters) -> None:
    adapters.store.create("fam-other", "memories/secret.md", b"secret")
    with pytest.raises(NotFoundError):
        adapters.store.read(FAMILY, "memories/secret.md")


@pytest.mark.parametrize(
    ("family", "path"),
    [("../fam-other", "memories/a.md"), (FAMILY, "../fam-other/memories/a.md"), (FAMILY, "/etc/passwd"), ("", "x.md")],
)
def test_ids_and_paths_are_validated_before_they_become_keys(adapters: Adapters, family: str, path: str) -> None:
    with pytest.raises(InvalidInputError):
        adapters.store.create(family, path, b"x")
    with pytest.raises(InvalidInputError):
        adapters.store.read(family, path)
