from __future__ import annotations

import pytest

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import (
    MAX_ID_LENGTH,
    check_change_id,
    check_family_id,
    check_member_id,
    check_memory_id,
    check_session_id,
    new_ulid,
)
from family_memory.domain.layout import check_relpath, memory_id_from_path, memory_path
from family_memory.domain.refs import ConvRef, MemoryRef

HOSTILE_IDS = [
    "",
    "..",
    "a/b",
    "../etc",
    "fam\x00x",
    "fam.rivera",
    " fam",
    "fam ",
    "-fam",
    "é",
    "a" * 65,
    "fam%2F..",
    "fam\n",
]


@pytest.mark.parametrize("value", HOSTILE_IDS)
def test_family_id_rejects_anything_that_could_escape_its_folder(value: str) -> None:
    with pytest.raises(InvalidInputError):
        check_family_id(value)


def test_family_id_accepts_plain_tokens() -> None:
    assert check_family_id("fam-rivera_2") == "fam-rivera_2"


@pytest.mark.parametrize("value", ["FAM-RIVERA", "Fam-rivera", "fam-Rivera", "A", "fam_RIVERA-2"])
def test_family_ids_are_lower_case_so_two_families_never_share_a_folder(value: str) -> None:
    # On macOS and Windows fam-rivera and FAM-RIVERA would be one folder and one index file.
    with pytest.raises(InvalidInputError, match=f"family ids are lower case: '{value}' is not allowed"):
        check_family_id(value)
    with pytest.raises(InvalidInputError, match="family ids are lower case"):
        MemoryRef.parse(f"memory://{value}/01K6N1R0A0B0C0D0E0F0G0H010")
    with pytest.raises(InvalidInputError, match="family ids are lower case"):
        ConvRef.parse(f"conv://{value}/sess-1#turn=1")
    # Other ids keep their case rules: only the family names a folder of its own.
    assert check_session_id("Sess-A1") == "Sess-A1"


def test_id_errors_say_what_is_wrong() -> None:
    with pytest.raises(InvalidInputError, match="session id '../x' is not allowed"):
        check_session_id("../x")
    with pytest.raises(InvalidInputError, match="65 characters long; the limit is 64"):
        check_family_id("a" * 65)
    with pytest.raises(InvalidInputError, match="must be a string"):
        check_family_id(42)


@pytest.mark.parametrize("name", ["con", "CON", "Nul", "prn", "aux", "com1", "COM9", "lpt0", "lpt9"])
@pytest.mark.parametrize("check", [check_family_id, check_session_id, check_change_id])
def test_a_windows_device_name_is_refused_as_an_id_that_names_a_file_or_folder(name: str, check: object) -> None:
    # On Windows families/con/ and sessions/nul.json are devices, not a folder and a file.
    value = name.lower() if check is check_family_id else name
    with pytest.raises(InvalidInputError, match="a name Windows reserves for a device"):
        check(value)  # type: ignore[operator]


def test_names_that_only_start_like_a_device_are_ids() -> None:
    for value in ("console", "con1", "com10", "lpt", "nul-family", "aux_2"):
        assert check_family_id(value) == value and check_session_id(value) == value
    # A member id names no file: a member may be called Con.
    assert check_member_id("con") == "con"


@pytest.mark.parametrize("check", [check_family_id, check_session_id, check_member_id, check_change_id])
def test_every_id_that_becomes_a_key_has_the_one_length_limit(check: object) -> None:
    assert MAX_ID_LENGTH == 64
    assert check("a" * MAX_ID_LENGTH) == "a" * MAX_ID_LENGTH  # type: ignore[operator]
    with pytest.raises(InvalidInputError, match=f"{MAX_ID_LENGTH + 1} characters long; the limit is {MAX_ID_LENGTH}"):
        check("a" * (MAX_ID_LENGTH + 1))  # type: ignore[operator]


@pytest.mark.parametrize(
    "value", ["01K6N1R0A0B0C0D0E0F0G0H01", "01K6N1R0A0B0C0D0E0F0G0H0IO", "81K6N1R0A0B0C0D0E0F0G0H010", "x" * 26]
)
def test_memory_id_must_be_a_ulid(value: str) -> None:
    with pytest.raises(InvalidInputError, match="not a ULID"):
        check_memory_id(value)


