"""The section-13 figures, computed from what the pipeline produced (``FamilyRun``).

Every formed memory is matched to the labels: the fact (or trap) whose
``match`` groups its summary and about satisfy, the most specific first, a
fact whose turns it cites winning a tie. A memory matching no label is
listed for review and counts against the "correct and cited" share. A memory
is *misleading* when its subject is a pronoun or not a real person, its
summary is a fragment (cut at an abbreviation, starting with a pronoun), its
date is wrong, a recurring fact is pinned to one day, it is a hard rule where
the label is not, or it is a trap.

Each figure keeps its numerator and denominator, so a family's share and the
whole set's are computed the same way and a reader can see what was counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from family_memory.brief.model import SECTION_ORDER
from family_memory.domain.memory import Sensitivity, Status, Strength
from family_memory.evaluation.dataset import EvalFamily, Fact, FactFinal, Trap, TrapKind, words
from family_memory.evaluation.runner import FamilyRun, MemoryView

#: Words that cannot start a whole claim: it would lean on a sentence the memory does not have.
_PRONOUNS = frozenset({"he", "she", "they", "it", "him", "her", "his", "hers", "their", "theirs", "them", "its"})
_PRONOUNS |= {"this", "that", "these", "those"}
_ABBREVIATIONS = re.compile(r"\b(?:dr|st|mr|mrs|ms|mt|ave|prof|vs|e\.g|i\.e)\.$", re.I)
_SAME_TEXT = 0.9


@dataclass(frozen=True)
class Target:
    op: str  # ">=", "<=", "=="
    value: float

    def met(self, value: float | None) -> bool:
        if value is None:
            return False
        if self.op == ">=":
            return value >= self.value - 1e-9
        if self.op == "<=":
            return value <= self.value + 1e-9
        return abs(value - self.value) < 1e-9

    def __str__(self) -> str:
        shown = f"{self.value:.0%}" if 0 < self.value < 1 else (f"{self.value:g}")
        return f"{self.op} {shown}"


@dataclass
class Figure:
    """One row of the table."""

    key: str
    label: str
    num: float
    den: float
    target: Target | None
    #: "share": num/den; "count": num; "max": num (den unused).
    kind: str = "share"
    note: str = ""

    @property
    def value(self) -> float | None:
        if self.kind == "share":
            return None if self.den == 0 else self.num / self.den
        return self.num

    @property
    def met(self) -> bool | None:
        """None when there is no target, or nothing was labelled to measure it on."""
        if self.target is None or self.value is None:
            return None
        return self.target.met(self.value)

    def shown(self) -> str:
        v = self.value
        if v is None:
            return "n/a (none labelled)"
        if self.kind == "share":
            return f"{v:.1%} ({int(self.num)}/{int(self.den)})"
        if self.kind == "ratio":
            return f"{v:.3f}"
        return f"{v:g}"


@dataclass(frozen=True)
class Assignment:
    fact: Fact | None = None
    trap: Trap | None = None

    @property
    def label(self) -> str:
        if self.fact is not None:
            return self.fact.id
        return f"trap {self.trap.id}" if self.trap is not None else "(no label)"


def assign(family: EvalFamily, view: MemoryView) -> Assignment:
    """The label a memory states: the best-scoring fact or trap (a trap only from its own session)."""
    text = view.text
    best: tuple[tuple[int, int, int], Assignment] | None = None
    for fact in family.spec.facts:
        score = fact.matcher().score(text)
        if score:
            rank = (score, int(view.cites([*fact.said, *fact.restated])), 1)
            if best is None or rank > best[0]:
                best = (rank, Assignment(fact=fact))
    sessions = view.sessions()
    for trap in family.spec.traps:
        if trap.at.session not in sessions:
            continue
        if trap.only_hard and view.memory.strength is not Strength.HARD:
            continue
        score = trap.matcher().score(text)
        if score:
            rank = (score, int(view.cites([trap.at])), 0)
            if best is None or rank > best[0]:
                best = (rank, Assignment(trap=trap))
    return best[1] if best is not None else Assignment()


def _known_names(family: EvalFamily) -> list[list[str]]:
    names: list[str] = []
    for m in family.spec.members:
        names += [m.name, m.name.split()[0], m.id] + ([m.address_as] if m.address_as else [])
    for p in family.spec.people:
        names += [p.name, *p.aliases]
    return [words(n) for n in names if words(n)]


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def fake_people(family: EvalFamily, view: MemoryView) -> list[str]:
    """Person or pet entities whose name is no real member, person or pet of the family
    (nor a member's relation, "Emi's mother"): a pronoun, a verb, a sentence-initial word."""
    known = _known_names(family)
    fake: list[str] = []
    for entity in view.entities:
        if entity.type.value not in ("person", "pet") or entity.member_id is not None:
            continue
        name = words(entity.name)
        if not name or not any(_contains(name, k) or _contains(k, name) for k in known):
            fake.append(entity.name)
    return fake


def misleading(family: EvalFamily, view: MemoryView, assignment: Assignment) -> list[str]:
    """Why a formed memory is unsupported or misleading ([] when it is not)."""
    memory = view.memory
    reasons: list[str] = []
    if assignment.trap is not None:
        reasons.append(f"trap ({assignment.trap.kind.value}): {assignment.trap.text}")
    fake = fake_people(family, view)
    if fake:
        reasons.append(f"not a real person: {', '.join(fake)}")
    summary_words = words(memory.summary)
    if summary_words and summary_words[0] in _PRONOUNS:
        reasons.append("the summary starts with a pronoun")
    if _ABBREVIATIONS.search(memory.summary.strip()) or len(summary_words) < 3:
        reasons.append("the summary is a fragment")
    fact = assignment.fact
    if fact is not None:
        if fact.recurring and memory.valid_until is not None:
            reasons.append(f"a recurring fact pinned to one day (valid_until {memory.valid_until})")
        elif fact.recurring and re.search(r"\d{4}-\d{2}-\d{2}", memory.summary):
            reasons.append("a recurring fact pinned to one day in its summary")
        elif fact.valid_until != memory.valid_until:
            reasons.append(f"valid_until {memory.valid_until}, labelled {fact.valid_until}")
    if memory.strength is Strength.HARD and (fact is None or not fact.hard):
        reasons.append("a hard rule where the label is not one")
    return reasons


@dataclass
class MemoryReview:
    family_id: str
    memory_id: str
    summary: str
    label: str
    reasons: list[str]


@dataclass
class FamilyScore:
    """One family's counts: every figure is a sum of these across families."""

    family_id: str
    counts: dict[str, list[float]] = field(default_factory=dict)
    reviews: list[MemoryReview] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def add(self, key: str, num: float, den: float = 0) -> None:
        pair = self.counts.setdefault(key, [0, 0])
        pair[0] += num
        pair[1] += den


def _matching(run: FamilyRun, fact: Fact, statuses: Iterable[Status] | None = None) -> list[MemoryView]:
    matcher = fact.matcher()
    wanted = set(statuses) if statuses is not None else None
    return [m for m in run.memories.values() if (wanted is None or m.memory.status in wanted) and matcher.score(m.text)]


@dataclass
class Context:
    """What every figure of one family reads: the run, each memory's label, the brief's memories."""

    run: FamilyRun
    assignments: dict[str, Assignment]
    brief_ids: set[str]
    in_scope: Callable[[Fact], bool]
    out: FamilyScore

    @property
    def family(self) -> EvalFamily:
        return self.run.family

    def matching(self, fact: Fact, statuses: Iterable[Status] | None = None) -> list[MemoryView]:
        return _matching(self.run, fact, statuses)


def score_family(run: FamilyRun, *, in_scope: Callable[[Fact], bool]) -> FamilyScore:
    """Every count of one family (``in_scope``: the facts the scoped rows count)."""
    ctx = Context(
        run=run,
        assignments={mid: assign(run.family, view) for mid, view in run.memories.items()},
        brief_ids=set().union(*(brief.memory_ids() for brief in run.briefs.values())),
        in_scope=in_scope,
        out=FamilyScore(run.family.id),
    )
    for part in (
        _formed,
        _reachable,
        _duplicates,
        _forgetting,
        _corrections,
        _traps,
        _sensitive,
        _task_queries,
        _dated,
        _proposals,
    ):
        part(ctx)
    ctx.out.add("brief_tokens", run.brief_tokens)
    ctx.out.add("brief_unstable", int(not run.brief_stable))
    return ctx.out


def _formed(ctx: Context) -> None:
    """Formed memories: correct and cited; unsupported or misleading; the tagger; the type."""
    out = ctx.out
    for mid, view in ctx.run.memories.items():
        if not view.formed:
            continue
        a = ctx.assignments[mid]
        reasons = misleading(ctx.family, view, a)
        cited = a.fact is not None and view.cites([*a.fact.said, *a.fact.restated])
        correct = a.fact is not None and cited and not reasons
        out.add("correct", int(correct), 1)
        out.add("misleading", int(bool(reasons)), 1)
        if not correct:
            why = list(reasons)
            if a.fact is None and a.trap is None:
                why.append("matches no labelled fact (review)")
            elif a.fact is not None and not cited:
                why.append(f"does not cite the turns of {a.fact.id}")
            out.reviews.append(MemoryReview(ctx.family.id, mid, view.memory.summary, a.label, why))
        if a.fact is None:
            continue
        for tag in (Sensitivity.HEALTH, Sensitivity.FINANCES, Sensitivity.MINORS):
            predicted = view.memory.sensitivity is tag
            labelled = a.fact.sensitivity is tag
            out.add(f"tag_precision_{tag.value}", int(predicted and labelled), int(predicted))
            out.add(f"tag_recall_{tag.value}", int(predicted and labelled), int(labelled))
        if view.memory.sensitivity is not a.fact.sensitivity:
            tagged, labelled_as = view.memory.sensitivity.value, a.fact.sensitivity.value
            out.misses.append(f"tagged {tagged}, labelled {labelled_as}: {view.memory.summary}")
        out.add("kind_agrees", int(view.memory.type is a.fact.kind), 1)


def _reachable(ctx: Context) -> None:
    """Current facts in the brief or among search_memory's results for their probe."""
    out = ctx.out

    def reachable(fact: Fact, *, hard: bool = False) -> bool:
        for view in ctx.matching(fact, [Status.ACTIVE]):
            if hard and view.memory.strength is not Strength.HARD:
                continue
            if view.id in ctx.brief_ids or view.id in ctx.run.probes.get(fact.id, []):
                return True
        return False

    for fact in ctx.family.spec.facts:
        if fact.final is not FactFinal.ACTIVE:
            continue
        ok = reachable(fact)
        out.add("reachable", int(ok), 1)
        if ctx.in_scope(fact):
            out.add("reachable_in_scope", int(ok), 1)
        if not ok:
            out.misses.append(f"not reachable: {fact.id}: {fact.text}")
        if fact.hard:
            ok_hard = reachable(fact, hard=True)
            out.add("hard_reachable", int(ok_hard), 1)
            if ctx.in_scope(fact):
                out.add("hard_reachable_in_scope", int(ok_hard), 1)
            if not ok_hard:
                out.misses.append(f"hard constraint not reachable as hard: {fact.id}: {fact.text}")


def _duplicates(ctx: Context) -> None:
    """Active memories stating one fact (or, unlabelled, near-equal summaries), a cluster each."""
    active = ctx.run.active()
    by_fact: dict[str, int] = {}
    loose: list[MemoryView] = []
    for view in active:
        fact = ctx.assignments[view.id].fact
        if fact is not None:
            by_fact[fact.id] = by_fact.get(fact.id, 0) + 1
        else:
            loose.append(view)
    clusters = sum(1 for n in by_fact.values() if n > 1)
    ctx.out.misses += [f"duplicate: {n} active memories state {f}" for f, n in by_fact.items() if n > 1]
    seen: list[str] = []
    for view in loose:
        text = " ".join(words(view.memory.summary))
        if any(SequenceMatcher(None, text, other).ratio() >= _SAME_TEXT for other in seen):
            clusters += 1
            ctx.out.misses.append(f"duplicate (unlabelled): {view.memory.summary}")
        seen.append(text)
    ctx.out.add("duplicates", clusters, len(active))
    ctx.out.add("duplicates_worst_family", clusters, len(active))


_END_STATUS = {
    FactFinal.ACTIVE: Status.ACTIVE,
    FactFinal.EXPIRED: Status.EXPIRED,
    FactFinal.SUPERSEDED: Status.SUPERSEDED,
    FactFinal.RETRACTED: Status.RETRACTED,
}


def _forgetting(ctx: Context) -> None:
    """Forgotten facts stay forgotten; a different fact about the same subject is still learned."""
    family, out = ctx.family, ctx.out
    for fact_id, session_id in family.forgotten_after().items():
        if not ctx.run.forgot.get(fact_id):
            out.add("forgets_without_target", 1)
            continue
        order = family.session_order(session_id)
        back = [
            v
            for v in ctx.matching(family.fact(fact_id))
            if v.memory.status is not Status.RETRACTED
            and (v.memory.status is Status.ACTIVE or any(family.session_order(s) > order for s in v.sessions()))
        ]
        out.add("learned_back", int(bool(back)), 1)
        if back:
            out.misses.append(f"forgotten {fact_id} came back: {back[0].memory.summary}")
    for fact in family.spec.facts:
        if fact.after_forget_of is not None:
            # Learned, and in its labelled end state: a dated fact that has since expired counts.
            ok = bool(ctx.matching(fact, [_END_STATUS.get(fact.final, Status.ACTIVE)]))
            out.add("after_forget_learned", int(ok), 1)
            if not ok:
                out.misses.append(f"a different fact about a forgotten subject was not learned: {fact.id}")


def _corrections(ctx: Context) -> None:
    """A later statement or a card edit: the new value active, the old one superseded."""
    for fact in ctx.family.spec.facts:
        if fact.corrects is None or fact.final is not FactFinal.ACTIVE:
            continue
        old = ctx.family.fact(fact.corrects)
        new_active = ctx.matching(fact, [Status.ACTIVE])
        new_ids = {n.id for n in new_active}
        old_views = [v for v in ctx.matching(old) if v.id not in new_ids]
        old_active = [v for v in old_views if v.memory.status is Status.ACTIVE]
        old_superseded = [v for v in old_views if v.memory.status is Status.SUPERSEDED]
        ok = bool(new_active) and not old_active and (not old_views or bool(old_superseded))
        ctx.out.add("corrections", int(ok), 1)
        if not ok:
            what = (
                "no active memory states it"
                if not new_active
                else ("the old value is still active" if old_active else "the old value was not superseded")
            )
            ctx.out.misses.append(f"correction {fact.id} (replaces {old.id}): {what}")


def _traps(ctx: Context) -> None:
    trapped = {
        trap.id
        for mid, view in ctx.run.memories.items()
        if view.formed and (trap := ctx.assignments[mid].trap) is not None
    }
    for trap in ctx.family.spec.traps:
        hit = trap.id in trapped
        ctx.out.add("traps", int(hit), 1)
        if trap.kind is TrapKind.FORGOTTEN:
            ctx.out.add("learned_back_group", int(hit), 1)
        if hit:
            ctx.out.misses.append(f"trap became a memory: {trap.id} ({trap.kind.value}): {trap.text}")


def _sensitive(ctx: Context) -> None:
    """Sensitive facts never in the brief (a line stating one, or its memory), never in a household lookup."""
    run, out = ctx.run, ctx.out
    lines = [line for brief in run.briefs.values() for s in SECTION_ORDER for line in brief.lines(s)]
    leaked: set[str] = set()
    for fact in ctx.family.spec.facts:
        if fact.sensitivity is Sensitivity.NORMAL:
            continue
        ids = {v.id for v in ctx.matching(fact)}
        if ids & ctx.brief_ids or any(fact.matcher().score(line.text) for line in lines):
            leaked.add(fact.id)
    for mid in ctx.brief_ids:
        in_brief = run.memories.get(mid)
        if in_brief is not None and in_brief.memory.sensitivity is not Sensitivity.NORMAL:
            leaked.add(f"memory {mid}")
    out.add("sensitive_in_brief", len(leaked))
    out.misses += [f"sensitive in the brief: {x}" for x in sorted(leaked)]
    household: set[str] = set()
    for ids_found in [*run.household_probes.values(), *run.household_queries.values()]:
        for mid in ids_found:
            label = ctx.assignments[mid].fact
            if run.memories[mid].memory.sensitivity is not Sensitivity.NORMAL or (
                label is not None and label.sensitivity is not Sensitivity.NORMAL
            ):
                household.add(mid)
    out.add("sensitive_in_household", len(household))
    out.misses += [f"sensitive in a household lookup: {run.memories[m].memory.summary}" for m in sorted(household)]


def _task_queries(ctx: Context) -> None:
    """Each query's lookup (or the brief) carries every needed fact, and no superseded value."""
    run, family, out = ctx.run, ctx.family, ctx.out
    for query in family.spec.queries:
        looked_up = set(run.queries.get(query.id, []))
        carried = looked_up | ctx.brief_ids
        missing = [
            need
            for need in query.needs
            if not any(v.id in carried for v in ctx.matching(family.fact(need), [Status.ACTIVE]))
        ]
        out.add("task_queries", int(not missing), 1)
        if missing:
            out.misses.append(f"query {query.id!r} misses {', '.join(missing)}")
        stale = [
            f.id
            for f in family.spec.facts
            if f.final is FactFinal.SUPERSEDED and any(v.id in looked_up for v in ctx.matching(f))
        ]
        out.add("superseded_in_lookup", len(stale))
        out.misses += [f"query {query.id!r} carries the superseded {s}" for s in stale]


def _dated(ctx: Context) -> None:
    """Dated facts: a memory with the labelled valid_until, active or expired as labelled."""
    expected = {f: _END_STATUS[f] for f in (FactFinal.ACTIVE, FactFinal.EXPIRED)}
    for fact in ctx.family.spec.facts:
        if fact.valid_until is None or fact.final not in expected:
            continue
        views = ctx.matching(fact)
        ok = any(v.memory.valid_until == fact.valid_until and v.memory.status is expected[fact.final] for v in views)
        ctx.out.add("dated", int(ok), 1)
        if ctx.in_scope(fact):
            ctx.out.add("dated_in_scope", int(ok), 1)
        if not ok:
            got = ", ".join(f"{v.memory.valid_until} {v.memory.status.value}" for v in views) or "no memory"
            ctx.out.misses.append(f"dated {fact.id}: labelled {fact.valid_until} {fact.final.value}, got {got}")


def _proposals(ctx: Context) -> None:
    """What the extractor offered and validation refused, and what reconciliation decided."""
    for doc in ctx.run.documents:
        for entry in doc.candidates:
            ctx.out.add("proposals_accepted", int(entry.accepted), 1)
            if not entry.accepted:
                proposed = entry.proposed if isinstance(entry.proposed, dict) else {}
                rules = "; ".join(f"{r.rule}: {r.message}" for r in entry.reasons)
                summary = str(proposed.get("summary", ""))[:100]
                ctx.out.misses.append(f"refused in {doc.session_id} ({rules}): {summary}")
        if doc.reconciliation is not None:
            for outcome in doc.reconciliation.outcomes:
                ctx.out.add(f"outcome_{outcome.kind.value}", 1)


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    target: Target | None
    kind: str = "share"


#: The table, in the issue's order. Keys are what the ratchet file names.
ROWS: tuple[Row, ...] = (
    Row("correct", "formed memories that state a labelled fact and cite it", Target(">=", 0.95)),
    Row("misleading", "formed memories unsupported or misleading", Target("<=", 0.01)),
    Row("reachable", "current facts in the brief or found by search_memory", Target(">=", 0.90)),
    Row("reachable_in_scope", "  ... within the offline extractor's scope", Target(">=", 0.90)),
    Row("hard_reachable", "hard constraints reachable and stored as hard", Target("==", 1.0)),
    Row("hard_reachable_in_scope", "  ... within the offline extractor's scope", Target("==", 1.0)),
    Row("duplicates", "duplicate clusters / active memories", Target("<=", 0.02)),
    Row("duplicates_worst_family", "  ... in the worst family", Target("<=", 0.02), "worst"),
    Row("learned_back", "forgotten facts learned back (restated in other words)", Target("==", 0), "count"),
    Row("learned_back_group", "facts under a group forget learned back", Target("==", 0), "count"),
    Row("after_forget_learned", "a different fact about a forgotten subject learned", Target("==", 1.0)),
    Row("corrections", "corrections honoured (new active, old superseded)", Target("==", 1.0)),
    Row("traps", "traps that became memories", Target("==", 0), "count"),
    Row("sensitive_in_brief", "sensitive facts in the brief", Target("==", 0), "count"),
    Row("sensitive_in_household", "sensitive memories in household lookups", Target("==", 0), "count"),
    Row("task_queries", "task-shaped queries carrying every needed fact", Target(">=", 0.95)),
    Row("superseded_in_lookup", "superseded values in a task query's lookup", Target("==", 0), "count"),
    Row("dated", "dated facts with the right valid_until and end state", Target("==", 1.0)),
    Row("dated_in_scope", "  ... within the offline extractor's scope", Target("==", 1.0)),
    Row("brief_tokens", "brief tokens, largest family", Target("<=", 2000), "max"),
    Row("brief_unstable", "families whose brief changed bytes on a recompile", Target("==", 0), "count"),
    Row("tag_precision_health", "sensitivity tagger precision: health", Target(">=", 0.95)),
    Row("tag_recall_health", "sensitivity tagger recall: health", Target(">=", 0.95)),
    Row("tag_precision_finances", "sensitivity tagger precision: finances", Target(">=", 0.95)),
    Row("tag_recall_finances", "sensitivity tagger recall: finances", Target(">=", 0.95)),
    Row("tag_precision_minors", "sensitivity tagger precision: minors", Target(">=", 0.95)),
    Row("tag_recall_minors", "sensitivity tagger recall: minors", Target(">=", 0.95)),
    Row("kind_agrees", "memory type agrees with the label (information)", None),
    Row("proposals_accepted", "proposals accepted by validation (information)", None),
    Row("forgets_without_target", "scripted forgets that found no memory (information)", None, "count"),
)


def figures(scores: list[FamilyScore]) -> list[Figure]:
    """The table's rows summed over families (``worst``: the worst family's share, ``max``: the largest)."""
    out: list[Figure] = []
    for row in ROWS:
        pairs = [s.counts.get(row.key, [0, 0]) for s in scores]
        if row.kind == "worst":
            shares = [(n / d if d else 0.0, n, d) for n, d in pairs]
            worst = max(shares, default=(0.0, 0, 0))
            out.append(Figure(row.key, row.label, worst[1], worst[2], row.target, "share"))
        elif row.kind == "max":
            out.append(Figure(row.key, row.label, max((n for n, _ in pairs), default=0), 0, row.target, "max"))
        elif row.kind == "count":
            out.append(Figure(row.key, row.label, sum(n for n, _ in pairs), 0, row.target, "count"))
        else:
            out.append(
                Figure(row.key, row.label, sum(n for n, _ in pairs), sum(d for _, d in pairs), row.target, "share")
            )
    return out
