"""Pure domain types. Imports nothing from click, gitpython or jinja2 and opens no files."""
