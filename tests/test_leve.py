"""Páginas leves: fórmulas desenhadas no build, ícones de um subconjunto, busca sob demanda.

Os que usam `build` leem o site de um `make book`; os outros rodam as peças sozinhas.
"""
import re
import shutil

import pytest
from sphinx.errors import ExtensionError

from livro_ext.tema import icones
from livro_ext.tema import matematica
from livro_ext.tema import tema

PAGINA = """<!DOCTYPE html><html><head><title>t</title></head><body>
<p>Texto com <span class="math notranslate nohighlight">\\(x_5 + 1\\)</span>.</p>
<div class="math notranslate nohighlight">\\[{TEX}\\]</div>
</body></html>"""


def _site(tmp_path, tex):
    (tmp_path / "book").mkdir(parents=True)
    (tmp_path / "book" / "p.html").write_text(PAGINA.replace("{TEX}", tex), encoding="utf-8")
    return tmp_path


def _desenhar(site):
    return matematica.desenhar(site, {"book/p.html": (site / "book" / "p.html").read_text(encoding="utf-8")})


@pytest.mark.pesado
@pytest.mark.skipif(not shutil.which("node"), reason="sem Node")
def test_formulas_desenhadas_no_build(tmp_path):
    site = _site(tmp_path, r"\frac{a}{b} = \sqrt{\sigma^2 + \epsilon}")
    r = _desenhar(site)
    assert r["formulas"] == 2
    html = (site / "book" / "p.html").read_text(encoding="utf-8")
    assert html.count("<mjx-container") == 2
    assert "\\(" not in html and "\\[" not in html
    assert "mjx-assistive-mml" in html  # a MathML para leitores de tela
    assert 'id="MJX-CHTML-styles"' in html
    assert "../_static/matematica/woff-v2/MathJax_Main-Regular.woff" in html
    assert (site / "_static" / "matematica" / "woff-v2" / "MathJax_Main-Regular.woff").exists()


@pytest.mark.pesado
@pytest.mark.skipif(not shutil.which("node"), reason="sem Node")
@pytest.mark.parametrize("tex", [r"\naoexiste{x}", r"\frac{a}{b", r"x^{2"])
def test_erro_de_tex_derruba_o_build(tmp_path, tex):
    site = _site(tmp_path, tex)
    with pytest.raises(ExtensionError, match="erro de TeX|sem desenhar"):
        _desenhar(site)


@pytest.mark.pesado
@pytest.mark.skipif(not shutil.which("node"), reason="sem Node")
def test_tex_fora_de_um_elemento_math_derruba_o_build(tmp_path):
    site = _site(tmp_path, "x")
    p = site / "book" / "p.html"
    p.write_text(p.read_text(encoding="utf-8").replace("</body>", "<p>solto $$y$$</p></body>"), encoding="utf-8")
    with pytest.raises(ExtensionError, match="TeX fora"):
        _desenhar(site)


def test_scripts_do_mathjax_saem():
    html = ('<script>window.MathJax = {"options": {}}</script>\n'
            '    <script defer="defer" src="../_static/mathjax/tex-chtml.js"></script>\n<p>x</p>')
    assert matematica.sem_scripts_mathjax(html).strip() == "<p>x</p>"
    # o Sphinx põe ?v=<hash> no endereço de um script que está em _static
    com_versao = '<script defer="defer" src="../_static/mathjax/tex-mml-chtml.js?v=8b8d3b9a"></script>\n<p>x</p>'
    assert matematica.sem_scripts_mathjax(com_versao).strip() == "<p>x</p>"


def test_destaque_da_caixa_do_passo():
    html = ('<div class="passo admonition"><p class="admonition-title">Passo 4 de 7</p><ul><li><p>'
            '<strong>Recebe:</strong> Q</p></li><li><p><strong>Entrega:</strong> '
            '<span class="math notranslate nohighlight">\\(a\\)</span>, a saída da Atenção</p></li></ul></div>')
    assert tema.destaque(html) == ", a saida da atencao"


def test_destaque_so_a_primeira_frase():
    """A saída entrega os logits; "agora com temperatura" é do passo seguinte (issue 49)."""
    html = ('<div class="passo admonition"><ul><li><p><strong>Entrega:</strong> os logits, uma linha '
            'por posição. A última segue para o próximo token, agora com temperatura.</p></li></ul></div>')
    assert tema.destaque(html) == "os logits, uma linha por posicao."


# ---------------------------------------------------------------------------
# No site construído.

def _paginas(build):
    return sorted(p for p in (build / "html").rglob("*.html") if not p.relative_to(build / "html").as_posix().startswith("_"))


def test_site_sem_mathjax_nem_font_awesome_nem_indice_nas_paginas(build):
    problemas = []
    for p in _paginas(build):
        html = p.read_text(encoding="utf-8")
        rel = p.relative_to(build / "html").as_posix()
        if re.search(r"mathjax/tex-[a-z-]+\.js|window\.MathJax", html):
            problemas.append(f"{rel}: carrega o MathJax")
        if "scripts/fontawesome.js" in html:
            problemas.append(f"{rel}: carrega o fontawesome.js")
        if rel != "search.html" and "searchindex.js\"></script>" in html:
            problemas.append(f"{rel}: carrega o searchindex.js")
        if re.search(r'class="(?:[^"]*\s)?math(?:\s[^"]*)?">\s*\\[(\[]', html):
            problemas.append(f"{rel}: fórmula sem desenhar")
        if re.search(r"<mjx-merror|data-mjx-error", html):
            problemas.append(f"{rel}: fórmula com erro")
    assert problemas == []
    bloco = (build / "html" / "book" / "bloco.html").read_text(encoding="utf-8")
    assert bloco.count("<mjx-container") > 50


