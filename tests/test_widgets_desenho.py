"""O que os widgets desenham: o gráfico da computação, as barras e o calor da atenção.

Os números da tela têm os seus testes (test_widgets_brinquedo.py); aqui, o desenho: um gráfico
de cabeça para baixo, uma barra com o comprimento de outra linha ou linhas fora de ordem
mostram os números certos e o desenho errado. Cada esperado sai de `livro.brinquedo` e
`livro.arquitetura`, chamados direto; o desenho sai do HTML que `livro.widgets` gera.
"""
import re

import pytest

from livro import arquitetura as arq
from livro import brinquedo as b
from livro.formato import num
from livro.widgets import api as w


def _html(nome, campos=None, acao=None, inst=None):
    r = w.responder({"widget": nome, "campos": campos or {}, "acao": acao, "inst": inst})
    assert "erro" not in r, r
    return r["html"]


def _barras(h, n=0):
    """[(rótulo da linha, --p da barra, classe da linha)] da n-ésima tabela de barras, em ordem."""
    tabela = re.findall(r'<table class="lw-barras">(.*?)</table>', h, re.S)[n]
    return [(re.sub(r"<[^>]+>", "", rot).replace("&lt;", "<").replace("&gt;", ">"), float(p), cls or "")
            for cls, rot, p in re.findall(r'<tr(?: class="([^"]*)")?><th scope="row">(.*?)</th>'
                                          r'<td class="lw-barra-cel"><span class="lw-barra" style="--p:([\d.]+)">',
                                          tabela)]


def _tok(i):
    return b.VOCAB[i]


# ---------------------------------------------------------------------------
# O gráfico da computação (escala): perda contra N, com C fixo
# ---------------------------------------------------------------------------
def _grafico(h):
    svg = re.search(r'<svg class="lw-grafico".*?</svg>', h, re.S).group(0)
    curva = [tuple(map(float, p.split(","))) for p in
             re.search(r'<polyline points="([^"]+)"', svg).group(1).split()]
    marcas = {cls: (float(x), float(y)) for x, y, cls in
              re.findall(r'<circle cx="([\d.-]+)" cy="([\d.-]+)" r="4" class="([\w-]+)"', svg)}
    rotulos_y = re.findall(r'<text x="2" y="([\d.-]+)" class="lw-rotulo">([^<]*)</text>', svg)
    rotulos_x = [(float(x), t) for x, t in
                 re.findall(r'<text x="([\d.-]+)" y="\d+" class="lw-rotulo">([^<]*)</text>', svg)]
    return curva, marcas, rotulos_y, rotulos_x


def _y_na_curva(curva, x):
    for (x0, y0), (x1, y1) in zip(curva, curva[1:]):
        if x0 <= x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    raise AssertionError(f"x = {x} fora da curva")


CASOS_COMPUTE = [{}, {"logC": "20"}, {"logC": "26", "logN": "13"}, {"logN": "8", "ajuste": "hoffmann"},
                 {"inferencia": True}, {"inferencia": True, "logS": "15", "logC": "21"}]


