"""Presentation: what a result looks like on a terminal, in Markdown and HTML; escaping for each channel.
Rendering never decides anything."""
