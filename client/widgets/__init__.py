"""Widgets that draw what they are given: the board, the racers' bars, the top bar."""
