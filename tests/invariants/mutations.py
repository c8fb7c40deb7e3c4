"""Mutation check of the invariant tests: break one clause, run its guards, expect a failure.

    /tmp/venv/bin/python tests/invariants/mutations.py            # every mutation
    /tmp/venv/bin/python tests/invariants/mutations.py --list     # names and clauses
    /tmp/venv/bin/python tests/invariants/mutations.py 4.fence-token 8.dream-utc

This is a command, not a test (pytest does not collect it). Each mutation
copies the worktree (without ``.git`` and caches) into a temporary folder,
replaces exact snippets of production code there, runs the tests named as
the clause's guards in that copy, and reports ``caught`` when at least one of
them fails and ``SURVIVED`` when all pass. The worktree itself is never
touched, so an interrupted run cannot leave a mutation behind.

A snippet must occur exactly once where it is looked for: a mutation whose
code has moved on is reported as ``STALE`` instead of passing silently. An
edit may name the function or class it lives in (``where``, a qualified name
such as ``S3Store._put``): the snippet is then looked for inside that
definition only, so a short snippet is enough. When the named file no longer
holds it (a module renamed or split), the edit is looked for in every module
under ``shared/`` and ``functions/``, by its ``where`` when it has one, and
applied where it occurs once; ``--check`` reports it as ``MOVED`` with the
new path, to update, without failing. So a refactor that moves code breaks
no mutation wholesale; only one that changes the mutated lines does. The exit
status is 0 only when every mutation was caught. docs/invariants.md records
the results and which invariant clause each mutation breaks.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_IGNORED = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache")


@dataclass(frozen=True)
class Edit:
    path: str
    old: str
    new: str
    #: The qualified name of the function or class holding the snippet ("S3Store._put"), or "".
    where: str = ""


@dataclass(frozen=True)
class Mutation:
    name: str
    clause: str
    edits: tuple[Edit, ...]
    guards: tuple[str, ...]


def m(name: str, clause: str, edits: list[tuple[str, ...]], guards: list[str]) -> Mutation:
    return Mutation(name, clause, tuple(Edit(*e) for e in edits), tuple(guards))


# Paths, shortened.
STORE_DIR = "shared/family_memory/adapters/local/directory_store.py"
STORE_S3 = "shared/family_memory/adapters/aws/s3_store.py"
CAT_SQL = "shared/family_memory/adapters/local/sqlite_catalog.py"
CAT_DDB = "shared/family_memory/adapters/aws/dynamo_catalog.py"
CAT_PORT = "shared/family_memory/ports/catalog.py"
IDX_EMB = "shared/family_memory/adapters/local/embedded_index.py"
IDX_OS = "shared/family_memory/adapters/aws/opensearch_index.py"
IDS = "shared/family_memory/domain/ids.py"
LAYOUT = "shared/family_memory/domain/layout.py"
PROTOCOL = "shared/family_memory/writes/protocol.py"
VALIDATION = "shared/family_memory/formation/validation.py"
RECONCILE = "shared/family_memory/formation/reconcile.py"
DECISIONS = "shared/family_memory/formation/decisions.py"
INTAKE = "shared/family_memory/formation/intake.py"
SERVICE = "shared/family_memory/formation/service.py"
CARD = "shared/family_memory/card/operations.py"
CHANGE_SETS = "shared/family_memory/domain/changes.py"
FORGET_RULES = "shared/family_memory/forgotten.py"
SUPPORT = "shared/family_memory/formation/support.py"
CONDITIONS = "shared/family_memory/formation/conditions.py"
T_CONDITIONS = "tests/unit/test_support_conditions.py"
RULES = "shared/family_memory/lifecycle/rules.py"
DREAM = "shared/family_memory/lifecycle/dream.py"
WEIGHTS = "shared/family_memory/brief/weights.py"
COMPILE = "shared/family_memory/brief/compile.py"
RENDER = "shared/family_memory/brief/render.py"
LOAD = "shared/family_memory/brief/load.py"
PATCH = "shared/family_memory/brief/patch.py"
BRIEF_MODEL = "shared/family_memory/brief/model.py"
SENSITIVITY = "shared/family_memory/formation/sensitivity.py"
BOOTSTRAP = "shared/family_memory/app/bootstrap.py"
LOOKUP = "shared/family_memory/retrieval/lookup.py"
MUST_KNOW = "shared/family_memory/retrieval/must_know.py"
TOOLS = "shared/family_memory/retrieval/tools.py"
API_SESSIONS = "shared/family_memory/app/routes/sessions.py"
API_AGENT = "shared/family_memory/app/routes/agent.py"
MCP = "shared/family_memory/app/mcp_server.py"
EVAL_REPORT = "shared/family_memory/evaluation/report.py"
EVAL_CLI = "shared/family_memory/app/commands/evaluate.py"
EXTRACTOR = "shared/family_memory/adapters/aws/bedrock_extractor.py"
CARD_MARKUP = "shared/family_memory/app/card_web/markup.py"
CARD_WEB = "shared/family_memory/app/card_web/app.py"

T_STORE = "tests/contract/test_store_contract.py"
T_CATALOG = "tests/contract/test_catalog_contract.py"
T_INDEX = "tests/contract/test_index_contract.py"
T_OS = "tests/unit/test_opensearch_index.py"
T_IDS = "tests/unit/test_ids_and_refs.py"
T_PROTOCOL = "tests/contract/test_write_protocol.py"
T_VALIDATION = "tests/unit/test_candidate_validation.py"
T_RECONCILER = "tests/unit/test_reconciler.py"
T_DECISIONS = "tests/unit/test_reconcile_decisions.py"
T_INTAKE = "tests/unit/test_session_intake.py"
T_CARD = "tests/unit/test_card_operations.py"
T_RULES = "tests/unit/test_dream_rules.py"
T_DREAM = "tests/unit/test_dream_pass.py"
T_COMPILE = "tests/unit/test_brief_compile.py"
T_PROPS = "tests/unit/test_brief_properties.py"
T_PROPS_FULL = f"{T_PROPS}::test_five_thousand_long_unicode_memories_fill_every_budget_without_exceeding_it"
T_LOADPATCH = "tests/unit/test_brief_load_patch.py"
T_MEMBERS = "tests/unit/test_brief_members.py"
T_TAGGER = "tests/unit/test_sensitivity_tagger.py"
T_LOOKUP = "tests/integration/test_turn_lookup.py"
T_API = "tests/unit/test_api_routes.py"
T_CLIENT = "tests/unit/test_client.py"
T_MCP = "tests/integration/test_mcp_server.py"
T_TOOLS = "tests/integration/test_read_tools.py"
T_BEDROCK = "tests/integration/test_bedrock_extractor.py"
T_INV = "tests/invariants"
T_CARD_WEB = "tests/unit/test_card_web.py"
T_CARD_BROWSER = "tests/integration/test_card_browser.py"


MUTATIONS: list[Mutation] = [
    # --- 1. One family never sees another's data ------------------------------------------
    m(
        "1.directory-store-shared-folder",
        "1: the local store scopes every path by the family id",
        [
            (
                STORE_DIR,
                "return self._families / check_family_id(family_id)",
                'return self._families / (check_family_id(family_id) and "all")',
            )
        ],
        [T_STORE, T_INV, T_API],
    ),
    m(
        "1.s3-key-without-family",
        "1: the S3 store scopes every key by the family id",
        [
            (
                STORE_S3,
                'return f"{FAMILIES_PREFIX}{check_family_id(family_id)}/{check_relpath(path)}"',
                "return f\"{FAMILIES_PREFIX}{check_family_id(family_id) and 'all'}/{check_relpath(path)}\"",
            )
        ],
        [T_STORE, T_INV],
    ),
    m(
        "1.sqlite-catalog-get-rows-any-family",
        "1: the SQLite catalog's batch get is scoped by family",
        [
            (
                CAT_SQL,
                'f"SELECT row_json FROM memories WHERE family_id = ? AND memory_id IN ({marks})"',
                'f"SELECT row_json FROM memories WHERE (family_id = ? OR 1) AND memory_id IN ({marks})"',
            )
        ],
        [T_CATALOG, T_INV],
    ),
    m(
        "1.dynamo-catalog-one-partition",
        "1: the DynamoDB catalog keys every item by the family's partition",
        [
            (
                CAT_DDB,
                'return f"FAM#{check_family_id(family_id)}"',
                "return f\"FAM#{check_family_id(family_id) and 'all'}\"",
            )
        ],
        [T_CATALOG, T_INV],
    ),
    m(
        "1.embedded-index-no-family-filter",
        "1: the embedded index searches only the family's documents (its own file and a family_id filter)",
        [
            (
                IDX_EMB,
                'return self.root / f"{check_family_id(family_id)}.sqlite3"',
                "return self.root / f\"{check_family_id(family_id) and 'all'}.sqlite3\"",
            ),
            (
                IDX_EMB,
                '"terms_json, length FROM docs WHERE family_id = ? ORDER BY rowid"',
                '"terms_json, length FROM docs WHERE family_id = ? OR 1 ORDER BY rowid"',
            ),
        ],
        [T_INDEX, T_INV],
    ),
    m(
        "1.embedded-index-shared-file-only",
        "1: the embedded index keeps each family in its own file (the first of its two layers)",
        [
            (
                IDX_EMB,
                'return self.root / f"{check_family_id(family_id)}.sqlite3"',
                "return self.root / f\"{check_family_id(family_id) and 'all'}.sqlite3\"",
            )
        ],
        [T_INDEX, T_INV],
    ),
    m(
        "1.opensearch-no-family-term",
        "1: every OpenSearch query carries the family term",
        [
            (
                IDX_OS,
                'clauses: list[dict[str, Any]] = [{"term": {"family_id": check_family_id(family_id)}}]',
                "clauses: list[dict[str, Any]] = []",
            )
        ],
        [T_OS],
    ),
    m(
        "1.opensearch-keeps-foreign-hits",
        "1: OpenSearch hits of another family are dropped even if the engine returned them",
        [
            (
                IDX_OS,
                'if source.get("family_id") != family_id:  # the filter makes this impossible; checked anyway',
                "if False:",
            )
        ],
        [T_OS],
    ),
    m(
        "1.read-tools-follow-foreign-refs",
        "1: the read tools open only the conversation's own family",
        [(TOOLS, "if ref_family != self.family_id:", "if False:")],
        [T_TOOLS],
    ),
    m(
        "1.session-applies-foreign-change-set",
        "1: a write session refuses a change set of another family",
        [(PROTOCOL, "if change_set.family_id != self.family_id:", "if False:")],
        [T_PROTOCOL],
    ),
    m(
        "1.family-id-allows-slash",
        "1: ids from outside are validated before they become keys or paths",
        [
            (
                IDS,
                'if "\\x00" in value or "/" in value or ".." in value or not _TOKEN.fullmatch(value):',
                'if "\\x00" in value:',
            )
        ],
        [T_IDS, T_STORE],
    ),
    m(
        "1.relpath-allows-dots",
        "1: a path inside a family folder cannot climb out of it",
        [
            (
                LAYOUT,
                '_SEGMENT = r"[A-Za-z0-9_][A-Za-z0-9_-]*(?:\\.[A-Za-z0-9_-]+)*"',
                '_SEGMENT = r"[A-Za-z0-9_.][A-Za-z0-9_.-]*"',
            )
        ],
        [T_IDS, T_STORE],
    ),
    m(
        "1.intake-ignores-route-family",
        "1: a session posted for one family cannot be stored under another",
        [(INTAKE, "if family_id is not None and family_id != transcript.family_id:", "if False:")],
        [T_INTAKE],
    ),
    m(
        "1.api-session-ignores-path-family",
        "1: a session posted to one family's API path cannot be stored under another",
        [
            (
                API_SESSIONS,
                "ended = end_session(runtime, data, family_id=family_id, supplied=supplied, strict=False)",
                "ended = end_session(runtime, data, supplied=supplied, strict=False)",
            )
        ],
        [T_API],
    ),
    m(
        "1.supplied-candidates-ignore-route-family",
        "1: candidates supplied for one family cannot land in another",
        [(SERVICE, "if family_id is not None and family_id != transcript.family_id:", "if False:")],
        [T_INV],
    ),
    m(
        "1.catalog-lease-family-unchecked",
        "1/4: a lease fences its own family's writes only (the shared check)",
        [(CAT_PORT, "if lease.family_id != check_family_id(family_id):", "if check_family_id(family_id) is None:")],
        [T_CATALOG],
    ),
    m(
        "1.catalog-delete-with-another-familys-lease",
        "1/4: a lease for one family cannot delete another family's rows (the gap found here, both catalogs)",
        [
            (
                CAT_SQL,
                "        check_lease_family(lease, family_id)\n        ids = [check_memory_id(i) for i in memory_ids]\n",
                "        ids = [check_memory_id(i) for i in memory_ids]\n",
            ),
            (CAT_DDB, "        check_lease_family(lease, family_id)\n        keys =", "        keys ="),
        ],
        [T_CATALOG],
    ),
    m(
        "1.sqlite-catalog-unvalidated-family",
        "1: ids from outside are validated before they become catalog keys",
        [
            (
                CAT_SQL,
                "        check_family_id(family_id)\n        wanted = ",
                "        wanted = ",
                "SQLiteCatalog.get_rows",
            )
        ],
        [T_CATALOG],
    ),
    # --- 2. A claim that cannot be traced does not become a memory ----------------------------
    m(
        "2.turns-exist-unchecked",
        "2: cited turns exist",
        [(VALIDATION, "if item.last > count:", "if False:")],
        [T_VALIDATION],
    ),
    m(
        "2.quote-not-checked",
        "2: the quote appears in a cited turn",
        [(VALIDATION, "found = [t for t in turns if quote and quote in self._turn_forms[t.n]]", "found = list(turns)")],
        [T_VALIDATION],
    ),
    m(
        "2.quote-not-normalised",
        "2: ... after whitespace and case normalisation",
        [(VALIDATION, "return normalise_for_match(text).strip(_QUOTE_TRIM)", "return text")],
        [T_VALIDATION],
    ),
    m(
        "2.person-wrote-unchecked",
        "2: a fact about a person cites a turn that person wrote",
        [
            (
                VALIDATION,
                "        if member in writers:\n            return []",
                "        if True:\n            return []",
            )
        ],
        [T_VALIDATION],
    ),
    m(
        "2.cites-user-turn-unchecked",
        "2: hard rules and explicit statements cite a user turn",
        [(VALIDATION, "if not any(t.role is Role.USER for turns in cited for t in turns):", "if False:")],
        [T_VALIDATION],
    ),
    m(
        "2.tool-quote-supports-hard-rule",
        "2: nothing from a tool or assistant turn becomes a hard rule",
        [(VALIDATION, "if found and not any(t.role is Role.USER for t in found):", "if False:")],
        [T_VALIDATION],
    ),
    m(
        "2.hard-rule-said-in-passing-unchecked",
        "2: a hard rule needs a user turn whatever authority and type the extractor gave it",
        [(VALIDATION, "        if candidate.strength is Strength.HARD:\n", "        if False:\n")],
        [T_VALIDATION, T_INV],
    ),
    m(
        "2.session-cap-off-by-one",
        "2: a per-session cap holds",
        [(VALIDATION, "if position >= limits.max_new:", "if position > limits.max_new:")],
        [T_VALIDATION],
    ),
    m(
        "2.inference-bar-lowered",
        "2: a higher bar for inferences",
        [
            (
                VALIDATION,
                'bar, kind = self.limits.min_confidence_inference, "inferences"',
                'bar, kind = self.limits.min_confidence_statement, "inferences"',
            )
        ],
        [T_VALIDATION],
    ),
    # --- 3. Nothing is deleted when it stops being current -------------------------------------
    m(
        "3.forget-records-no-rule",
        "3: forget records a suppression rule",
        [
            (
                CHANGE_SETS,
                "groups: list[tuple[list[MemoryWrite], list[Suppression]]] = [(batches[0], [first])]",
                "groups: list[tuple[list[MemoryWrite], list[Suppression]]] = [(batches[0], [])]",
            )
        ],
        [T_CARD],
    ),
    m(
        "3.forget-marks-dormant",
        "3: forget retracts (status retracted, file kept)",
        [
            (
                CARD,
                "retracted = memory.evolve(status=Status.RETRACTED, revision=memory.revision + 1)",
                "retracted = memory.evolve(status=Status.DORMANT, revision=memory.revision + 1)",
            )
        ],
        [T_CARD],
    ),
    m(
        "3.reconciler-skips-suppression",
        "3: formation checks the suppression rules before every write",
        [(RECONCILE, "rule = self.rules.match(candidate, resolution.entity_ids)", "rule = None")],
        [T_RECONCILER, T_CARD],
    ),
    m(
        "3.reconciler-skips-suppression-and-retracted-noop",
        "3: a forgotten fact is not learned back (both layers: the rule and the retracted-claim no-op)",
        [
            (RECONCILE, "rule = self.rules.match(candidate, resolution.entity_ids)", "rule = None"),
            (DECISIONS, "if m.status is Status.RETRACTED and same_claim(proposal, m):", "if False:"),
        ],
        [T_RECONCILER, T_CARD, T_INV],
    ),
    m(
        "3.retracted-claim-relearned",
        "3: a restatement of a retracted claim is a no-op (the layer under the suppression rule)",
        [(DECISIONS, "if m.status is Status.RETRACTED and same_claim(proposal, m):", "if False:")],
        [T_DECISIONS, T_INV],
    ),
    m(
        "3.edit-overwrites-old",
        "3: edit supersedes (the old memory is marked superseded and points at the new one)",
        [
            (
                CARD,
                "replaced = old.evolve(status=Status.SUPERSEDED, superseded_by=new.id, revision=old.revision + 1)",
                "replaced = old.evolve(revision=old.revision + 1)",
            )
        ],
        [T_CARD],
    ),
    m(
        "3.reconciler-supersede-without-lineage",
        "3: a newer statement supersedes with links both ways",
        [
            (
                RECONCILE,
                "self.plan.write(Action.SUPERSEDE, target.evolve(status=Status.SUPERSEDED, superseded_by=memory.id), [])",
                "self.plan.write(Action.SUPERSEDE, target.evolve(status=Status.RETRACTED), [])",
            )
        ],
        [T_RECONCILER],
    ),
    m(
        "3.evidence-ledger-overwritten",
        "3: evidence history stays readable (the ledger is appended to, never replaced)",
        [
            (
                PROTOCOL,
                "self.store.replace(self.family_id, path, serialise_ledger(merged), expected_tag=current.tag)",
                "self.store.replace(self.family_id, path, serialise_ledger(records), expected_tag=current.tag)",
            ),
        ],
        [T_PROTOCOL, T_RECONCILER],
    ),
    m(
        "3.expiry-rewrites-words",
        "3: a lifecycle transition changes status only; the words stay",
        [
            (
                RULES,
                "return memory.evolve(status=Status.EXPIRED, revision=memory.revision + 1)",
                'return memory.evolve(status=Status.EXPIRED, revision=memory.revision + 1, body="(expired)")',
            )
        ],
        [T_RULES],
    ),
    m(
        "3.superseded-memory-unreadable",
        "3: lineage stays readable (a superseded memory can still be opened)",
        [
            (
                TOOLS,
                "if memory.status is Status.RETRACTED:",
                "if memory.status in (Status.RETRACTED, Status.SUPERSEDED):",
            )
        ],
        [T_TOOLS],
    ),
    # --- 4. Lease, fencing, revision checks, replay -------------------------------------------
    m(
        "4.sqlite-lease-not-exclusive",
        "4: the lease is exclusive (SQLite)",
        [(CAT_SQL, "if row is not None and row[0] is not None and row[2] > now:", "if False:")],
        [T_CATALOG],
    ),
    m(
        "4.dynamo-lease-not-exclusive",
        "4: the lease is exclusive (DynamoDB)",
        [
            (
                CAT_DDB,
                'ConditionExpression="attribute_not_exists(holder) OR expires_at <= :now",',
                'ConditionExpression="attribute_not_exists(holder) OR expires_at <= :now OR holder <> :holder",',
            )
        ],
        [T_CATALOG],
    ),
    m(
        "4.sqlite-no-fence",
        "4: the fencing token refuses a writer whose lease was taken over (SQLite)",
        [(CAT_SQL, "if row is None or row[0] != lease.holder or row[1] != lease.token:", "if row is None:")],
        [T_CATALOG],
    ),
    m(
        "4.sqlite-fence-ignores-token",
        "4: fencing compares the token, not only the holder (SQLite)",
        [
            (
                CAT_SQL,
                "if row is None or row[0] != lease.holder or row[1] != lease.token:",
                "if row is None or row[0] != lease.holder:",
            )
        ],
        [T_CATALOG],
    ),
    m(
        "4.dynamo-fence-ignores-token",
        "4: fencing compares the token, not only the holder (DynamoDB)",
        [
            (
                CAT_DDB,
                '"ConditionExpression": "holder = :holder AND #token = :token",',
                '"ConditionExpression": "holder = :holder AND (#token = :token OR #token <> :token)",',
            )
        ],
        [T_CATALOG],
    ),
    m(
        "4.protocol-skips-revision-check",
        "4: a change decided on a stale read is refused",
        [(PROTOCOL, "            if current != expected:\n", "            if False:\n")],
        [T_PROTOCOL],
    ),
    m(
        "4.dream-decides-on-the-catalog-row",
        "4: dreaming never overwrites a newer change (it decides again on the file it writes)",
        [
            (
                DREAM,
                "            decision = decide(memory, today, time_zone, policy)\n",
                "            decision = decide(current[planned.memory_id], today, time_zone, policy)\n",
            )
        ],
        [T_DREAM],
    ),
    m(
        "4.sqlite-renew-unfenced",
        "4: a stalled writer cannot renew a lease that was taken over (SQLite)",
        [
            (
                CAT_SQL,
                '        with self._transaction() as db:\n            self._check_fence(db, lease)\n            db.execute("UPDATE leases SET expires_at',
                '        with self._transaction() as db:\n            db.execute("UPDATE leases SET expires_at',
            )
        ],
        [T_CATALOG, T_PROTOCOL],
    ),
    m(
        "4.inference-replaces-explicit",
        "4: formation never overwrites the family's explicit word with a weaker claim",
        [(DECISIONS, "if AUTHORITY_RANK[proposal.authority] < AUTHORITY_RANK[m.authority]:", "if False:")],
        [T_DECISIONS, T_RECONCILER],
    ),
    m(
        "3.forget-rule-blind-to-meaning",
        "3: a reworded restatement of a forgotten claim stays forgotten (matched by meaning)",
        [
            (
                FORGET_RULES,
                "return self.meaning is not None and self.meaning.close(rule.id, rule.fingerprints, texts, names)",
                "return False",
            )
        ],
        ["tests/unit/test_calibration_sets.py"],
    ),
    m(
        "3.forget-rule-ignores-people",
        "3: a different claim (someone else's) is still learned after a forget",
        [(FORGET_RULES, "            if not same_people(rule, entity_ids):\n                return False\n", "")],
        ["tests/unit/test_calibration_sets.py"],
    ),
    m(
        "2.support-check-off",
        "2: a claim the cited turns do not support does not become a memory",
        [
            (
                VALIDATION,
                "            claim, turns, said_on, context=context, session_text=self._session_text, "
                "family_text=family_text\n        )\n        if verdict.supported:",
                "            claim, turns, said_on, context=context, session_text=self._session_text, "
                "family_text=family_text\n        )\n        if True:",
            )
        ],
        ["tests/unit/test_calibration_sets.py", "tests/unit/test_candidate_validation.py"],
    ),
    m(
        "2.support-sibling-swap-accepted",
        "2: a claim the cited turns do not support does not become a memory (a sibling named for the turn's word)",
        [
            (
                SUPPORT,
                "    elif new and (sibling := _sibling_swapped(",
                "    elif False and (sibling := _sibling_swapped(",
            )
        ],
        ["tests/unit/test_support_senses.py"],
    ),
    m(
        "2.support-gloss-not-held-accepted",
        "2: a claim the cited turns do not support does not become a memory (a parenthesised word the turns do not hold)",
        [
            (
                "shared/family_memory/formation/foreign_words.py",
                "return None if english else f\"the turns do not say ({' '.join(words)})\"",
                "return None",
            )
        ],
        ["tests/unit/test_support_languages.py"],
    ),
    m(
        "2.support-recalled-replaces-a-dropped-word",
        "2: a detail on file counts as said only where it replaces no word the turns said",
        [(SUPPORT, "    if recalled and len(new) - len(recalled) >= len(dropped):", "    if recalled:")],
        ["tests/unit/test_support_on_file.py"],
    ),
    m(
        "2.support-apparently-permission-accepted",
        '2: "apparently we can skip chores" is reported, not the household\'s rule',
        [(SUPPORT, "(_APPARENTLY.search(sentence) and _PERMISSION.search(claim.summary))", "False")],
        ["tests/unit/test_support_refusals.py"],
    ),
    m(
        "2.support-scots-negation-unread",
        '2: "nae fizzy juice" is a negation: "can have fizzy juice" is refused',
        [(SUPPORT, ' + foreign_words.NEGATORS + r")\\b",', ' + r"nonesuch)\\b",')],
        ["tests/unit/test_support_englishes.py"],
    ),
    m(
        "2.support-foreign-frequency-lent-everywhere",
        '2: "roz subah" lends "every morning", not "every evening"',
        [
            (
                "shared/family_memory/formation/foreign_words.py",
                '    "shaam": "evening",',
                '    "shaam": "morning",',
            )
        ],
        ["tests/unit/test_support_englishes.py"],
    ),
    m(
        "2.support-clock-words-any-minute",
        '2: "twenty past 10" is 10:20, not 10:40',
        [
            (
                SUPPORT,
                "found.add(hour - past / 60 if before else hour + past / 60)",
                "found.add(hour + 20 / 60 + 20 / 60)",
            )
        ],
        ["tests/unit/test_support_englishes.py"],
    ),
    m(
        "2.support-yearless-date-any-day",
        "2: a day of the year without its year is that day in the years either side, not any day",
        [(SUPPORT, "days |= {m.first_day.replace(year=m.first_day.year + n) for n in (-1, 1)}", "days = set()")],
        ["tests/unit/test_support_englishes.py"],
    ),
    m(
        "11.minors-family-together-any-subset",
        "11 §4: a trip of one parent and one child is about the child, not the household",
        [
            (
                SENSITIVITY,
                "return bool(children) and all(names[m.id] & named for m in children)",
                "return bool(children) and any(names[m.id] & named for m in children)",
            )
        ],
        ["tests/unit/test_sensitivity_tagger.py"],
    ),
    m(
        "2.support-foreign-yes-unread",
        '2: "haan" and "aye" take up the notice before them, "nahi" does not',
        [
            (
                SUPPORT,
                '    r"aye|haan|haa|ji haan|han ji|opo|oo|ndiyo|sawa|oui|ja|claro|vale|sim)\\b",',
                '    r"nonesuchword)\\b",',
            )
        ],
        ["tests/unit/test_support_englishes.py"],
    ),
    m(
        "2.support-tag-question-read-as-question",
        '2: "... é madrinha da nisha, sabia?" states a fact; a question tag is no question',
        [
            (
                SUPPORT,
                'if not sentence.rstrip().endswith("?") or _TAG_QUESTION.search(sentence):',
                'if not sentence.rstrip().endswith("?"):',
            )
        ],
        ["tests/unit/test_support_englishes.py"],
    ),
    m(
        "2.support-h-times-unread",
        '2: "às 15h30" is 15:30, and 16:30 for it is still refused',
        [
            (
                SUPPORT,
                "        found.add(int(match.group(1)) + int(match.group(2) or 0) / 60)",
                "        found.add(16.5)",
            )
        ],
        ["tests/unit/test_support_englishes.py"],
    ),
    m(
        "2.support-emoji-joins-clauses",
        '2: an emoji ends a clause, so the next clause\'s "me" is the writer, not the person before it',
        [(SUPPORT, '    r"[\\U0001F300-\\U0001FAFF\\u2600-\\u27BF]+|"', '    r"(?!)|"')],
        ["tests/unit/test_support_englishes.py"],
    ),
    m(
        "11.must-know-kin-unresolved",
        '11 §2: "my mum" by a child reaches the rules of the mother a relationship on file names',
        [(MUST_KNOW, "            found |= set(row.applies_to) - speaker", "            pass")],
        ["tests/integration/test_must_know.py"],
    ),
    m(
        "2.support-currency-swapped-accepted",
        "2: a claim the cited turns do not support does not become a memory (an amount in another currency)",
        [(SUPPORT, "    if currency := currency_problem(cut, source_text):", "    if currency := None:")],
        ["tests/unit/test_support_refusals.py"],
    ),
    m(
        "2.support-given-up-read-as-doing",
        '2: "given up meat" reads as a negation: "no longer eats meat" is accepted, "eats meat" refused',
        [(SUPPORT, '    r"(?:give|gives|gave|given|giving) up|"', '    r""')],
        ["tests/unit/test_support_refusals.py"],
    ),
    m(
        "2.support-foreign-weekday-unread",
        "2: a wrong weekday for a weekday said in another language is refused",
        [
            (
                "shared/family_memory/formation/calendar_values.py",
                "english = foreign_words.english_calendar(text)",
                "english = text",
            )
        ],
        ["tests/unit/test_support_languages.py"],
    ),
    m(
        "2.support-sibling-read-across-sentences",
        "2: faithful summaries are accepted (a sibling word of another sentence is no swap)",
        [
            (
                SUPPORT,
                'for part in re.split(r"[.!?;\\n]+", said) if part.strip()]',
                "for part in [said]]",
                "_sibling_swapped",
            )
        ],
        ["tests/unit/test_support_senses.py"],
    ),
    m(
        "2.support-dropped-condition-accepted",
        "2: a claim the cited turns do not support does not become a memory (a rule stated without its condition)",
        [(CONDITIONS, "    if _KEPT.search(_fold(summary)):", "    if True:", "dropped_condition")],
        [T_CONDITIONS],
    ),
    m(
        "2.support-ended-state-accepted",
        "2: a claim the cited turns do not support does not become a memory (an ended state stated as current)",
        [(CONDITIONS, "    if _SAYS_ENDED.search(folded) or", "    if True or", "flipped_state")],
        [T_CONDITIONS],
    ),
    m(
        "2.support-ended-state-read-past-its-clause",
        "2: faithful summaries are accepted (what came after an ended state is not the state)",
        [
            (
                CONDITIONS,
                "        if any(_s._held(w, _s._tokens(outside)) and",
                "        if False and any(_s._held(w, _s._tokens(outside)) and",
                "flipped_state",
            )
        ],
        [T_CONDITIONS],
    ),
    m(
        "2.support-swapped-pair-accepted",
        "2: a claim the cited turns do not support does not become a memory (one person given another's value)",
        [(CONDITIONS, "            if _share(only[person], tokens):", "            if True:", "swapped_pair")],
        [T_CONDITIONS],
    ),
    m(
        "2.support-swapped-pair-ignores-pointing-back",
        "2: faithful summaries are accepted (a part that says 'too' shares the other part's value)",
        [(CONDITIONS, "            if _POINTS_BACK.search(part):", "            if False:", "swapped_pair")],
        [T_CONDITIONS],
    ),
    m(
        "2.support-swapped-pair-reads-kin-as-values",
        "2: faithful summaries are accepted (a kin word says whom a person is to another, not a value)",
        [(CONDITIONS, " and w not in _KIN_WORDS]", "]", "swapped_pair")],
        [T_CONDITIONS],
    ),
    m(
        "2.support-assistant-proposal-on-one-word",
        "2: faithful summaries are accepted (one word shared with an assistant's proposal is not the proposal)",
        [(CONDITIONS, "        if len(theirs) < 2:", "        if not theirs:", "proposal_not_taken")],
        [T_CONDITIONS],
    ),
    m(
        "2.support-assistant-proposal-accepted",
        "2: a claim the cited turns do not support does not become a memory (an assistant's suggestion not taken up)",
        [(CONDITIONS, "        if reply is None:", "        if True:", "proposal_not_taken")],
        [T_CONDITIONS],
    ),
    m(
        "3.hard-constraint-correction-kept-beside",
        "3: a later explicit statement that changes a hard constraint supersedes it",
        [
            (
                DECISIONS,
                "if protected(m) and why is Conflict.SLOT and (older or not proposal.marks_change):",
                "if protected(m) and why is Conflict.SLOT:",
            )
        ],
        [T_DECISIONS, T_RECONCILER],
    ),
    m(
        "3.hard-constraint-negation-ignored",
        "3: the family's explicit word that a hard constraint no longer holds supersedes it",
        [(DECISIONS, "if protected(m) and proposal.authority is not Authority.USER_EXPLICIT:", "if protected(m):")],
        [T_DECISIONS],
    ),
    m(
        "4.older-statement-supersedes-newer",
        "4: a claim older than the memory it would replace changes nothing",
        [(DECISIONS, "older = proposal.stated_at < m.last_reinforced_at", "older = False")],
        [T_DECISIONS, "tests/unit/test_replay.py"],
    ),
    m(
        "4.directory-replace-unconditional",
        "4: every file write checks the version it read (local store)",
        [(STORE_DIR, "if current is None or content_tag(current) != expected_tag:", "if current is None:")],
        [T_STORE],
    ),
    m(
        "4.directory-create-overwrites",
        "4: a create never overwrites (local store)",
        [(STORE_DIR, "            if target.exists():\n", "            if False:\n")],
        [T_STORE],
    ),
    m(
        "4.s3-replace-without-if-match",
        "4: every file write checks the version it read (S3 IfMatch)",
        [
            (
                STORE_S3,
                "return self._put(family_id, path, data, if_match=expected_tag)",
                "return self._put(family_id, path, data)",
                "S3Store.replace",
            )
        ],
        [T_STORE],
    ),
    m(
        "4.s3-create-without-if-none-match",
        "4: a create never overwrites (S3 IfNoneMatch)",
        [
            (
                STORE_S3,
                'return self._put(family_id, path, data, if_none_match="*")',
                "return self._put(family_id, path, data)",
                "S3Store.create",
            )
        ],
        [T_STORE],
    ),
    m(
        "4.sqlite-row-revision-unchecked",
        "4: an older catalog row never overwrites a newer one",
        [(CAT_SQL, "if stored is not None and stored[0] > row.revision and not force:", "if False:")],
        [T_CATALOG],
    ),
    m(
        "4.change-set-replayed",
        "4: applying the same change set again changes nothing",
        [(PROTOCOL, "if self.catalog.is_applied(self.family_id, change_set.id):", "if False:")],
        [T_PROTOCOL],
    ),
    m(
        "4.session-replay-new-ids",
        "4: replaying a session changes nothing, even with a lagging finder",
        [(RECONCILE, 'return str(ULID.from_bytes(millis.to_bytes(6, "big") + digest[:10]))', "return new_ulid()")],
        [T_RECONCILER],
    ),
    m(
        "4.session-event-extracted-twice",
        "4: a redelivered session event extracts nothing again (the candidates document is reused)",
        [
            (
                SERVICE,
                "    if stored is not None and not force:\n",
                "    if False:\n",
            )
        ],
        ["tests/integration/test_formation_handlers.py", "tests/unit/test_local_pipeline.py"],
    ),
    m(
        "4.candidates-file-overwritten",
        "4: two racing extractions of one session keep the candidates stored first (create-only write)",
        [
            (
                SERVICE,
                "deps.store.create(family_id, path, serialise_json(document))",
                "deps.store.put(family_id, path, serialise_json(document))",
            )
        ],
        [T_RECONCILER, "tests/integration/test_formation_handlers.py"],
    ),
    m(
        "4.evidence-held-not-a-noop",
        "4: a candidate whose evidence a memory already holds is a no-op",
        [
            (
                DECISIONS,
                "if proposal.evidence and proposal.evidence <= k.evidence and (same_claim(proposal, m) or conflict(proposal, m)):",
                "if False:",
            )
        ],
        [T_DECISIONS, T_RECONCILER],
    ),
    m(
        "4.index-older-revision-wins",
        "4: a late, older index event never replaces a newer document",
        [(IDX_EMB, "if stored[1] > document.revision and not force:", "if False:")],
        [T_INDEX, "tests/integration/test_indexer.py"],
    ),
    m(
        "4.opensearch-older-revision-written",
        "4: a late, older event writes no second OpenSearch document beside a newer one",
        [
            (
                IDX_OS,
                "if force or all(c.revision < document.revision for c in existing.get(memory_id, []))",
                "if True",
            )
        ],
        [T_OS],
    ),
    m(
        "4.opensearch-cleanup-keeps-the-worst-copy",
        "4: racing OpenSearch upserts never delete every copy of a memory (each keeps the best copy it saw)",
        [(IDX_OS, "keep = min(existing, key=lambda c: c.rank)", "keep = max(existing, key=lambda c: c.rank)")],
        [T_OS],
    ),
    # --- 5. Crash at any step ----------------------------------------------------------------
    m(
        "5.no-recovery-on-open",
        "5: the next writer completes a crashed change set",
        [(PROTOCOL, "            session.recover()\n", "            pass\n")],
        [T_PROTOCOL],
    ),
    m(
        "5.no-intent-recorded",
        "5: the intent is recorded before any file is written",
        [
            (
                PROTOCOL,
                "        self.catalog.record_intent(self.family_id, change_set.id, change_set.model_dump_json(), lease=self.lease)\n",
                "",
            )
        ],
        [T_PROTOCOL],
    ),
    m(
        "5.commit-not-idempotent",
        "5: each step is idempotent (a file already at its target counts as written)",
        [(PROTOCOL, "if current is not None and current.data == target:", "if False:")],
        [T_PROTOCOL],
    ),
    m(
        "5.dynamo-settle-clears-before-ledger",
        "5: a crash inside settling (DynamoDB: ledger, then slot) leaves work the next writer completes",
        [
            (
                CAT_DDB,
                """        self._ddb.put_item(
            TableName=self.table, Item={"pk": pk, "sk": _s(_APPLIED + change_id), "outcome": _s(outcome)}
        )
        self._update_lease(lease, "REMOVE pending_id, pending")
