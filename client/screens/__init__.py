"""The app's pages: lobby, waiting room, game, results, spectating, replay, tournaments
and the rest; none imports another (they open one another by route, client/routes.py)."""