@pytest.mark.parametrize("campos", CASOS_COMPUTE, ids=lambda c: " ".join(f"{k}={v}" for k, v in c.items()) or "padrão")
def test_o_minimo_e_o_ponto_mais_baixo_do_grafico(campos):
    """O ponto que o texto chama de mínimo é o mais baixo desenhado (no SVG, y cresce para
    baixo), a "sua escolha" fica sobre a curva, e os rótulos do eixo de N crescem para a direita."""
    c = {**w.funcoes("compute")[0](), **campos}
    h = _html("compute", c)
    curva, marcas, rotulos_y, rotulos_x = _grafico(h)
    assert len(curva) == 61
    xs = [x for x, _ in curva]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)       # N cresce para a direita
    x_min, y_min = marcas["lw-otimo"]
    assert all(y <= y_min + 0.1 for _, y in curva), "há um ponto da curva abaixo do mínimo"
    assert abs(_y_na_curva(curva, x_min) - y_min) <= 0.15        # o mínimo está na curva
    assert min(curva, key=lambda p: -p[1])[0] == pytest.approx(x_min, abs=(xs[1] - xs[0]))
    x_voce, y_voce = marcas["lw-voce"]
    assert abs(_y_na_curva(curva, x_voce) - y_voce) <= 0.15
    # os rótulos do eixo da perda: o maior em cima, o menor (a perda do mínimo) embaixo
    (y_alto, t_alto), (y_baixo, t_baixo) = sorted(((float(y), t) for y, t in rotulos_y))
    aj = {"besiroglu": arq.BESIROGLU_2024, "hoffmann": arq.HOFFMANN_2022}[c["ajuste"]]
    C = 10 ** float(c["logC"])
    ot = arq.otimo_chinchilla(C, aj)
    assert t_baixo == num(ot["perda"], 2)
    assert abs(y_baixo - 4 - y_min) <= 0.15
    assert float(t_alto.replace(",", ".")) > float(t_baixo.replace(",", "."))
    # o eixo de N: potências de 10 em ordem, e o mínimo entre as que cercam N*
    assert [x for x, _ in rotulos_x] == sorted(x for x, _ in rotulos_x)
    if "lw-inferencia" in marcas:
        # a mesma perda do mínimo (mesma altura), com um modelo menor (à esquerda)
        x_inf, y_inf = marcas["lw-inferencia"]
        assert y_inf == pytest.approx(y_min, abs=0.15)
        assert x_inf < x_min - 1


def test_grafico_sua_escolha_acima_do_minimo_longe_dele():
    """Com N longe de N*, a "sua escolha" fica bem acima do mínimo (perda maior)."""
    _, marcas, _, _ = _grafico(_html("compute", {"logN": "8"}))
    assert marcas["lw-voce"][1] < marcas["lw-otimo"][1] - 20
    assert marcas["lw-voce"][0] < marcas["lw-otimo"][0]


# ---------------------------------------------------------------------------
# As barras: ordem e comprimento
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("frase,atencao", [(b.PROMPT, True), (b.PROMPT, False), ("o gato", True)])
def test_barras_da_saida_em_ordem_e_do_tamanho_de_p(frase, atencao):
    h = _html("saida", {"frase": frase, "atencao": atencao})
    ids = b.codificar(frase)
    z = b.modelo(ids, atencao)["z"][-1]
    p = b.softmax(z)
    barras = _barras(h)
    assert len(barras) == b.V
    esperada = [_tok(i) for i in sorted(range(b.V), key=lambda i: (-p[i], -z[i], i))]
    assert [r for r, _, _ in barras] == esperada
    for rot, comp, _ in barras:
        assert comp == pytest.approx(p[b.VOCAB.index(rot)], abs=6e-5), rot
    assert [c for _, c, _ in barras] == sorted((c for _, c, _ in barras), reverse=True)
    assert barras[0][2] == "lw-primeiro" and all(cls == "" for _, _, cls in barras[1:])


def test_barras_da_saida_no_prompt_do_livro():
    """No prompt do livro, a barra mais longa é a de ␣telhado."""
    barras = _barras(_html("saida"))
    assert barras[0][0] == "␣telhado" and barras[0][1] > 2 * barras[1][1]


@pytest.mark.parametrize("campos", [{}, {"T": "2"}, {"T": "0,5", "k": "3"}, {"top_p": "0,9", "u": "0,95"}],
                         ids=lambda c: " ".join(f"{k}={v}" for k, v in c.items()) or "padrão")
