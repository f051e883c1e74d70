"""Use cases: one module per command story, composing io adapters, plans and rules (cli stays thin)."""
