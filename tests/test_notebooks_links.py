"""Os links dos notebooks baixados funcionam: apontam o site (a página, a âncora, o PDF), nunca
um arquivo relativo que não vem com o notebook (tokens.md, bloco.html, ../livro.pdf, #rotulo)."""
import json
import re

import nbformat
import pytest
from test_notebooks import NOTEBOOKS, PASTA

from livro_ext.notebooks.notebooks_md import Conversor

SITE = "https://fulana.github.io/livro/"
_LINK = re.compile(r"""(?<!!)\[[^\]]*\]\(([^)\s]+)\)|<a\b[^>]*?\bhref=["']([^"']*)["']""")


def _conversor(pasta, dados=None):
    (pasta / "book").mkdir()
    (pasta / "book" / "index.glue.json").write_text(json.dumps(dados or {}), encoding="utf-8")
    return Conversor(pasta, "book/index", lambda doc: f"{SITE}{doc}.html", SITE)


def _alvos(texto):
    return [a or b for a, b in _LINK.findall(texto)]


def test_links_relativos_viram_o_site(tmp_path):
    c = _conversor(tmp_path)
    md = c.markdown('Veja [o passo 1](tokens.md), [aqui](#o-caminho), [a saída](saida.md#gpt2) e '
                    '<a class="livro-pdf" href="../livro.pdf">o PDF</a>; [fora](https://x.org/a) fica.')
    assert _alvos(md) == [SITE + "book/tokens.html", SITE + "book/index.html#o-caminho",
                          SITE + "book/saida.html#gpt2", SITE + "livro.pdf", "https://x.org/a"]


def test_tabela_e_html_colados_ligam_as_paginas(tmp_path):
    """A tabela do caminho (um Markdown colado) e o navegador dos passos (um HTML colado)."""
    c = _conversor(tmp_path, {"tab": {"data": {"text/markdown": "| a |\n|---|\n| [**tokens**](tokens.md) |"}},
                    "nav": {"data": {"text/html": "<nav><a href='bloco.html'>5</a></nav>"}}})
    md = c.markdown("```{glue:md} tab\n```\n\n```{glue} nav\n```\n\nE {glue:md}`tab`.")
    assert _alvos(md) == [SITE + "book/tokens.html", SITE + "book/bloco.html", SITE + "book/tokens.html"]


@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_notebook_sem_link_relativo(caminho, build):
    nb = nbformat.read(caminho, as_version=4)
    texto = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    mortos = [a for a in _alvos(texto) if not re.match(r"^(https?|mailto|data):", a)]
    assert not mortos, f"{caminho.name}: links que não levam a lugar nenhum fora do site: {mortos}"
