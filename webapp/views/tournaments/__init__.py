"""Tournaments: the director makes one with its player list and arbiters, and each of its games,
duplicate or classic, from it (``manage``, ``/arbiter/torneos``); the public reads its standings,
each player's tournament and the files the federation takes (``public``, ``/results/torneo/<id>``)."""

from . import manage, public  # noqa: F401  (each adds its routes to ``bp``)
from .common import bp

__all__ = ["bp"]
