"""kata: practise attention by hand; the checker behind the `kata` command."""

__version__ = "0.1.0"