""",
                """        self._update_lease(lease, "REMOVE pending_id, pending")
        self._ddb.put_item(
            TableName=self.table, Item={"pk": pk, "sk": _s(_APPLIED + change_id), "outcome": _s(outcome)}
        )
""",
            ),
        ],
        [T_INV, T_PROTOCOL],
    ),
    # --- 6. The brief ------------------------------------------------------------------------
    m(
        "6.brief-includes-sensitive",
        "6: sensitive memories are excluded",
        [
            (
                WEIGHTS,
                "return memory.status is Status.ACTIVE and memory.sensitivity is Sensitivity.NORMAL",
                "return memory.status is Status.ACTIVE",
            )
        ],
        [T_COMPILE],
    ),
    m(
        "6.brief-includes-inactive",
        "6: the brief is a function of the active memories only",
        [
            (
                WEIGHTS,
                "return memory.status is Status.ACTIVE and memory.sensitivity is Sensitivity.NORMAL",
                "return memory.sensitivity is Sensitivity.NORMAL",
            )
        ],
        [T_COMPILE],
    ),
    m(
        "6.brief-order-follows-input",
        "6: deterministic order (same memories in any order, same bytes)",
        [(COMPILE, "    identity.sort(key=weight_key)\n    directives.sort(key=weight_key)\n", "")],
        [T_COMPILE, T_PROPS],
    ),
    m(
        "6.brief-ties-unbroken",
        "6: deterministic order (the weight order is total)",
        [
            (
                WEIGHTS,
                "        -memory.last_reinforced_at.timestamp(),\n        memory.id,\n",
                '        -memory.last_reinforced_at.timestamp(),\n        "",\n',
            )
        ],
        [T_COMPILE, T_PROPS],
    ),
    m(
        "6.brief-line-carries-a-timestamp",
        "6: no timestamps in the brief",
        [
            (
                COMPILE,
                "text=clip(memory.summary) or clip(memory.about),",
                'text=clip(f"{memory.summary} (said {memory.last_reinforced_at:%Y-%m-%d})"),',
            )
        ],
        [T_COMPILE],
    ),
    m(
        "6.last-conversation-carries-a-timestamp",
        "6: no timestamps in the brief (the last-conversation line)",
        [
            (
                COMPILE,
                "    text = clip(last_conversation.summary)\n",
                '    text = clip(f"{last_conversation.started_at:%Y-%m-%d %H:%M}: {last_conversation.summary}")\n',
            )
        ],
        [T_COMPILE, T_INV],
    ),
    m(
        "6.directives-budget-ignored",
        "6: fixed section budgets",
        [
            (
                COMPILE,
                "directives=fit((memory_line(m, family_id) for m in directives), SECTION_BUDGETS[Section.DIRECTIVES]),",
                "directives=fit((memory_line(m, family_id) for m in directives), SECTION_BUDGETS[Section.DIRECTIVES] + 300),",
            )
        ],
        [T_COMPILE, T_PROPS],
    ),
    m(
        "6.cap-and-budgets-ignored",
        "6: hard cap of 2,000 tokens (both the section budgets and the final cap)",
        [
            (
                COMPILE,
                "directives=fit((memory_line(m, family_id) for m in directives), SECTION_BUDGETS[Section.DIRECTIVES]),",
                "directives=fit((memory_line(m, family_id) for m in directives), SECTION_BUDGETS[Section.DIRECTIVES] + 300),",
            ),
            (COMPILE, "while brief_tokens(brief) > BRIEF_TOKEN_CAP:", "while False:"),
        ],
        [T_COMPILE, T_PROPS_FULL],
    ),
    m(
        "6.final-cap-removed",
        "6: hard cap of 2,000 tokens (the final measurement alone, behind the section budgets)",
        [(COMPILE, "while brief_tokens(brief) > BRIEF_TOKEN_CAP:", "while False:")],
        [T_INV, T_COMPILE],
    ),
    m(
        "6.line-not-escaped",
        "6/7: every brief line is delimited and escaped",
        [
            (
                RENDER,
                '    return f"- {one_line(line.text)}{suffix}\\n"',
                '    return f"- \\"{line.text}\\"{suffix}\\n"',
            )
        ],
        [T_COMPILE],
    ),
    m(
        "6.line-not-length-capped",
        "6: every brief line is length-capped",
        [
            (
                COMPILE,
                '    if len(text) <= cap:\n        return text\n    return text[: cap - 1].rstrip() + "…"',
                "    return text",
            )
        ],
        [T_COMPILE, T_PROPS],
    ),
    m(
        "6.line-without-reference",
        "6: every memory line carries its reference",
        [(COMPILE, "ref=memory_ref(family_id, memory.id),", "ref=None,")],
        [T_COMPILE, T_LOADPATCH],
    ),
    m(
        "6.patch-keeps-a-now-sensitive-line",
        "6/9: a patched brief never carries a memory that became sensitive",
        [(PATCH, "if new is None or not briefable(new):", "if new is None:")],
        [T_LOADPATCH],
    ),
    m(
        "6.last-conversation-of-another-member",
        "6: the last-conversation section is the served member's own (never another member's private session)",
        [
            (
                BRIEF_MODEL,
                "own = self.conversations.get(member_id) if member_id and surface is Surface.CHAT else None",
                "own = max(self.conversations.values(), key=lambda c: c.session_id, default=None) "
                "if member_id and surface is Surface.CHAT else None",
            )
        ],
        [T_MEMBERS],
    ),
    m(
        "6.last-conversation-on-the-household-surface",
        "6: none on the household surface",
        [
            (
                BRIEF_MODEL,
                "own = self.conversations.get(member_id) if member_id and surface is Surface.CHAT else None",
                "own = self.conversations.get(member_id) if member_id else None",
            )
        ],
        [T_MEMBERS, T_COMPILE],
    ),
    m(
        "6.last-conversation-is-the-familys-newest",
        "6: a member's last conversation is the newest session they took part in, not the family's newest",
        [(COMPILE, "for member_id in set(conversation.members) & members:", "for member_id in members:")],
        [T_MEMBERS],
    ),
    m(
        "6.last-conversation-repeats-forgotten-words",
        "6/9: the last conversation never repeats the words of a forgotten or withheld claim",
        [(FORGET_RULES, "    return holds_any(text, summaries)", "    return False")],
        [T_COMPILE, T_MEMBERS],
    ),
    m(
        "6.cap-measures-no-members-brief",
        "6: hard cap of 2,000 tokens on every member's brief",
        [(RENDER, "for view in brief.views(surface))", "for view in [brief])")],
        [T_INV],
    ),
    m(
        "6.tagger-ignores-evidence",
        "6: sensitive memories are excluded (the tagger still reads the claim's evidence: recall)",
        [
            (
                SENSITIVITY,
                'evidence = " ".join(normalise_for_match(t) for t in texts[WHEN_TO_USE_AT + 1 :])',
                'evidence = ""',
            )
        ],
        [T_TAGGER],
    ),
    m(
        "6.tagger-household-wide-for-any-claim",
        "6: sensitive memories are excluded (a claim about some of the children is minors)",
        [
            (
                SENSITIVITY,
                "    if household_wide(family, applies_to) or the_family_together(claim, family, applies_to):",
                "    if applies_to:",
            )
        ],
        [T_TAGGER],
    ),
    # --- 7. The agent reads; it never writes ---------------------------------------------------
    m(
        "7.unknown-tool-answered",
        "7: a write-like tool call is refused (no tool writes or deletes)",
        [
            (
                TOOLS,
                "raise InvalidInputError(f\"there is no tool named {str(name)[:60]!r}; the tools are {', '.join(TOOL_NAMES)}\")",
                "return self.search_memory(str(name), 1)",
            )
        ],
        [T_TOOLS],
    ),
    m(
        "7.write-tool-published",
        "7: no tool that creates or deletes a memory is offered",
        [
            (
                TOOLS,
                'TOOL_NAMES = tuple(spec["toolSpec"]["name"] for spec in TOOL_SPECS)',
                'TOOL_NAMES = (*(spec["toolSpec"]["name"] for spec in TOOL_SPECS), "forget_memory")',
            )
        ],
        [T_TOOLS],
    ),
    m(
        "7.read-tool-writes",
        "7: reading never writes (a read tool that touches the file it opened)",
        [
            (
                TOOLS,
                '        fields = "\\n".join(memory_file_lines(front, body))\n',
                '        self.store.put(self.family_id, path + ".read", b"")\n'
                '        fields = "\\n".join(memory_file_lines(front, body))\n',
            )
        ],
        [T_TOOLS, T_INV],
    ),
    m(
        "7.read-memory-not-escaped",
        "7: memory text is escaped where a tool returns it",
        [
            (
                TOOLS,
                "    if isinstance(value, str):\n        return one_line(value)\n",
                "    if isinstance(value, str):\n        return value\n",
            ),
            (TOOLS, '[f"body: {one_line(body)}"]', '[f"body: {body}"]'),
        ],
        [T_TOOLS, T_INV],
    ),
    m(
        "7.excerpt-not-escaped",
        "7: transcript text is escaped where a tool returns it",
        [
            (
                TOOLS,
                'lines.append(f"[turn {n}, {speaker}{when}] {one_line(turn.text)}")',
                'lines.append(f"[turn {n}, {speaker}{when}] {turn.text}")',
            )
        ],
        [T_TOOLS],
    ),
    m(
        "7.evidence-quote-not-escaped",
        "7: evidence quotes are escaped, one line each, where read_memory returns them",
        [(TOOLS, "else one_line(record.quote))", "else record.quote)")],
        [T_TOOLS, T_INV],
    ),
    m(
        "7.search-query-not-escaped",
        "7: the model's query is echoed as one attribute value of data, not raw",
        [
            (
                TOOLS,
                'return f"<memory_search query={one_line(query[:120])}>\\n{body}\\n</memory_search>"',
                'return f"<memory_search query=\\"{query[:120]}\\">\\n{body}\\n</memory_search>"',
            )
        ],
        ["tests/integration/test_hostile_text.py"],
    ),
    m(
        "7.lookup-line-not-escaped",
        "7: memory text is escaped in the turn-level lookup block",
        [
            (
                LOOKUP,
                'return f"- {one_line(row.summary)} ({when}){marker} {ref}"',
                'return f"- {row.summary} ({when}){marker} {ref}"',
            )
        ],
        [T_LOOKUP],
    ),
    m(
        "7.extractor-transcript-not-escaped",
        "7: transcript text cannot close the extractor's data markers",
        [
            (
                EXTRACTOR,
                'return json.dumps(value, ensure_ascii=False, indent=0).replace("<", "\\\\u003c").replace(">", "\\\\u003e")',
                "return json.dumps(value, ensure_ascii=False, indent=0)",
            )
        ],
        [T_BEDROCK],
    ),
    # --- 8. Expiry on the family's local calendar date ----------------------------------------
    m(
        "8.dream-uses-utc",
        "8: the dream expires on the family's local date",
        [(DREAM, "        today = local_date(now, time_zone)\n", '        today = local_date(now, "UTC")\n')],
        [T_DREAM, T_RULES],
    ),
    m(
        "8.expiry-a-day-late",
        "8: a fact valid until the 17th is gone when the 17th begins",
        [
            (
                RULES,
                "return memory.valid_until is not None and today >= memory.valid_until",
                "return memory.valid_until is not None and today > memory.valid_until",
            )
        ],
        [T_RULES, T_DREAM],
    ),
    m(
        "8.decay-on-the-utc-calendar",
        "8: decay counts days on the family's calendar",
        [
            (
                RULES,
                "last = local_date(memory.last_reinforced_at, time_zone)",
                'last = local_date(memory.last_reinforced_at, "UTC")',
            )
        ],
        [T_RULES],
    ),
    m(
        "8.nightly-dream-at-utc-midnight",
        "8: the nightly dream comes due at the family's local midnight",
        [
            (
                "shared/family_memory/lifecycle/schedule.py",
                "    today = local_date(instant, time_zone)\n",
                '    today = local_date(instant, "UTC")\n',
            )
        ],
        [T_RULES, T_DREAM],
    ),
    m(
        "8.turn-day-in-utc",
        "8: relative dates and a candidate's valid_until use the session's local date",
        [
            (
                "shared/family_memory/formation/dates.py",
                "    return local_date(at, time_zone)\n",
                '    return local_date(at, "UTC")\n',
            )
        ],
        ["tests/unit/test_formation_dates.py", "tests/unit/test_offline_extractor.py", T_VALIDATION],
    ),
    m(
        "8.brief-load-uses-utc",
        "8: the brief loader drops a line when its date begins in the family's zone",
        [
            (
                LOAD,
                "return drop_expired(brief, local_date(now or self.clock.now(), brief.time_zone))",
                'return drop_expired(brief, local_date(now or self.clock.now(), "UTC"))',
            )
        ],
        [T_LOADPATCH],
    ),
    m(
        "8.brief-load-a-day-late",
        "8: the brief loader drops a line on its valid_until date, not the day after",
        [
            (
                LOAD,
                "kept = tuple(line for line in lines if line.valid_until is None or line.valid_until > today)",
                "kept = tuple(line for line in lines if line.valid_until is None or line.valid_until >= today)",
            )
        ],
        [T_LOADPATCH],
    ),
    m(
        "8.lookup-uses-utc",
        "8: retrieval's eligibility date is the family's local date",
        [(LOOKUP, "today = local_date(self.clock.now(), zone)", 'today = local_date(self.clock.now(), "UTC")')],
        [T_LOOKUP],
    ),
    m(
        "8.lookup-confirmation-a-day-late",
        "8/9: the catalog confirmation alone drops a hit whose valid_until has arrived",
        [
            (
                LOOKUP,
                "if row.valid_until is not None and row.valid_until <= today:",
                "if row.valid_until is not None and row.valid_until < today:",
            )
        ],
        [T_LOOKUP, T_INV],
    ),
    m(
        "8.formation-session-day-in-utc",
        "8: a candidate's valid_until is judged against the session's local date",
        [
            (
                VALIDATION,
                "self.session_day = turn_day(transcript.started_at, transcript.time_zone)",
                'self.session_day = turn_day(transcript.started_at, "UTC")',
            )
        ],
        [T_VALIDATION, T_INV],
    ),
    # --- 9. Forgotten or edited memories disappear from the next reply --------------------------
    m(
        "9.lookup-trusts-the-index",
        "9: retrieval never returns a hit the catalog says is no longer current",
        [
            (
                LOOKUP,
                "reason = self.why_not_current(row, today, surface)",
                'reason = None if row is not None else "no catalog row"',
            )
        ],
        [T_LOOKUP],
    ),
    m(
        "9.catalog-keeps-rows-past-another-write",
        "9: a row the SQLite catalog read is not answered again once another connection has committed",
        [
            (
                CAT_SQL,
                "if families is None or self._read.version != version or self._read.count > PARSED_ROWS_KEPT:",
                "if families is None or self._read.count > PARSED_ROWS_KEPT:",
            )
        ],
        ["tests/integration/test_lookup_caches.py"],
    ),
    m(
        "9.catalog-keeps-rows-past-its-own-write",
        "9: a thread's own catalog write forgets the rows it read (data_version does not move for it)",
        [
            (CAT_SQL, "        self._read.rows = None\n        try:\n", "        try:\n", "SQLiteCatalog._transaction"),
            (CAT_SQL, "        finally:\n            self._read.rows = None\n", "        finally:\n            pass\n"),
        ],
        ["tests/integration/test_lookup_caches.py"],
    ),
    m(
        "9.must-know-keeps-a-rule-by-its-id",
        "9: what must_know reads off a rule is kept by the row object, so an edited rule is read afresh",
        [
            (MUST_KNOW, "kept = _ROW_FACTS.get(id(row))", "kept = _ROW_FACTS.get(hash(row.id))"),
            (MUST_KNOW, "if kept is not None and kept[0] is row:", "if kept is not None:"),
            (MUST_KNOW, "_ROW_FACTS[id(row)] = (row, facts)", "_ROW_FACTS[hash(row.id)] = (row, facts)"),
        ],
        ["tests/integration/test_lookup_caches.py"],
    ),
    m(
        "9.lookup-keeps-a-line-by-its-id",
        "9: a rendered lookup line is kept by the row object, so an edited memory is rendered afresh",
        [
            (
                LOOKUP,
                "key = (id(row), family_id, today, zone, rule)",
                "key = (hash(row.id), family_id, today, zone, rule)",
            ),
            (LOOKUP, "if kept is not None and kept[0] is row:", "if kept is not None:"),
        ],
        ["tests/integration/test_lookup_caches.py"],
    ),
    m(
        "9.index-keeps-admitted-rows-by-status",
        "9: the rows a filter admits are kept per snapshot by the whole filter, so no filter is answered by another's",
        [
            (
                IDX_EMB,
                "cached = self.admitted_rows.get(search_filter)",
                "cached = self.admitted_rows.get(search_filter.statuses)  # type: ignore[call-overload]",
            ),
            (
                IDX_EMB,
                "self.admitted_rows[search_filter] = rows",
                "self.admitted_rows[search_filter.statuses] = rows  # type: ignore[index]",
            ),
        ],
        ["tests/unit/test_embedded_index_snapshot.py"],
    ),
    m(
        "9.index-keeps-scores-without-their-scope",
        "9: a vector's scores are kept per snapshot by the vector and whether they cover the active rows only, so an "
        "any-status search is never answered by an active-only scan",
        [(IDX_EMB, "key = (tuple(vector), active_only)", "key = (tuple(vector), False)")],
        ["tests/unit/test_embedded_index_snapshot.py"],
    ),
    m(
        "9.index-scans-a-dormant-vector-as-active",
        "9: an active-only search scans the active documents' vectors, and only theirs",
        [
            (
                IDX_EMB,
                "        if document.status is Status.ACTIVE:\n            self.active[place]",
                "        if document.status is not Status.RETRACTED:\n            self.active[place]",
            ),
            (
                IDX_EMB,
                "            if change.document.status is Status.ACTIVE:\n                place, active_count",
                "            if change.document.status is not Status.RETRACTED:\n                place, active_count",
            ),
        ],
        ["tests/unit/test_embedded_index_snapshot.py"],
    ),
    m(
        "9.index-scores-the-last-rows-as-a-group",
        "9: every score is the one product over all rows to the bit (the last rows of a product round another way)",
        [(IDX_EMB, "        tail = self.count % 4\n", "        tail = 0\n")],
        ["tests/unit/test_embedded_index_snapshot.py"],
    ),
    m(
        "9.patch-keeps-forgotten-line",
        "9: forget removes the brief line at once",
        [
            (
                PATCH,
                "REMOVING = frozenset({Action.RETRACT, Action.SUPERSEDE, Action.EXPIRE, Action.DECAY})",
                "REMOVING = frozenset({Action.SUPERSEDE, Action.EXPIRE, Action.DECAY})",
            ),
            (
                PATCH,
                "gone = {c.memory_id for c in applied if c.action in REMOVING or c.status is not Status.ACTIVE}",
                "gone = {c.memory_id for c in applied if c.action in REMOVING}",
            ),
        ],
        [T_LOADPATCH],
    ),
    m(
        "9.patch-drops-edit-replacement",
        "9: edit replaces the brief line at once",
        [(PATCH, "                        replacement[new.supersedes] = new\n", "                        pass\n")],
        [T_LOADPATCH],
    ),
    m(
        "9.patcher-not-wired",
        "9: the runtime patches the brief on every settled change (wiring)",
        [(BOOTSTRAP, "    base.writer.listeners.append(brief.patcher)\n", "")],
        [T_LOADPATCH, T_DREAM, T_INV],
    ),
    m(
        "9.read-memory-opens-forgotten",
        "9: a forgotten memory cannot be opened by the agent",
        [(TOOLS, "if memory.status is Status.RETRACTED:", "if False:")],
        [T_TOOLS],
    ),
    m(
        "9.read-memory-opens-forgotten-ancestor",
        "9: nor can an earlier version of a memory the family later forgot",
        [(TOOLS, "if replaced_by_forgotten(self.store, self.family_id, memory):", "if False:")],
        [T_TOOLS],
    ),
    m(
        "9.excerpt-serves-forgotten-turn",
        "9: the excerpt tool does not serve a turn holding forgotten words",
        [(TOOLS, "if forgotten.covers(turn.text):", "if False:")],
        [T_TOOLS],
    ),
    m(
        "9.evidence-serves-forgotten-quote",
        "9: read_memory does not serve an evidence quote holding forgotten words",
        [(TOOLS, "(FORGOTTEN if forgotten.covers(record.quote) else", "(FORGOTTEN if False else")],
        [T_TOOLS],
    ),
    m(
        "9.brief-etag-outlives-a-forget",
        "9: the brief's tag changes with its body, so a backend's kept copy is not reused after a forget",
        [(API_AGENT, "return '\"' + hashlib.sha256(body).hexdigest()[:32] + '\"'", "return '\"brief\"'")],
        [T_API, T_CLIENT],
    ),
    m(
        "7.mcp-tools-on-household",
        "7: the MCP server offers no tool on the household surface",
        [(MCP, "offers_tools = surface is not Surface.HOUSEHOLD", "offers_tools = True")],
        [T_MCP],
    ),
    m(
        "10.must-know-rules-dropped",
        "10: the hard constraints and directives a message touches reach the agent on that turn",
        [(LOOKUP, "        chosen = must_know(message, current, names, speaker, kin)\n", "        chosen = []\n")],
        ["tests/integration/test_must_know.py"],
    ),
    m(
        "10.must-know-household-shows-private-rule",
        "10: on the household surface a private rule is announced, never shown",
        [
            (
                LOOKUP,
                "            shared = [m.row for m in chosen if m.row.sensitivity is Sensitivity.NORMAL]",
                "            shared = [m.row for m in chosen]",
            )
        ],
        ["tests/integration/test_must_know.py"],
    ),
    m(
        "10.search-memory-skips-rules",
        "10: search_memory runs the turn-level lookup's search, its must-know rules included",
        [
            (
                TOOLS,
                "        rules, _ = self.lookup.rules_for(self.family_id, text, self.surface, vector)",
                "        rules: list[Any] = []",
            )
        ],
        ["tests/integration/test_must_know.py"],
    ),
    m(
        "11.ratchet-forgives-a-missed-target",
        "11: a target once met stays enforced (CI fails when it is missed)",
        [(EVAL_REPORT, "            elif not figure.met:", "            elif False:")],
        ["tests/unit/test_eval_harness.py"],
    ),
    m(
        "11.missing-ratchet-enforces-nothing",
        "11: CI cannot pass by losing the ratchet file",
        [(EVAL_CLI, "    if args.ratchet and not args.write_ratchet and not args.ratchet.exists():", "    if False:")],
        ["tests/unit/test_eval_harness.py"],
    ),
    m(
        "3.restatement-adds-a-second-memory",
        "3: a restatement reinforces and never loses detail",
        [
            (
                DECISIONS,
                "        if value in (Value.SAME, Value.LESS) and not proposal.marks_change:",
                "        if False:",
            )
        ],
        ["tests/unit/test_reconcile_decisions.py"],
    ),
    # --- the memory card's page (issue 15) ----------------------------------------------------
    m(
        "3.group-forget-ignores-the-preview",
        "3: forget is deliberate: a group forget confirms the list its preview showed (the preview's token)",
        [(CARD, "        if expected_token is not None and expected_token != preview.token:", "        if False:")],
        [T_CARD, T_CARD_WEB],
    ),
    m(
        "7.card-page-unescaped",
        "7: memory text is data on the card page too: escaped, invisible characters shown",
        [
            (
                CARD_MARKUP,
                "    return Html(_HIDDEN.sub(_marker, html.escape(str(value), quote=True)))",
                "    return Html(str(value))",
            )
        ],
        [T_CARD_WEB, T_CARD_BROWSER],
    ),
    m(
        "card.form-token-unchecked",
        "card: a change from the page needs the form token of this browser's session (no cross-site request)",
        [
            (
                CARD_WEB,
                "        if not self.sessions.accepts(call.session if not call.new_session else None, "
                'call.request.form.get("csrf")):',
                "        if False:",
            )
        ],
        [T_CARD_WEB],
    ),
    m(
        "2.support-pronoun-of-another-accepted",
        '2: a claim the cited turns do not support does not become a memory (what "he" or "she" did, given to the writer '
        "or to someone named after)",
        [
            (
                SUPPORT,
                "        and (elsewhere := _pronoun_of_another(clause, before, ours, people, writer, by_writer, first_clause))",
                "        and (elsewhere := None)",
                "_misbound",
            )
        ],
        ["tests/unit/test_support_binding.py"],
    ),
    m(
        "2.support-writer-possessive-read-as-writer",
        '2: faithful summaries are accepted ("Ciarán\'s girlfriend Aoife" is not Ciarán, though he wrote "shes coeliac")',
        [
            (
                SUPPORT,
                "and ours == {writer} and not possessive and not",
                "and ours == {writer} and not",
                "_pronoun_of_another",
            )
        ],
        ["tests/unit/test_support_binding.py"],
    ),
    m(
        "2.support-unit-changed-accepted",
        '2: a claim the cited turns do not support does not become a memory ("six weeks" said, "six months" summarised)',
        [
            (
                "shared/family_memory/formation/quantities.py",
                "        if other is not None:",
                "        if False:",
                "unit_problem",
            )
        ],
        ["tests/unit/test_support_quantities.py"],
    ),
    m(
        "2.support-unit-conversion-unread",
        '2: faithful summaries are accepted ("a fortnight" is "two weeks", "half an hour" is "30 minutes")',
        [
            (
                "shared/family_memory/formation/quantities.py",
                "    return abs(a.size - b.size) <= 0.1 * max(a.size, b.size)",
                "    return False",
                "_same",
            )
        ],
        ["tests/unit/test_support_quantities.py"],
    ),
    m(
        "2.support-holiday-swapped-accepted",
        "2: a claim the cited turns do not support does not become a memory (New Year's Day for Stephen's Day)",
        [
            (
                "shared/family_memory/formation/holidays.py",
                "        if not any(_compatible(ours, theirs) for theirs in anywhere):",
                "        if False:",
                "holiday_problem",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-holiday-words-unlent",
        "2: faithful summaries are accepted ('Hogmanay' is New Year's Eve, 'Nadolig' Christmas)",
        [(SUPPORT, "    pool += holidays.english_words(source_text)", "    pool += []", "check_support")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-kin-word-unread",
        "2: faithful summaries are accepted ('Ouma' is a grandmother)",
        [("shared/family_memory/formation/relations.py", '    "ouma": "grandmother",  # Afrikaans\n', "")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-report-kept-refused",
        "2: faithful summaries are accepted (a summary that keeps a report as a report)",
        [(SUPPORT, "    if _ATTRIBUTED.search(summary):\n        return False\n", "", "_reports")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-report-read-past-the-quote",
        "2: faithful summaries are accepted ('doc reckons another fortnight' after the quote is its own clause)",
        [
            (
                SUPPORT,
                "    return bool(_REPORTED.search(sentence[:end])) or tagged",
                "    return bool(_REPORTED.search(sentence)) or tagged",
                "_reports",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-report-tagged-after-accepted",
        "2: a claim the cited turns do not support does not become a memory ('we can stay up till 11, mum said' made a rule)",
        [
            (
                SUPPORT,
                "    tagged = bool(_TRAILING_REPORT.search(sentence) and _PERMISSION.search(summary))",
                "    tagged = False",
                "_reports",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-comment-read-as-pointing-back",
        "2: a claim the cited turns do not support does not become a memory (a swapped pair before 'that's long')",
        [
            (
                "shared/family_memory/formation/binding.py",
                '_POINTING_IT = re.compile(r"\\b(?:it|that)\\b(?![\'’]s\\b|\\s+(?:is|was)\\b)", re.I)',
                '_POINTING_IT = re.compile(r"\\b(?:it|that)\\b", re.I)',
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-small-brother-read-as-older",
        "2: a claim the cited turns do not support does not become a memory ('my small brother' summarised as the older one)",
        [
            (
                "shared/family_memory/formation/paraphrase.py",
                '("older eldest elder big", "younger youngest small little")',
                '("older eldest", "younger youngest")',
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-midnight-unpaired",
        "2: a claim the cited turns do not support does not become a memory (midnight given the other part's qualifier)",
        [
            (
                "shared/family_memory/formation/binding.py",
                '    if word in ("midnight", "noon", "midday"):',
                "    if False:",
                "_number_key",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-dot-time-before-comma-unread",
        "2: faithful summaries are accepted ('tues 3.15, the one on elm st' is 3:15)",
        [
            (
                SUPPORT,
                "(?![\\d%]|[.,]\\d)(?!\\s?(?:kg|km|mg|ml|g|l|m)\\b)",
                "(?![\\d.,%])(?!\\s?(?:kg|km|mg|ml|g|l|m)\\b)",
            )
        ],
        ["tests/unit/test_support_quantities.py"],
    ),
    m(
        "2.support-spaced-time-unread",
        "2: faithful summaries are accepted ('mondays 4 15' is 4:15)",
        [(SUPPORT, "    for match in _SPACED_TIME.finditer(lowered):\n", "    for match in []:\n", "_numbers")],
        ["tests/unit/test_support_quantities.py"],
    ),
    m(
        "2.support-military-time-unread",
        "2: faithful summaries are accepted ('cca ends 1530' is 3:30 pm)",
        [(SUPPORT, "    for match in _MILITARY_TIME.finditer(lowered):\n", "    for match in []:\n", "_numbers")],
        ["tests/unit/test_support_quantities.py"],
    ),
    m(
        "2.support-money-words-unread",
        "2: faithful summaries are accepted ('a tenner' is 10, 'five thousand naira' 5,000)",
        [
            (
                SUPPORT,
                "    found |= {float(_MONEY_WORDS[w]) for w in _tokens(lowered) if w in _MONEY_WORDS}\n    for match in _HUNDREDS_IN_WORDS.finditer(lowered):\n",
                "    for match in []:\n",
                "_numbers",
            )
        ],
        ["tests/unit/test_support_quantities.py"],
    ),
    m(
        "2.support-period-in-short-unread",
        "2: a claim the cited turns do not support does not become a memory ('a tenner a wk' is not a month)",
        [
            (
                SUPPORT,
                "(day|night|week|wk|fortnight|month|mth|year|yr|term)",
                "(day|night|week|fortnight|month|year|term)",
            )
        ],
        ["tests/unit/test_support_quantities.py"],
    ),
    m(
        "2.support-24-hour-time-unpaired",
        "2: a claim the cited turns do not support does not become a memory (times said the 24-hour way swapped between parts)",
        [
            (
                "shared/family_memory/formation/binding.py",
                "    if clock and n and re.fullmatch(_s.TIME_LEAD, tokens[n - 1]):",
                "    if False:",
                "_number_key",
            )
        ],
        ["tests/unit/test_support_quantities.py"],
    ),
    m(
        "2.support-if-dropped-from-plan-accepted",
        "2: a claim the cited turns do not support does not become a memory ('if the penang trip confirm, we'll stay' stated as a plan made)",
        [(SUPPORT, "                and kept < len(words)\n", "                and False\n", "_hedged")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-if-kept-whole-refused",
        "2: faithful summaries are accepted ('he'll eat them if they're blended' -> 'will eat them blended')",
        [(SUPPORT, "                and kept < len(words)\n", "", "_hedged")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-foreign-if-unread",
        "2: a claim the cited turns do not support does not become a memory ('agar uska visa aa gaya toh he'll fly in')",
        [(SUPPORT, '    r"agar|kalau|jika|pensando|quizas|quizás|tal vez|a lo mejor|"\n', "")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-maybe-after-quote-accepted",
        "2: a claim the cited turns do not support does not become a memory ('ir a oaxaca para navidad, maybe')",
        [
            (
                SUPPORT,
                "            _HEDGE_AFTER.match(after) and not _SUMMARY_HEDGE.search(claim.summary)",
                "            False",
                "_speech_problems",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-one-weekday-made-weekly-accepted",
        "2: a claim the cited turns do not support does not become a memory ('this Thursday' made 'every Thursday')",
        [
            (
                "shared/family_memory/formation/calendar_values.py",
                "        if _ONE_DAY.search(sentence) or _PAST.search(sentence):",
                "        if False:",
                "occasion_made_weekly",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-present-weekday-read-as-one-occasion",
        "2: faithful summaries are accepted ('sasha's got ... art on thurs' is a habit)",
        [
            (
                "shared/family_memory/formation/calendar_values.py",
                "|did|was|were|ate|saw|made|",
                "|did|was|were|ate|saw|got|made|",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-lasting-probably-read-as-hedge",
        "2: faithful summaries are accepted ('can't sit on the floor, probably ever again' is no maybe)",
        [
            (
                SUPPORT,
                '    r"^\\W*(?:maybe|perhaps|possibly|probably(?! (?:not )?(?:ever again|forever|for good|for life|never))|hopefully|"',
                '    r"^\\W*(?:maybe|perhaps|possibly|probably|hopefully|if|"',
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-denied-thing-granted-accepted",
        "2: a claim the cited turns do not support does not become a memory ('no screens after 8' as 'may use screens after 8')",
        [
            (
                SUPPORT,
                '        if denied and re.search(rf"\\b(?:no|nae|zero) {re.escape(str(match))}\\b", folded):',
                "        if False:",
                "_denied_thing_granted",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-negation-before-quote-unread",
        "2: a claim the cited turns do not support does not become a memory ('we won't be [doing the turkey]')",
        [
            (
                SUPPORT,
                "        if _NEGATION_BEFORE.search(sentence[:start]) and not _negated(claim.summary):",
                "        if False:",
                "_speech_problems",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-negation-before-quote-kept-refused",
        "2: faithful summaries are accepted ('will not be doing the turkey' keeps the negation)",
        [
            (
                SUPPORT,
                "        if _NEGATION_BEFORE.search(sentence[:start]) and not _negated(claim.summary):",
                "        if _NEGATION_BEFORE.search(sentence[:start]):",
                "_speech_problems",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-schedule-change-read-as-one-occasion",
        "2: faithful summaries are accepted ('changed her chair time, still mon wed fri' is every week)",
        [
            (
                "shared/family_memory/formation/calendar_values.py",
                "        if len(days) != 1 or days[0] not in weekly or _SCHEDULE_CHANGE.search(sentence):",
                "        if len(days) != 1 or days[0] not in weekly:",
                "occasion_made_weekly",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-condition-after-but-unread",
        "2: a claim the cited turns do not support does not become a memory ('can walk ... but only if her brother's with her' without its condition)",
        [
            (
                CONDITIONS,
                "            if lead and after_main and _AFTER_ITS_MAIN.match(clause):",
                "            if False:",
                "_conditioned_clauses",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-condition-read-past-its-comma",
        "2: a claim the cited turns do not support does not become a memory ('only if his sugar is below 140, doctor was very clear': the doctor keeps no condition)",
        [
            (
                CONDITIONS,
                '                condition = clause[trailing.end() :].split(",")[0]',
                "                condition = clause[trailing.end() :]",
                "_conditioned_clauses",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-diet-overreach-accepted",
        "2: a claim the cited turns do not support does not become a memory ('veg on mondays ... chicken fish all fine' as 'the whole family is vegetarian')",
        [(CONDITIONS, "        diet_overreach(summary, quoted),\n", "", "condition_problems")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-diet-of-meals-refused",
        "2: faithful summaries are accepted ('vegetarian meals on Mondays; chicken and fish are fine on other days')",
        [
            (
                CONDITIONS,
                "    if not diet or _s._negated(summary) or _DIET_OF_MEALS.search(summary):",
                "    if not diet or _s._negated(summary):",
                "diet_overreach",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-done-before-it-happens-accepted",
        "2: a claim the cited turns do not support does not become a memory ('im quitting after the season' as 'has already quit')",
        [(CONDITIONS, "        done_before_it_happens(summary, quoted),\n", "", "condition_problems")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-or-not-read-as-negation",
        "2: faithful summaries are accepted ('can or not remind him to sleep by 10' is a question, not a negation)",
        [(SUPPORT, '    r"\\b(?:(?<!\\bor )not|no longer|no|never|nor|', '    r"\\b(?:not|no longer|no|never|nor|')],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-or-not-before-quote-read-as-negation",
        "2: faithful summaries are accepted ('can or not [remind him]' leaves out no negation)",
        [(SUPPORT, "    r\"\\b(?:(?<!\\bor )not|never|no longer|won't|", "    r\"\\b(?:not|never|no longer|won't|")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-sorry-no-unread",
        "2: a claim the cited turns do not support does not become a memory ('the 9th -- sorry no, the 19th' kept as the 9th)",
        [(SUPPORT, "(?:sorry,? no|sorry|no wait|", "(?:sorry|no wait|")],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-ordinal-taken-back-unread",
        "2: a claim the cited turns do not support does not become a memory ('the 9th' taken back is the summary's 'December 9')",
        [
            (
                SUPPORT,
                '        took_back, instead = _ORDINAL.sub(r"\\1", took_back), _ORDINAL.sub(r"\\1", instead)\n',
                "",
                "_speech_problems",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-denied-allergen-accepted",
        "2: a claim the cited turns do not support does not become a memory ('allergic of cats, not of dogs' as 'allergic to dogs')",
        [
            (
                SUPPORT,
                "        if any(_alike(allergen, d) for d in denied) and not any(_alike(allergen, a) for a in said):",
                "        if False:",
                "_allergy_swapped",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-said-allergen-refused",
        "2: faithful summaries are accepted ('allergic to cats but not to dogs' keeps the turn's allergen)",
        [
            (
                SUPPORT,
                "        if any(_alike(allergen, d) for d in denied) and not any(_alike(allergen, a) for a in said):",
                "        if True:",
                "_allergy_swapped",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-other-weekday-read-as-the-habit",
        "2: faithful summaries are accepted (a past Saturday says nothing of a Thursday habit)",
        [
            (
                "shared/family_memory/formation/calendar_values.py",
                "        if len(days) != 1 or days[0] not in weekly or _SCHEDULE_CHANGE.search(sentence):",
                "        if len(days) != 1 or _SCHEDULE_CHANGE.search(sentence):",
                "occasion_made_weekly",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-dated-change-read-as-done",
        "2: faithful summaries are accepted ('has moved ... from next week' says when the change comes)",
        [
            (
                CONDITIONS,
                '    if _TO_COME.search(summary) or re.search(r"\\b(?:from|starting)\\b", summary, re.I):',
                "    if False:",
                "done_before_it_happens",
            )
        ],
        ["tests/unit/test_support_family_words.py"],
    ),
    m(
        "2.support-my-relative-given-to-writer",
        '2: a claim the cited turns do not support does not become a memory ("my wife olga started night shifts" is '
        "not the writer's)",
        [
            (
                SUPPORT,
                "        and not _held(ABBREVIATIONS.get(relative, relative), said_in_summary)\n    ):",
                "        and False\n    ):",
                "_misbound",
            )
        ],
        ["tests/unit/test_support_binding.py"],
    ),
    m(
        "2.support-my-relative-named-in-summary-refused",
        "2: faithful summaries are accepted (a summary that names the writer's relative keeps the relative's claim)",
        [
            (
                SUPPORT,
                "        and not _held(relative, said_in_summary)\n"
                "        and not _held(ABBREVIATIONS.get(relative, relative), said_in_summary)\n",
                "",
                "_misbound",
            )
        ],
        ["tests/unit/test_support_binding.py"],
    ),
]


def _span(text: str, where: str) -> tuple[int, int] | None:
    """The character span of the definition named ``where`` ("Class.method", "function")."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def find(nodes: list[ast.stmt], names: list[str]) -> ast.stmt | None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == names[0]:
                return node if len(names) == 1 else find(node.body, names[1:])
        return None

    node = find(tree.body, where.split("."))
    if node is None or node.end_lineno is None:
        return None
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return starts[first - 1], starts[node.end_lineno]


