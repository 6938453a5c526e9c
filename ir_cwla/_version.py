"""The one version string of ir_cwla (setup.cfg reads it: ``version = attr: ir_cwla._version.__version__``)."""
__version__ = "0.2.0"