def test_icones_todos_no_subconjunto(build):
    from fontTools.ttLib import TTFont
    static = build / "html" / "_static"
    css = (static / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    assert "fa-solid-900.woff2" not in css and f"fa-solid-900{icones.SUFIXO}" in css
    mapa = icones.codigos_css(css)
    cmaps = set()
    for nome in icones.FONTES:
        cmaps |= set(TTFont(static / "vendor" / "fontawesome" / "webfonts" / f"{nome}{icones.SUFIXO}").getBestCmap())
    usados = set()
    for p in _paginas(build):
        for cls in re.findall(r'class="([^"]*\bfa[^"]*)"', p.read_text(encoding="utf-8")):
            usados.update(re.findall(r"\bfa-([a-z0-9-]+)", cls))
    icones_usados = {n for n in usados if n in mapa}
    assert {"github", "magnifying-glass", "expand", "download", "sun", "moon"} <= icones_usados
    faltam = sorted(n for n in icones_usados if mapa[n] not in cmaps)
    assert faltam == []
    assert icones.codigos_variaveis(css) <= cmaps  # avisos, trilha, links externos


def test_radicais_da_busca_em_c_e_iguais_aos_do_snowball_em_python(build):
    """O índice da busca usa o Snowball em C (PyStemmer, ~20× mais rápido no build); os radicais
    são os mesmos do snowballstemmer em Python puro, em toda palavra das páginas."""
    import re

    import snowballstemmer
    from snowballstemmer.portuguese_stemmer import PortugueseStemmer

    c = snowballstemmer.stemmer("portuguese")
    assert type(c).__module__ == "Stemmer", "o snowballstemmer não achou o PyStemmer"
    py = PortugueseStemmer()
    palavras = set()
    for html in (build / "html" / "book").glob("*.html"):
        palavras |= set(re.findall(r"[a-zà-úç]{2,}", html.read_text(encoding="utf-8").lower()))
    assert len(palavras) > 2000
    diferentes = [(p, c.stemWord(p), py.stemWord(p)) for p in sorted(palavras) if c.stemWord(p) != py.stemWord(p)]
    assert diferentes == []


def test_subconjunto_dos_icones_reprodutivel(build):
    """O subconjunto leva a data da fonte original, não a hora do build: o mesmo site, os mesmos bytes."""
    from fontTools.ttLib import TTFont
    pasta = build / "html" / "_static" / "vendor" / "fontawesome" / "webfonts"
    for nome in icones.FONTES:
        original = TTFont(pasta / f"{nome}.ttf")["head"].modified
        assert TTFont(pasta / f"{nome}{icones.SUFIXO}")["head"].modified == original, nome


@pytest.mark.pesado
@pytest.mark.skipif(not shutil.which("node"), reason="sem Node")
def test_formulas_guardadas_so_chamam_o_node_para_a_pagina_que_mudou(tmp_path, monkeypatch):
    from livro_ext.execucao import guardado
    monkeypatch.setattr(guardado, "PASTA", tmp_path / "cache")
    monkeypatch.delenv("LIVRO_SEM_GUARDADO", raising=False)
    tex = r"\frac{a}{b} = \sqrt{\sigma^2 + \epsilon}"
    primeiro = _desenhar(_site(tmp_path / "a", tex))
    html = (tmp_path / "a" / "book" / "p.html").read_text(encoding="utf-8")
    chamadas = []
    run = matematica.subprocess.run
    monkeypatch.setattr(matematica.subprocess, "run", lambda *a, **k: chamadas.append(a) or run(*a, **k))
    # a mesma página: sai do cache, sem Node, com o mesmo HTML e o mesmo resumo
    assert _desenhar(_site(tmp_path / "b", tex)) == primeiro
    assert chamadas == []
    assert (tmp_path / "b" / "book" / "p.html").read_text(encoding="utf-8") == html
    # outra fórmula: o Node desenha de novo
    _desenhar(_site(tmp_path / "c", r"\sqrt{d_k}"))
    assert len(chamadas) == 1
    assert (tmp_path / "c" / "book" / "p.html").read_text(encoding="utf-8") != html
    # e sem o cache (LIVRO_SEM_GUARDADO=1), o Node sempre roda
    monkeypatch.setenv("LIVRO_SEM_GUARDADO", "1")
    assert _desenhar(_site(tmp_path / "d", tex)) == primeiro
    assert len(chamadas) == 2


def test_o_tema_nao_mede_as_rolagens(build):
    """O tabindex de quem rola é do tema.js do livro: o pydata-sphinx-theme.js do site não lê
    scrollWidth de cada <pre> (layout forçado da página inteira, a maior tarefa longa do bloco),
    e o build derruba se o tema mudar essa conta (tema.TROCAS_NOS_SCRIPTS)."""
    js = (build / "html" / "_static" / "scripts" / "pydata-sphinx-theme.js").read_text(encoding="utf-8")
    assert tema.CONTA_DO_TEMA not in js
    assert "{" + tema.SEM_CONTA + "}" in js
    assert "scrollWidth" not in js
    assert "rola-de-lado" in (build / "html" / "_static" / "tema.js").read_text(encoding="utf-8")
