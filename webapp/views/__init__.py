"""The web app's pages and API, one blueprint per audience: ``display`` and ``screens``
(the room), ``results`` (the public), ``arbiter``, ``slip_review`` and ``camera_panel``
(the console), ``api`` and ``camera_api`` (JSON and devices), ``auth`` (login).

Views reach the services through ``services.shared.services()``; they never import
``webapp.app`` or ``webapp.cli``.
"""
