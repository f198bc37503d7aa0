"""Facts that travel with the code: one small file per fact in the project's `.mem-review/`.

`format` (the file), `trust` (which files count as a person's approval), `reading` (the
SessionStart hook's view of the folder) are stdlib only; `writing` (`mem-review share`)
uses the store. See SECURITY.md, "Shared facts", for the trust rule.
"""
