"""O tema sem o build (livro_ext/tema/): a busca sem acento, as trocas nos scripts dos pacotes,
os ícones lidos do CSS do pydata-sphinx-theme instalado."""
import re
import shutil
from pathlib import Path

import pydata_sphinx_theme
import pytest
import sphinx_copybutton
import sphinx_togglebutton

from livro_ext.execucao import myst
from livro_ext.tema import icones, tema

STATIC_PYDATA = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"


def test_busca_sem_acento_no_indice():
    busca = tema.SearchPortuguesSemAcento({})
    assert tema.sem_acento("Atenção, posições, próximo") == "Atencao, posicoes, proximo"
    palavras = ["Atenção", "atencao", "posições", "posicoes", "próximo", "proximo"]
    assert [busca.stem(p) for p in palavras] == ["atenca", "atenca", "posico", "posico", "proxim", "proxim"]


def _scripts_dos_pacotes(static: Path) -> dict[str, Path]:
    """Os três scripts que tema.TROCAS_NOS_SCRIPTS troca, copiados dos pacotes para `static`."""
    origens = {
        "togglebutton.js": Path(sphinx_togglebutton.__file__).parent / "_static" / "togglebutton.js",
        "copybutton.js": Path(sphinx_copybutton.__file__).parent / "_static" / "copybutton.js_t",
        "scripts/pydata-sphinx-theme.js": STATIC_PYDATA / "scripts" / "pydata-sphinx-theme.js",
    }
    (static / "scripts").mkdir(parents=True)
    for nome, origem in origens.items():
        shutil.copy(origem, static / nome)
    return {nome: static / nome for nome in origens}


def test_trocas_nos_scripts_uma_vez_so(tmp_path):
    arquivos = _scripts_dos_pacotes(tmp_path)
    antes = {nome: p.read_text(encoding="utf-8") for nome, p in arquivos.items()}
    tema.trocas_nos_scripts(tmp_path)
    depois = {nome: p.read_text(encoding="utf-8") for nome, p in arquivos.items()}
    assert 'aria-label="Mostrar ou esconder o conteúdo"' in depois["togglebutton.js"]
    assert "Toggle hidden content" not in depois["togglebutton.js"]
    assert depois["copybutton.js"].count("'pt-BR'") == 1 and "'copy_success': 'Copiado!'" in depois["copybutton.js"]
    # o pydata-sphinx-theme.js sem a conta, com cada linha do mesmo tamanho (o mapa de fontes segue certo)
    js, js_antes = depois["scripts/pydata-sphinx-theme.js"], antes["scripts/pydata-sphinx-theme.js"]
    assert tema.CONTA_DO_TEMA in js_antes and tema.CONTA_DO_TEMA not in js and "scrollWidth" not in js
    assert [len(linha) for linha in js.splitlines()] == [len(linha) for linha in js_antes.splitlines()]
    # o build incremental acha os scripts já trocados: nada muda
    tema.trocas_nos_scripts(tmp_path)
    assert {nome: p.read_text(encoding="utf-8") for nome, p in arquivos.items()} == depois


def test_script_que_mudou_derruba_o_build(tmp_path):
    (tmp_path / "togglebutton.js").write_text('button.setAttribute("aria-label", "Alternar")', encoding="utf-8")
    with pytest.raises(RuntimeError, match="togglebutton.js mudou"):
        tema.trocas_nos_scripts(tmp_path)


def test_codigos_dos_icones_no_css_do_tema():
    css = (STATIC_PYDATA / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    mapa = icones.codigos_css(css)
    assert mapa["magnifying-glass"] == mapa["search"] == 0xF002 and mapa["github"] == 0xF09B
    # a trilha (--pst-breadcrumb-divider) escreve o próprio caractere, sem escape
    assert 0xF105 in icones.codigos_variaveis(css)
    assert icones.codigos_variaveis('--pst-icon-x: "\\f12a";--pst-breadcrumb-divider: "\uf105"') == {0xF12A, 0xF105}


def test_regras_sobrando_so_as_que_ninguem_usa():
    css = ('.fa{x:1}.fa-a:before,.fa-b:before{content:"\\f001"}.fa-c:before{content:"\\f002"}'
           '.x:before,.fa-d:before{content:"\\f003"}')
    # fica a regra que um ícone usado divide com outro, e a que também serve a outro seletor
    assert icones.sem_regras_sobrando(css, {"a"}) == \
        '.fa{x:1}.fa-a:before,.fa-b:before{content:"\\f001"}.x:before,.fa-d:before{content:"\\f003"}'


def _niveis_dos_titulos():
    """Os níveis dos títulos (## = 2) das páginas do livro, fora das cercas (o leitor de MyST do build)."""
    niveis = set()
    for md in (Path(__file__).resolve().parents[1] / "book").glob("*.md"):
        for p in myst.pedacos(md.read_text(encoding="utf-8").splitlines()):
            if not isinstance(p, myst.Bloco) and (m := re.match(r"(#{2,6}) \S", p[1])):
                niveis.add(len(m.group(1)))
    return niveis


def test_nesta_pagina_mostra_todo_titulo():
    """Toda entrada do "Nesta página" se vê e se clica: o pydata mostra, sem recolher, as listas
    até o nível show_toc_level + 1 (## é o nível 2); o mais fundo das páginas cabe nele."""
    class Config:
        html_theme_options, html_context = {}, {}

    cfg = Config()
    tema.opcoes_do_tema(None, cfg)
    fundo = max(_niveis_dos_titulos())
    assert fundo >= 3, "as páginas têm títulos ###"
    assert fundo <= cfg.html_theme_options.get("show_toc_level", 1) + 1
