"""The turn-level lookup's caps, alone in a module with no imports, so the settings every
function reads at cold start can take their defaults from here without loading retrieval."""

DEFAULT_MAX_ITEMS = 5
#: The token budgets hold their item caps (docs/retrieval.md): the candidates' at the harness's
#: median line (about 79 tokens, a quarter of it the reference), so 350 let in four, never five;
#: the rules' at their 90th percentile (76 tokens; median 62), since the lookups that need all
#: eight are meals whose rules are the long health ones: at 500 a household's eighth food rule
#: ("Dadaji must not have jaggery either") was cut.
DEFAULT_MAX_TOKENS = 450
DEFAULT_RULE_ITEMS = 8
DEFAULT_RULE_TOKENS = 600
#: What a caller (or a setting) may ask for at most.
MAX_ITEMS_LIMIT = 20
MAX_TOKENS_LIMIT = 2000
