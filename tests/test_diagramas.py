"""Os diagramas de lab/livro/diagramas.py: SVG bem formado, texto alternativo, formas calculadas, links.

Não precisa do build: gera cada diagrama e lê o SVG com xml.etree.
"""
import ast
import re
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import RAIZ

from livro import arquitetura as arq
from livro import brinquedo as b
from livro import diagramas as dg

LIVRO = RAIZ / "lab" / "livro"

SVG = "{http://www.w3.org/2000/svg}"
EM = dg.EM_POR_CARACTERE
CSS = (RAIZ / "book" / "_static" / "diagramas.css").read_text(encoding="utf-8")


def _fonte(classes):
    """Tamanho da fonte de um <text>, lido de diagramas.css (a última regra que casa ganha)."""
    tamanho = None
    for regra, corpo in re.findall(r"([^{}]+)\{([^}]*)\}", CSS):
        m = re.search(r"font-size:\s*([\d.]+)px", corpo)
        if m and any(f".{c}" in re.split(r"[\s,]+", regra.strip()) for c in classes):
            tamanho = float(m.group(1))
    assert tamanho, f"nenhum font-size em diagramas.css para {classes}"
    return tamanho


def todos():
    """(nome, Diagrama) de todos os desenhos."""
    return ([("caminho", dg.caminho()), ("bloco", dg.bloco()), ("consulta 1", dg.consulta(0)),
             ("consulta 2", dg.consulta(1))]
            + [(f"mapa {k}", dg.voce_esta_aqui(k)) for k in range(1, len(dg.PASSOS) + 1)])


def svgs():
    return [(nome, svg) for nome, d in todos() for svg in d.svgs]


def texto_visivel(svg):
    """Todo o texto desenhado (sem título nem descrição)."""
    raiz = ET.fromstring(svg)
    return "\n".join("".join(t.itertext()) for t in raiz.iter(f"{SVG}text"))


# ---------------------------------------------------------------------------
# Forma do SVG e acessibilidade
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("nome,svg", svgs())
def test_svg_bem_formado_com_texto_alternativo(nome, svg):
    raiz = ET.fromstring(svg)
    assert raiz.tag == f"{SVG}svg", nome
    assert raiz.get("role") in ("img", "group"), nome
    assert len(raiz.get("aria-label", "")) > 40, f"{nome}: aria-label curto demais"
    assert raiz[0].tag == f"{SVG}title" and raiz[0].text.strip(), f"{nome}: falta <title>"
    assert raiz[1].tag == f"{SVG}desc" and len(raiz[1].text) > 40, f"{nome}: falta <desc>"
    _, _, w, h = (float(v) for v in raiz.get("viewBox").split())
    assert (float(raiz.get("width")), float(raiz.get("height"))) == (w, h)


@pytest.mark.parametrize("nome,d", todos())
def test_html_do_diagrama_bem_formado(nome, d):
    raiz = ET.fromstring(d._repr_html_())
    assert raiz.tag in ("figure", "nav") and "lv-diagrama" in raiz.get("class")
    assert str(d) == d._repr_html_()


@pytest.mark.parametrize("nome,d", todos())
def test_estilo_de_reserva_perde_para_o_css_do_livro(nome, d):
    """O <style> de reserva (notebook sem diagramas.css) só tem seletores :where(), especificidade zero."""
    estilo = re.search(r"<style>(.*?)</style>", d._repr_html_(), re.DOTALL).group(1)
    seletores = re.findall(r"([^{}]+)\{", estilo)
    assert seletores and all(re.fullmatch(r":where\([^()]+\)", s.strip()) for s in seletores), seletores


@pytest.mark.parametrize("nome,svg", svgs())
def test_cores_so_pelo_css(nome, svg):
    """Nada de cor fixa no SVG: o tema (claro ou escuro) pinta tudo pelas classes."""
    assert not re.search(r"\b(fill|stroke|color|style)=", svg), nome
    assert "#" not in re.sub(r"&#x?[0-9a-fA-F]+;", "", svg), nome
    usadas = {c for classes in re.findall(r'class="([^"]+)"', svg) for c in classes.split()}
    sem_regra = {c for c in usadas if not re.search(rf"\.{c}\b", CSS)}
    assert not sem_regra, f"{nome}: classes sem regra em diagramas.css: {sem_regra}"


