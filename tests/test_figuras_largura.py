"""As figuras de lab/paginas.py cabem na coluna de um celular (358 px a 390 px de tela) sem
encolher: o PNG do build (100 pontos por polegada, bbox justo) tem no máximo 350 px de largura,
mesmo com título longo, rótulos longos ou um tamanho pedido maior."""
import io

import pytest
from test_figuras_svg import tamanho_png


matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("agg")

from livro import paginas as pg  # noqa: E402

COLUNA = 350  # px: a coluna de 358 px, com folga


def _largura(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")  # como o PNG do build
    return tamanho_png(buf.getvalue())


TOKENS = ["␣telhado", "␣muro", "␣sofá", "␣chão", "␣gato", "␣e", "o", "<|endoftext|>", "␣no", "␣sub", "iu", "."]
P1 = [0.395, 0.141, 0.089, 0.086, 0.062, 0.057, 0.054, 0.041, 0.035, 0.023, 0.013, 0.003]
P2 = [0.143, 0.014, 0.004, 0.014, 0.455, 0.010, 0.014, 0.007, 0.000, 0.137, 0.095, 0.108]


def test_mapa_largo_pedido_cabe_e_o_texto_nao_some():
    rot = ["1 o", "2 ␣gato", "3 ␣sub", "4 iu", "5 ␣no"]
    M = [[0.969 if j <= i else 0.0 for j in range(5)] for i in range(5)]
    fig = pg.figura_mapa(M, rot, rot, tamanho_fig=(4.4, 3.6), casas=3, tamanho=11,
                         titulo="cabeça 1: $A^{(1)}$", xlabel="olha para (chave)",
                         ylabel="quem pergunta (consulta)", girar_x=True)
    w, _ = _largura(fig)
    assert w <= COLUNA
    tamanhos = [t.get_fontsize() for t in fig.axes[0].texts]
    assert min(tamanhos) >= 8.5  # diminuído para caber na célula, nunca abaixo de 8,5 pt
    assert max(tamanhos) < 11  # "0,969" não cabia a 11 pt numa célula de ~50 px


def test_mapa_estreito_fica_como_pedido():
    fig = pg.figura_mapa([[1.0, -2.0], [0.5, 0.0]], ["a", "b"], ["1", "2"], tamanho_fig=(2.5, 2.0),
                         casas=1, tamanho=11)
    assert fig.get_figwidth() == 2.5
    assert {t.get_fontsize() for t in fig.axes[0].texts} == {11}


def test_barras_com_titulo_longo_cabem():
    fig = pg.barras_probabilidades(TOKENS, [P1, P2], nomes=["com atenção", "sem atenção"],
                                   titulo="Última linha de p: o que vem depois de \"o gato subiu no\"?")
    w, _ = _largura(fig)
    assert w <= COLUNA
    assert "\n" in fig._suptitle.get_text()  # o título foi quebrado


def test_colunas_e_faixa_cabem():
    fig = pg.colunas_agrupadas(TOKENS, [P1, P2, P1], nomes=["T = 0,5", "T = 1", "T = 2"],
                               titulo="A última linha em três temperaturas")
    assert _largura(fig)[0] <= COLUNA
    q = [0.626, 0.144, 0.074, 0.071, 0.044, 0.040]
    fig = pg.faixa_do_sorteio(TOKENS[:6], q, [(0.5, "u = 0,5"), (0.8, "u = 0,8")],
                              titulo="T = 0,7, top-p 0,9: a faixa do sorteio")
    assert _largura(fig)[0] <= COLUNA


def test_quebra_titulo_nao_parte_matematica():
    t = pg._quebra_titulo("um título bem comprido com uma fórmula $+\\ P[1..5]$ no meio dele todo", 2.0)
    assert "\n" in t
    assert all(linha.count("$") % 2 == 0 for linha in t.split("\n"))