def _occurrences(text: str, edit: Edit) -> list[int]:
    """Where ``edit.old`` starts in ``text`` (inside ``edit.where`` when it names a definition)."""
    low, high = (0, len(text))
    if edit.where:
        span = _span(text, edit.where)
        if span is None:
            return []
        low, high = span
    found, at = [], text.find(edit.old, low)
    while at != -1 and at + len(edit.old) <= high:
        found.append(at)
        at = text.find(edit.old, at + 1)
    return found


def locate(root: Path, edit: Edit) -> tuple[str, int] | str:
    """(the path that holds the edit's snippet once, where it starts), or why it cannot be applied."""
    target = root / edit.path
    if target.is_file():
        found = _occurrences(target.read_text(encoding="utf-8"), edit)
        if len(found) == 1:
            return edit.path, found[0]
        if len(found) > 1:
            return f"{edit.path}: the snippet occurs {len(found)} times: {edit.old[:70]!r}"
    # Moved: every module that holds it once (inside its definition, when it names one).
    hits = []
    for folder in ("shared", "functions"):
        for path in sorted((root / folder).rglob("*.py")):
            found = _occurrences(path.read_text(encoding="utf-8"), edit)
            hits += [(str(path.relative_to(root)), at) for at in found]
    if len(hits) == 1:
        return hits[0]
    where = f" in {edit.where}" if edit.where else ""
    return f"{edit.path}: the snippet{where} occurs {len(hits)} times in the tree: {edit.old[:70]!r}"


