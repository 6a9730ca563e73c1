"""What the client knows, apart from how it is drawn: variants, races, racers, names.

Screens and widgets both import from here; nothing here imports a screen or a
widget, so the data can be tested (and reused by the bots) without Textual.
"""
