"""book/laboratorio.md: os links apontam para o repositório do _config.yml e para arquivos que existem."""
import os
import re

from .conftest import RAIZ

PAGINA = os.path.join(RAIZ, "book", "laboratorio.md")


def _repositorio():
    texto = open(os.path.join(RAIZ, "_config.yml"), encoding="utf-8").read()
    bloco = texto.split("\nrepository:", 1)[1]
    url = re.search(r"^\s+url:\s*(\S+)", bloco, re.M).group(1).rstrip("/")
    ramo = re.search(r"^\s+branch:\s*(\S+)", bloco, re.M).group(1)
    return url.split("github.com/", 1)[1], ramo


def test_cabecalho_myst():
    texto = open(PAGINA, encoding="utf-8").read()
    assert texto.startswith("---\njupytext:")
    assert "format_name: myst" in texto.split("---")[1]
    assert "name: python3" in texto.split("---")[1]


def test_links_do_repositorio():
    texto = open(PAGINA, encoding="utf-8").read()
    dono_repo, ramo = _repositorio()
    links = re.findall(r"\]\((https://(?:colab\.research\.google\.com/github|github\.com)/[^)]+)\)", texto)
    assert len(links) >= 6
    for link in links:
        m = re.search(r"github(?:\.com)?/([\w.-]+/[\w.-]+)/blob/([\w.-]+)/(.+)$", link)
        assert m, link
        assert m.group(1) == dono_repo and m.group(2) == ramo, link
        assert os.path.exists(os.path.join(RAIZ, m.group(3))), link
    assert any("colab.research.google.com" in l and l.endswith("lab/laboratorio_gpt2.ipynb") for l in links)


def test_pagina_usa_os_textos_do_laboratorio():
    """A página tokeniza as frases do notebook (gpt2_contas), não uma cópia delas."""
    texto = open(PAGINA, encoding="utf-8").read()
    assert "gc.FRASES" in texto and "gc.PROMPT" in texto
    assert "valores_curso.json" in texto
