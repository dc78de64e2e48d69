"""The demo: a server that plays by itself (``server``), its scanner of rendered slips
(``slips``) and its classic table seen by a rendered camera (``table``)."""
