"""Errors a person can act on: the CLI prints their message in one line, no traceback."""


class UserError(Exception):
    """Bad input or a broken environment; the message says what and where."""
