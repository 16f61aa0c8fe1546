"""The ``onecard`` command's start: checks that onecard's own packages are the ones it runs.

The project's code lives in the top-level packages ``protocol``, ``net``, ``host`` and
``client`` (README, "Installed names"); this package only holds the console script's entry
point, :func:`onecard.startup.main`, which makes sure those four are onecard's own before it
imports any of them. ``python -m onecard`` runs the command the same way.
"""
