"""book/laboratorio.md: os links seguem o repositório e apontam para arquivos que existem."""
import os
import re

from .conftest import RAIZ

PAGINA = os.path.join(RAIZ, "book", "laboratorio.md")


def test_cabecalho_myst():
    texto = open(PAGINA, encoding="utf-8").read()
    assert texto.startswith("---\njupytext:")
    assert "format_name: myst" in texto.split("---")[1]
    assert "name: python3" in texto.split("---")[1]


def test_links_do_repositorio():
    """Os links para o repositório vêm das substituições do MyST (livro_ext/livro.py), que
    seguem o repositório que constrói o site: nenhum endereço do GitHub digitado na página."""
    texto = open(PAGINA, encoding="utf-8").read()
    assert not re.search(r"https://(github\.com|colab\.research\.google\.com|raw\.githubusercontent)", texto)
    links = re.findall(r"\{\{ '\[[^\]]+\]\(\{\}/([^)]+)\)'\.format\((\w+)\) \}\}", texto)
    assert len(links) >= 6
    for caminho, base in links:
        assert base in ("repo_blob", "colab_site"), base
        assert os.path.exists(os.path.join(RAIZ, caminho)), caminho
    assert ("lab/laboratorio_gpt2.ipynb", "colab_site") in links


def test_pagina_usa_os_textos_do_laboratorio():
    """A página tokeniza as frases do notebook (gpt2_contas), não uma cópia delas."""
    texto = open(PAGINA, encoding="utf-8").read()
    assert "gc.FRASES" in texto and "gc.PROMPT" in texto
    assert "valores_curso.json" in texto
    assert "brinquedo_hf" in texto                     # o brinquedo roda no GPT2LMHeadModel
