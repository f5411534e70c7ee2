"""A conferência dos números do PDF (`tests/pdf_confere.py`) em unidade, sem build e sem PDF.

O texto "do PDF" aqui é montado com os valores de verdade do lock (as fórmulas em display e as
tabelas de cada página), como o leitor os vê. Um dígito plantado numa fórmula ou numa célula
tem de aparecer como um problema com a chave; uma conferência que pula as fórmulas em display
ou as tabelas (a diretiva ```{glue:math}``` ou ```{glue:md}``` fora da conta) falha aqui.
"""
import json
import re

import pytest
from conftest import RAIZ

import pdf_confere as pc

LOCK = json.loads((RAIZ / "book" / "numeros.lock.json").read_text(encoding="utf-8"))
PAGINAS = sorted(p for p in (RAIZ / "book").glob("*.md") if "book/" + p.stem in LOCK)
_BLOCO = re.compile(r"^[`:]{3,}\{glue:(math|md)\}\s+(\S+)", re.M)


def _blocos(md):
    """[(tipo, chave)] das fórmulas em display (math) e das tabelas (md) que a página mostra."""
    return [(t, k) for t, k in _BLOCO.findall(md.read_text(encoding="utf-8"))
            if t == "math" or LOCK["book/" + md.stem].get(k, "").lstrip().startswith("|")]


def _segmentos(valores):
    """{chave: o texto que o PDF mostraria dela}: cada trecho que `formas` pede, um por linha."""
    seg = {}
    for chave, v in valores.items():
        linhas = []
        for tipo, t in pc.formas(v):
            linhas += [r for d in t[:1] for r in d] if tipo == "desenhos" else [t]
        seg[chave] = "\n".join(linhas)
    return seg


def _texto(seg, chave=None, antes="", depois=""):
    """O texto do capítulo, com `antes` trocado por `depois` só no trecho de `chave`."""
    return "\n".join(t.replace(antes, depois, 1) if k == chave else t for k, t in seg.items())


def test_diretivas_de_bloco_entram_nos_valores_mostrados(tmp_path):
    md = tmp_path / "qkv.md"
    md.write_text("Texto com {glue}`den5` e {glue:text}`eps:s`.\n\n```{glue:math} eq_ln\n```\n\n"
                  ":::{glue:md} tab_x\n:::\n\n```{glue:figure} fig\n:alt: x\n```\n"
                  "E de outra página: {glue}`bloco.md::eq_h5`.\n", encoding="utf-8")
    lock = {"book/qkv": {"den5": "0,866", "eps": "10⁻⁵", "eq_ln": r"\mathrm{LN}", "tab_x": "| a |\n| --- |\n| 1 |",
                         "fig": "(figura)"},
            "book/bloco": {"eq_h5": "h_5"}}
    assert pc.valores_mostrados(md, lock) == {
        "den5": "0,866", "eps": "10⁻⁵", "eq_ln": r"\mathrm{LN}", "tab_x": "| a |\n| --- |\n| 1 |",
        "fig": "(figura)", "book/bloco::eq_h5": "h_5"}
    md.write_text("```{glue:math} nao_existe\n```\n", encoding="utf-8")
    with pytest.raises(KeyError):
        pc.valores_mostrados(md, lock)


@pytest.mark.parametrize("md", PAGINAS, ids=lambda p: p.stem)
def test_cada_formula_em_display_e_tabela_da_pagina_e_conferida(md):
    """Toda diretiva de bloco da página entra na conta, e cada uma pede números ao PDF."""
    valores = pc.valores_mostrados(md, LOCK)
    for tipo, chave in _blocos(md):
        assert chave in valores, chave
        formas = pc.formas(valores[chave])
        if tipo == "md":
            assert any(t == "celula" for t, _ in formas), chave
        elif re.search(r"\d", valores[chave]):
            assert any(t == "numero" for t, _ in formas), chave


def _planta(seg, chave, numeros):
    """(número, texto com o último dígito dele trocado no trecho da chave), para o primeiro
    número da chave que nenhum outro trecho mostra (senão a troca não seria notável)."""
    for n in numeros:
        outros = pc.normaliza("\n".join(t for k, t in seg.items() if k != chave))
        vezes = re.findall(r"(?<![\d,.])" + re.escape(n) + r"(?![\d]|[,.]\d)", seg[chave])
        if len(n.strip("−-")) < 3 or len(vezes) != 1 or pc._achou(n, outros, re.sub(r"\s", "", outros)):
            continue
        return n, _texto(seg, chave, n, n[:-1] + str((int(n[-1]) + 1) % 10))
    return None, None


