"""ACME order service."""