def test_css_do_diagrama_no_livro():
    config = (RAIZ / "_config.yml").read_text(encoding="utf-8")
    assert re.search(r'html_css_files:.*"diagramas\.css"', config)
    assert ".lv-" not in (RAIZ / "book" / "_static" / "livro.css").read_text(encoding="utf-8")
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b|rgb\(", CSS), "cores fixas em diagramas.css"


@pytest.mark.parametrize("nome,svg", svgs())
def test_texto_cabe_no_desenho_e_nas_caixas(nome, svg):
    """Cada texto (0,6 em por caractere) cabe no viewBox e na caixa onde está escrito."""
    raiz = ET.fromstring(svg)
    _, _, W, H = (float(v) for v in raiz.get("viewBox").split())
    caixas = [tuple(float(r.get(a)) for a in ("x", "y", "width", "height"))
              for r in raiz.iter(f"{SVG}rect")]
    for t in raiz.iter(f"{SVG}text"):
        s = "".join(t.itertext())
        x, y = float(t.get("x")), float(t.get("y"))
        larg = len(s) * EM * _fonte(t.get("class").split())
        if t.get("transform"):  # texto girado 90°: a largura vira altura
            assert y - larg / 2 >= 0 and y + larg / 2 <= H, f"{nome}: {s!r} sai do desenho"
            continue
        ancora = t.get("text-anchor")
        x0 = {"start": x, "middle": x - larg / 2, "end": x - larg}[ancora]
        assert 0 <= x0 and x0 + larg <= W and 0 <= y <= H, f"{nome}: {s!r} sai do desenho"
        dentro = [c for c in caixas if c[0] <= x <= c[0] + c[2] and c[1] <= y <= c[1] + c[3]]
        if dentro:
            cx, _, cw, _ = min(dentro, key=lambda c: c[2] * c[3])
            assert cx <= x0 and x0 + larg <= cx + cw, f"{nome}: {s!r} não cabe na caixa"


@pytest.mark.parametrize("nome,svg", svgs())
def test_legivel_num_celular(nome, svg):
    """Numa coluna de 358 px (celular de 390 px), nenhum texto fica menor que 10 px."""
    raiz = ET.fromstring(svg)
    if "lv-largo" in raiz.get("class"):
        return  # o mapa largo só aparece em colunas largas (consulta de contêiner)
    largura = float(raiz.get("width"))
    escala = min(1.0, 358 / largura)
    menor = min(_fonte(t.get("class").split()) for t in raiz.iter(f"{SVG}text"))
    assert menor * escala >= 10, f"{nome}: {largura:.0f} px de largura, texto de {menor * escala:.1f} px"


# ---------------------------------------------------------------------------
# As formas no desenho vêm das configurações
# ---------------------------------------------------------------------------
def test_caminho_tem_as_formas_do_brinquedo_e_do_gpt2():
    d = dg.caminho()
    txt = texto_visivel(d.svg)
    n, g = len(b.IDS_PROMPT), arq.GPT2_SMALL
    proximo = b.VOCAB[b.ranking(b.modelo(b.IDS_PROMPT)["p"][-1], 1)[0]]
    for esperado in [b.PROMPT, f"{n} × {b.d}", f"{n} × {b.V}", "50.257", f"n × {g['d']}",
                     "n × 50.257", proximo, "norma final", "softmax", "blocos"]:
        assert esperado in txt, esperado
        assert esperado.lstrip(b.ESPACO) in d.alt, esperado
    assert proximo == "␣telhado" and "telhado, com o espaço na frente" in d.alt


def test_bloco_tem_as_formas_e_a_ln_no_ramo():
    d = dg.bloco()
    txt = texto_visivel(d.svg)
    n = len(b.IDS_PROMPT)
    for esperado in [f"{n} × {b.d}", f"{n} × {b.d_ff}", "3.072", "768", "h = x + a", "y = h + m",
                     "atenção", "MLP", "pré-LN"]:
        assert esperado in txt, esperado
    assert txt.count("LN") >= 2 and "d_ff = 3.072" in d.alt
    assert f"{b.n_cabecas} cabeças" in txt


@pytest.mark.parametrize("nome, indice", [("caminho", "U"), ("bloco", "ff")])
def test_indices_desenhados_embaixo_sem_sublinhado(nome, indice):
    """W_U e d_ff saem como nas fórmulas (o índice embaixo), nunca com o _ cru na figura."""
    svg = getattr(dg, nome)().svg
    assert "_" not in texto_visivel(svg)
    assert f'<tspan baseline-shift="sub" font-size="0.75em">{indice}</tspan>' in svg


@pytest.mark.parametrize("k", range(1, 8))
def test_mapa_diz_o_passo_e_as_formas(k):
    d = dg.voce_esta_aqui(k)
    assert f"passo {k} de 7" in d.alt and dg.PASSOS[k - 1] in d.alt
    assert re.search(r"\d+ × \d+|\(\d+\)|\d+ id", d.alt), d.alt
    for svg in d.svgs:
        assert "recebe" in texto_visivel(svg) and "entrega" in texto_visivel(svg)


def test_uma_mudanca_na_configuracao_muda_o_desenho(monkeypatch):
    antes = [dg.caminho().svg, dg.bloco().svg, dg.voce_esta_aqui(6).svg]
    monkeypatch.setitem(arq.GPT2_SMALL, "V", 50000)
    monkeypatch.setitem(arq.GPT2_SMALL, "d_ff", 4096)
    monkeypatch.setattr(b, "d_ff", 16)
    monkeypatch.setattr(b, "IDS_PROMPT", [0, 2, 4])
    monkeypatch.setattr(b, "PROMPT", "o gato sub")
    depois = [dg.caminho().svg, dg.bloco().svg, dg.voce_esta_aqui(6).svg]
    assert all(a != c for a, c in zip(antes, depois))
    assert "n × 50.000" in texto_visivel(depois[0]) and "50.257" not in depois[0]
    assert f"3 × {b.d}" in texto_visivel(depois[0]) and "o gato sub”" in depois[0]
    assert "3 × 16" in texto_visivel(depois[1]) and "4.096" in texto_visivel(depois[1])
    assert f"3 × {b.V}" in texto_visivel(depois[2])


# ---------------------------------------------------------------------------
# O mapa: argumento, links, aria-current
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", [0, 8, -1, "3", 2.5, True, None])
def test_passo_fora_de_1_a_7(k):
    with pytest.raises(ValueError, match="passo precisa ser um inteiro de 1 a 7"):
        dg.voce_esta_aqui(k)


def test_links_do_mapa_apontam_para_as_paginas_dos_passos():
    toc = (RAIZ / "_toc.yml").read_text(encoding="utf-8")
    na_ordem = re.findall(r"file: book/(\w+)", toc)[:len(dg.PAGINAS)]
    assert na_ordem == dg.PAGINAS, "a ordem dos passos no _toc.yml mudou"
    for pagina, nome in zip(dg.PAGINAS, dg.PASSOS):
        fonte = (RAIZ / "book" / f"{pagina}.md").read_text(encoding="utf-8")
        titulo = re.search(r"^# (.+)$", fonte, re.MULTILINE).group(1).strip()
        assert titulo == nome, f"{pagina}.md se chama {titulo!r}, o mapa diz {nome!r}"


@pytest.mark.parametrize("k", range(1, 8))
def test_mapa_marca_o_passo_atual(k):
    d = dg.voce_esta_aqui(k)
    assert ET.fromstring(d._repr_html_()).tag == "nav"
    for svg in d.svgs:
        links = list(ET.fromstring(svg).iter(f"{SVG}a"))
        assert [a.get("href") for a in links] == [f"{p}.html" for p in dg.PAGINAS]
        atuais = [a.get("href") for a in links if a.get("aria-current") == "page"]
        assert atuais == [f"{dg.PAGINAS[k - 1]}.html"]
        for i, (a, nome) in enumerate(zip(links, dg.PASSOS), 1):  # o nome do link: texto ou <title>
            titulo = a.find(f"{SVG}title")
            visivel = " ".join("".join(t.itertext()) for t in a.iter(f"{SVG}text"))
            nome_link = titulo.text if titulo is not None else visivel
            assert str(i) in visivel and nome_link in (f"Passo {i}: {nome}", f"{i} {nome}"), nome_link


# ---------------------------------------------------------------------------
# O módulo
# ---------------------------------------------------------------------------
def test_modulo_so_biblioteca_padrao_e_curto():
    fonte = (LIVRO / "diagramas.py").read_text(encoding="utf-8")
    assert len(fonte.splitlines()) < 600
    importados = set()
    for no in ast.walk(ast.parse(fonte)):
        if isinstance(no, ast.Import):
            importados |= {a.name.split(".")[0] for a in no.names}
        elif isinstance(no, ast.ImportFrom):
            importados.add(no.module.split(".")[0])
    locais = {"livro"}
    assert importados - locais <= set(sys.stdlib_module_names), importados - locais