def test_new_ulids_are_valid_and_ordered() -> None:
    ids = [new_ulid() for _ in range(50)]
    assert all(check_memory_id(i) for i in ids)
    assert len(set(ids)) == 50


def test_memory_ref_round_trips() -> None:
    ref = MemoryRef.parse("memory://fam-rivera/01K6N1R0A0B0C0D0E0F0G0H010")
    assert ref == MemoryRef("fam-rivera", "01K6N1R0A0B0C0D0E0F0G0H010")
    assert str(ref) == "memory://fam-rivera/01K6N1R0A0B0C0D0E0F0G0H010"


@pytest.mark.parametrize(
    "text",
    [
        "memory://fam-rivera/01K6N1R0A0B0C0D0E0F0G0H010/",
        "memory://fam-rivera/../01K6N1R0A0B0C0D0E0F0G0H010",
        "memory://fam-rivera/01K6N1R0A0B0C0D0E0F0G0H010#x",
        "memory://fam%2Frivera/01K6N1R0A0B0C0D0E0F0G0H010",
        "memory://{family}/01K6N1R0A0B0C0D0E0F0G0H010",
        "MEMORY://fam-rivera/01K6N1R0A0B0C0D0E0F0G0H010",
        " memory://fam-rivera/01K6N1R0A0B0C0D0E0F0G0H010",
        "memory://fam-rivera/not-a-ulid",
        "conv://fam-rivera/sess#turn=1",
    ],
)
def test_memory_ref_parsing_is_strict(text: str) -> None:
    with pytest.raises(InvalidInputError):
        MemoryRef.parse(text)


def test_conv_ref_parses_ranges_and_single_turns() -> None:
    ref = ConvRef.parse("conv://fam-rivera/sess-0814#turn=12-14")
    assert (ref.family_id, ref.session_id, list(ref.turns)) == ("fam-rivera", "sess-0814", [12, 13, 14])
    assert str(ref) == "conv://fam-rivera/sess-0814#turn=12-14"
    single = ConvRef.parse("conv://fam-rivera/sess-0814#turn=3")
    assert list(single.turns) == [3] and str(single) == "conv://fam-rivera/sess-0814#turn=3"


@pytest.mark.parametrize(
    "text",
    [
        "conv://fam-rivera/sess-0814#turn=14-12",
        "conv://fam-rivera/sess-0814#turn=0",
        "conv://fam-rivera/sess-0814#turn=012",
        "conv://fam-rivera/sess-0814",
        "conv://fam-rivera/sess-0814#turn=1-2-3",
        "conv://fam-rivera/../sess#turn=1",
        "conv://{family}/{session}#turn=12-14",
        "conv://fam-rivera/sess-0814#turn=12-14&x=1",
        "conv://fam-rivera/sess-0814#turn=1234567",
    ],
)
def test_conv_ref_parsing_is_strict(text: str) -> None:
    with pytest.raises(InvalidInputError):
        ConvRef.parse(text)


def test_refs_refuse_non_strings_and_huge_input() -> None:
    with pytest.raises(InvalidInputError):
        MemoryRef.parse(None)
    with pytest.raises(InvalidInputError, match="limit is 300"):
        ConvRef.parse("conv://" + "a" * 400)


@pytest.mark.parametrize(
    "path", ["../x", "/abs", "memories/../../x", "a//b", ".hidden", "a/.b", "a\x00b", "a/b/c/d/e/f", ""]
)
def test_relative_paths_cannot_leave_the_family_folder(path: str) -> None:
    with pytest.raises(InvalidInputError):
        check_relpath(path)


def test_memory_paths_and_back() -> None:
    memory_id = new_ulid()
    assert memory_id_from_path(memory_path(memory_id)) == memory_id
    assert memory_id_from_path(f"memories/{memory_id}.evidence.jsonl") is None
    assert memory_id_from_path("memories/index.md") is None
