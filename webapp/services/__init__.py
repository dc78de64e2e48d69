"""What the web app runs behind its pages: the event store, the live games, the accounts,
the slip scanners, the board cameras, the simulation and the demo.

May import ``rules_core``, ``vision``, ``hardware`` and ``models``; never ``webapp.views``,
``webapp.app`` or ``webapp.cli``. ``shared`` bundles one app's services.
"""
