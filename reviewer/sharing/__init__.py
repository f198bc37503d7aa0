"""Facts that travel with the code: one small file per fact in the project's `.mem-review/`.

`format` (the files), `trust` (which files count as a person's approval), `reading` (a
working tree's folder as the SessionStart hook and the extractor see it) are stdlib only;
`writing` (`mem-review share`) and `team` (the TUI's team view) use the store. The trust
rule is in SECURITY.md, "Shared facts".
"""