def test_barras_do_proximo_em_ordem_e_do_tamanho_de_p_com_T(campos):
    c = {**w.funcoes("proximo")[0](), **campos}
    h = _html("proximo", c)
    from livro.widgets.campos import ler_num
    T = ler_num(c["T"], "T")
    z = b.modelo(b.IDS_PROMPT)["z"][-1]
    k = None if c.get("k") in (None, "") else int(c["k"])
    top_p = None if c.get("top_p") in (None, "") else ler_num(c["top_p"], "top-p")
    u = None if c.get("u") in (None, "") else ler_num(c["u"], "u")
    escolhido, det = b.escolher(z, T, k, top_p, u)
    barras = _barras(h)
    assert [r for r, _, _ in barras] == [_tok(i) for i in b.ranking(det["p"])]
    for rot, comp, cls in barras:
        i = b.VOCAB.index(rot)
        assert comp == pytest.approx(det["p"][i], abs=6e-5), rot
        assert cls == ("lw-escolhido" if i == escolhido else "lw-mantido" if i in det["mantidos"] else "lw-cortado")


@pytest.mark.parametrize("campos", [{}, {"atencao": "mha"}, {"mlp": "relu", "norma": "layernorm", "vieses": True}],
                         ids=lambda c: " ".join(f"{k}={v}" for k, v in c.items()) or "padrão")
def test_barras_do_bloco_sao_as_fracoes_dos_parametros(campos):
    c = {**w.funcoes("config-bloco")[0](), **campos}
    h = _html("config-bloco", c)
    barras = _barras(h)
    assert [r for r, _, _ in barras] == ["MLP", "atenção", "normas"]
    total = re.search(r"<strong>([\d.]+)</strong> parâmetros", h).group(1)
    fracs = [comp for _, comp, _ in barras]
    assert sum(fracs) == pytest.approx(1, abs=2e-4)
    partes = [int(re.search(r"<td>([\d.]+) \(", linha).group(1).replace(".", ""))
              for linha in re.findall(r'<tr[^>]*><th scope="row">(?:MLP|atenção|normas)</th>(.*?)</tr>', h)]
    assert sum(partes) == int(total.replace(".", ""))
    for f, parte in zip(fracs, partes):
        assert f == pytest.approx(parte / sum(partes), abs=6e-5)


@pytest.mark.parametrize("ano", ["2017", "2019", "2026"])
def test_barras_do_bloco_com_as_contas_de_arquitetura(ano):
    """Cada configuração da página (o bloco classe 8B): as frações de arquitetura.py, e a barra
    do MLP é a mais longa."""
    from livro.widgets.escala import CONFIGS_BLOCO

    c = CONFIGS_BLOCO[ano]
    base = arq.CLASSE_8B
    n_kv = base["n_cabecas"] if c["atencao"] == "mha" else base["n_kv"]
    p = arq.params_bloco(base["d"], base["n_cabecas"], n_kv, c["mlp"], c["vieses"], c["norma"])
    barras = _barras(_html("config-bloco", dict(c)))
    assert [comp for _, comp, _ in barras] == pytest.approx(
        [p["frac_mlp"], p["frac_atencao"], p["frac_normas"]], abs=6e-5)
    assert barras[0][1] > barras[1][1] > barras[2][1]


# ---------------------------------------------------------------------------
# O calor da atenção (máscaras): a cor de cada célula é o peso dela
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("causal,cabeca", [(True, "1"), (True, "2"), (False, "1")])
def test_calor_da_atencao_e_o_peso_de_cada_celula(causal, cabeca):
    h = _html("mascaras", {"causal": causal, "cabeca": cabeca})
    A = b.modelo(b.IDS_PROMPT, True, causal)["A"][int(cabeca) - 1]
    tabela = re.findall(r'<table class="lw-matriz">(.*?)</table>', h, re.S)[1]
    linhas = re.findall(r"<tr[^>]*>(.*?)</tr>", re.search(r"<tbody>(.*?)</tbody>", tabela, re.S).group(1), re.S)
    assert len(linhas) == len(A)
    for i, tr in enumerate(linhas):
        celulas = re.findall(r"<td([^>]*)>", tr)
        assert len(celulas) == len(A[i])
        for j, attrs in enumerate(celulas):
            m = re.search(r"--p:([\d.]+)", attrs)
            assert m and float(m.group(1)) == pytest.approx(A[i][j], abs=6e-4), (i, j)
            if causal and j > i:
                assert float(m.group(1)) == 0, (i, j)     # acima da diagonal, peso 0: sem cor
