"""Authoring in the designer: commands over engine.authoring, dialogs, the columns editor, the mapping grid, menus."""
