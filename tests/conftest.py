"""Peças comuns dos testes: onde fica o repositório e o build (`make book` o cria)."""
import os
import re
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[1]
# uma edição do caminho de busca do Python: insert/append/extend(...), [...] = ..., = e +=
# (test_pacote.py varre o repositório com ela; test_pdf.py, o texto do PDF)
EDITA_CAMINHO = re.compile(r"\bsys\s*\.\s*path\s*(?:\.\s*(?:insert|append|extend)\s*\(|\[[^\]]*\]\s*=(?!=)|\+?=(?!=))")
# LIVRO_BUILD: testar outro build (ex.: um build parcial numa pasta temporária)
BUILD = Path(os.environ.get("LIVRO_BUILD", RAIZ / "_build"))


def pytest_collection_modifyitems(items):
    """Quem usa o build ganha a marca `build` (o `make check` pula esses: roda sem construir)."""
    for item in items:
        if "build" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.build)


@pytest.fixture(scope="session")
def build():
    """A pasta _build de um `make book` já feito (os testes não constroem o livro inteiro)."""
    if not (BUILD / "jupyter_execute").is_dir() or not (BUILD / "html").is_dir():
        pytest.fail("Falta o build do livro: rode `make book` (o `make test` já roda).")
    return BUILD


@pytest.fixture(scope="session")
def pdf(build):
    """O `_build/html/livro.pdf` que o `make pdf` (e o `make test`) faz."""
    arquivo = build / "html" / "livro.pdf"
    if not arquivo.exists():
        pytest.fail("Falta o _build/html/livro.pdf: rode `make pdf` (o `make test` já roda).")
    return arquivo
