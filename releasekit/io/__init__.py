"""Adapters: everything that touches disk, git or templates lives here."""
