"""The app's screens: lobby, waiting room, game, results, spectating and replay."""
