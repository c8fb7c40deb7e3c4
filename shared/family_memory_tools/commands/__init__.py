"""The tools' CLI subcommands; ``family_memory.app.cli`` registers them beside its own."""
