"""Text analysis: a chat's language, the analyzer that turns text into index terms, query reading, snippets."""