def apply(copy: Path, mutation: Mutation) -> str | None:
    """Apply the edits in ``copy``; a message when a snippet is not there exactly once."""
    for edit in mutation.edits:
        place = locate(copy, edit)
        if isinstance(place, str):
            return place
        path, at = place
        target = copy / path
        text = target.read_text(encoding="utf-8")
        target.write_text(text[:at] + edit.new + text[at + len(edit.old) :], encoding="utf-8")
    return None


def run(mutation: Mutation, python: str, verbose: bool) -> tuple[str, str, float]:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fm-mutation-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=_IGNORED)
        problem = apply(copy, mutation)
        if problem is not None:
            return "STALE", problem, time.monotonic() - started
        command = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", *mutation.guards]
        done = subprocess.run(command, cwd=copy, capture_output=True, text=True, check=False)
        if verbose:
            print(done.stdout[-3000:])
        failed = [line.split(" ")[1] for line in done.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
        if done.returncode == 0:
            return "SURVIVED", "every guard passed", time.monotonic() - started
        if done.returncode not in (1,) and not failed:
            tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
            return "ERROR", " | ".join(tail), time.monotonic() - started
        return "caught", ", ".join(failed[:2]) or "a guard failed", time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutation names or prefixes (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--check", action="store_true", help="only check that every snippet is still there once")
    parser.add_argument("--verbose", action="store_true", help="show the tail of each pytest run")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args(argv)
    chosen = [mu for mu in MUTATIONS if not args.names or any(mu.name.startswith(n) for n in args.names)]
    if args.list:
        for mu in chosen:
            print(f"{mu.name:48} {mu.clause}")
        return 0
    if args.check:
        stale = []
        for mu in chosen:
            for e in mu.edits:
                place = locate(ROOT, e)
                if isinstance(place, str):
                    stale.append(mu.name)
                    print(f"STALE    {mu.name:48} {place}")
                elif place[0] != e.path:
                    print(f"MOVED    {mu.name:48} {e.path} -> {place[0]} (update the path)")
        print(f"{len(chosen) - len(set(stale))} of {len(chosen)} mutations apply")
        return 1 if stale else 0
    if not chosen:
        print("no mutation matches", args.names)
        return 2
    outcomes: dict[str, int] = {}
    for mu in chosen:
        verdict, detail, seconds = run(mu, args.python, args.verbose)
        outcomes[verdict] = outcomes.get(verdict, 0) + 1
        print(f"{verdict:8} {mu.name:48} {seconds:5.1f}s  {detail}", flush=True)
    print(", ".join(f"{n} {v}" for v, n in sorted(outcomes.items())))
    return 0 if set(outcomes) == {"caught"} else 1


if __name__ == "__main__":
    raise SystemExit(main())
