"""What the read tools must not serve once the family has asked to forget it.

A forget retracts memories and records a rule, ``suppressions/{rule_id}.json``, whose
``fingerprints`` hold the forgotten words in comparison form (``normalise_for_match``):
the about, summary and body of each forgotten memory and of the versions it replaced,
and every quote of their evidence. Files and transcripts stay on file for the record
(nothing is deleted), so the tools hide them instead:

- ``ForgottenWords.covers(text)``: the text holds forgotten words. The excerpt tool
  shows such a turn as ``FORGOTTEN`` instead of its words, and ``read_memory`` does the
  same for such an evidence quote. A fingerprint counts when it is distinctive: at
  least ``MIN_CONTAINED`` characters (found anywhere in the text, as formation matches
  restatements), or at least two words (found as whole words). A lone short word (a
  name such as "Maya" that a forgotten memory was about) does not hide every turn that
  mentions it.
- ``replaced_by_forgotten(store, family_id, memory)``: the memory's line of corrections
  (``superseded_by``, followed to its end) ends in a retracted memory, so an earlier
  version of a forgotten claim is as closed to the agent as the claim itself.

Rules are read fresh on every call (a forget must take effect on the next one); an
unreadable rule fails the call (InvalidInputError naming the file) rather than let
forgotten words through.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from family_memory.domain.layout import SUPPRESSIONS, memory_path
from family_memory.domain.memory import Memory, Status
from family_memory.domain.okf import parse_json, parse_memory
from family_memory.domain.suppression import Suppression
from family_memory.domain.text import normalise_for_match
from family_memory.ports.store import Store

#: What a hidden turn or quote shows instead of its words.
FORGOTTEN = "[forgotten at the family's request]"
#: A fingerprint this long is distinctive wherever it appears (formation's own threshold).
MIN_CONTAINED = 12
#: How far ``replaced_by_forgotten`` follows a line of corrections (a real line is a few versions).
MAX_CHAIN = 50


class ForgottenWords:
    """The active forget rules' fingerprints of one family, ready to match text."""

    def __init__(self, fingerprints: Iterable[str]) -> None:
        anywhere: set[str] = set()
        whole_words: set[str] = set()
        for form in fingerprints:
            if len(form) >= MIN_CONTAINED:
                anywhere.add(form)
            elif len(form.split()) >= 2:
                whole_words.add(form)
        self._anywhere = sorted(anywhere)
        self._whole_words = [re.compile(rf"(?<!\w){re.escape(form)}(?!\w)") for form in sorted(whole_words)]

    @classmethod
    def load(cls, store: Store, family_id: str) -> ForgottenWords:
        fingerprints: list[str] = []
        for path in store.list(family_id, SUPPRESSIONS):
            if not path.endswith(".json") or path.count("/") != 1:
                continue
            rule = parse_json(Suppression, store.read(family_id, path).data, path)
            if rule.active:
                fingerprints += rule.fingerprints
        return cls(fingerprints)

    def __bool__(self) -> bool:
        return bool(self._anywhere or self._whole_words)

    def covers(self, text: str) -> bool:
        """Whether ``text`` holds words the family asked to forget."""
        if not self:
            return False
        form = normalise_for_match(text)
        return any(print_ in form for print_ in self._anywhere) or any(p.search(form) for p in self._whole_words)


def replaced_by_forgotten(store: Store, family_id: str, memory: Memory) -> bool:
    """Whether ``memory`` was replaced, version after version (``superseded_by``), by one
    the family then asked to forget (a retracted memory ends the line)."""
    seen = {memory.id}
    successor = memory.superseded_by
    while successor is not None and successor not in seen and len(seen) < MAX_CHAIN:
        seen.add(successor)
        path = memory_path(successor)
        document = store.read_optional(family_id, path)
        if document is None:
            return False
        current = parse_memory(document.data, path)
        if current.status is Status.RETRACTED:
            return True
        successor = current.superseded_by
    return False