@pytest.mark.parametrize("md", [p for p in PAGINAS if _blocos(p)], ids=lambda p: p.stem)
def test_digito_plantado_numa_formula_ou_tabela_e_reportado(md):
    valores = pc.valores_mostrados(md, LOCK)
    seg = _segmentos(valores)
    assert pc.confere_numeros(_texto(seg), valores) == []
    plantados = {}
    for tipo, chave in _blocos(md):
        if tipo in plantados:
            continue                       # uma fórmula e uma tabela por página bastam
        formas = pc.formas(valores[chave])
        nums = [t for k, t in formas if k == "numero"] if tipo == "math" else \
            [x.strip("[];") for k, t in formas if k == "celula" for x in re.split(r"[\s\xa0]+", t)]
        n, errado = _planta(seg, chave, [x for x in nums if re.fullmatch(r"[−-]?\d+(?:[.,]\d+)*", x)])
        if n is None:
            continue
        problemas = pc.confere_numeros(errado, valores)
        assert [p.split(":")[0] for p in problemas] == [chave], (chave, n, problemas)
        plantados[tipo] = chave
    assert plantados, f"{md.stem}: nenhuma fórmula ou tabela com um número só dela"


@pytest.mark.parametrize("chave,tipo", [("eq_h5", "numero"), ("eq_gelu", "numero"), ("tabela_gpt2", "celula")])
def test_digito_plantado_no_passo_5(chave, tipo):
    """Os casos do passo 5: h₅ e a GELU em display, a tabela do GPT-2 small (d = 768, 3.072...)."""
    valores = pc.valores_mostrados(RAIZ / "book" / "bloco.md", LOCK)
    seg = _segmentos(valores)
    assert pc.confere_numeros(_texto(seg), valores) == []
    nums = [t for k, t in pc.formas(valores[chave]) if k == tipo and re.fullmatch(r"[−-]?[\d.,]*\d", t)]
    n, errado = _planta(seg, chave, nums)
    assert n is not None, nums
    problemas = pc.confere_numeros(errado, valores)
    assert [p.split(":")[0] for p in problemas] == [chave] and repr(n) in problemas[0]


def test_pular_as_formulas_falha():
    """Sem os números das fórmulas, um texto sem fórmula nenhuma passaria: não pode."""
    valores = pc.valores_mostrados(RAIZ / "book" / "bloco.md", LOCK)
    so_texto = "\n".join(t for v in valores.values() for k, t in pc.formas(v) if k == "texto")
    problemas = {p.split(":")[0] for p in pc.confere_numeros(so_texto, valores)}
    assert {k for t, k in _blocos(RAIZ / "book" / "bloco.md")} <= problemas


def test_diagrama_com_rotulo_mudado_falha():
    """Um diagrama da página (o mapa do passo 5): os rótulos de um dos desenhos têm de estar no PDF."""
    valores = pc.valores_mostrados(RAIZ / "book" / "bloco.md", LOCK)
    desenhos = pc.formas(valores["mapa"])[0][1]
    assert len(desenhos) == 2 and all(desenhos)                  # o largo e o estreito
    texto = "\n".join(desenhos[0])
    assert pc.confere_numeros(texto, {"mapa": valores["mapa"]}) == []
    rotulo = next(r for r in desenhos[0] if "×" in r)
    sem = texto.replace(rotulo, rotulo.replace("4", "8"))
    assert [p.split(":")[0] for p in pc.confere_numeros(sem, {"mapa": valores["mapa"]})] == ["mapa"]


def test_margens_dos_dois_lados():
    xml = ('<page width="595.92" height="842.88"><word xMin="20.0" yMin="1" xMax="60.0" yMax="2">esquerda</word>'
           '<word xMin="100.0" yMin="1" xMax="200.0" yMax="2">dentro</word></page>')
    n, problemas = pc.margens_do_xml(xml)
    assert n == 1 and len(problemas) == 1 and "'esquerda'" in problemas[0]


def test_numero_no_fim_de_outro_nao_vale():
    """O desvio do passo 3 (0,866) não está num texto que só mostra 10,866 ou 124.439.808 e 808."""
    valores = pc.valores_mostrados(RAIZ / "book" / "qkv.md", LOCK)
    assert valores["den5"] == "0,866"
    assert pc.confere_numeros("um desvio de 10,866", {"den5": valores["den5"]}) != []
    assert pc.confere_numeros("um desvio de 0,866", {"den5": valores["den5"]}) == []
    assert pc.confere_numeros("124.439.808 parâmetros", {"x": "439.808"}) != []
