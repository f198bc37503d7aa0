"""Text cleaning that every way into the store and out of it agrees on.

Secrets redacted (`redact`); what a terminal does not show (`visible`).
"""
