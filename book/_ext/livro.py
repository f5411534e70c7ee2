"""Extensões Sphinx do livro: reúne as peças (widgets, notebooks, razão de números)."""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

# Cada peça é um módulo com setup(app); uma peça ausente é simplesmente pulada.
PECAS = ["widgets", "notebooks", "razao", "tema"]


def setup(app):
    for nome in PECAS:
        try:
            mod = importlib.import_module(nome)
        except ModuleNotFoundError as e:
            if e.name != nome:
                raise
            continue
        mod.setup(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
