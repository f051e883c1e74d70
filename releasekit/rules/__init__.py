"""Validation rules. Pure: each rule takes parsed data and returns findings; nothing prints or exits."""
