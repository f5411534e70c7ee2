"""A escada de dicas (issue 55) nos exercícios das páginas da saída, do próximo token, fora do caminho e do
treino (lab/livro/exercicios/saida.py, outros.py, treino.py, treino_volta.py).

Cada versão tem duas dicas: a 1ª diz onde olhar, a 2ª dá o primeiro passo com os números da própria versão
(por isso muda quando o enunciado muda) e nunca o gabarito. Pelo widget: "Uma dica" mostra uma de cada vez,
em ordem, antes da resolução; "Outra versão" e "Versão do livro" recomeçam do zero.
"""
import re

import pytest

from livro.exercicios import EXERCICIOS, versao
from livro.exercicios.base import esc
from livro.widgets import api

PAGINAS = {"saida", "proximo_token", "por_que_bloco", "desde_2017", "escala", "laboratorio", "treino"}
IDS = [i for i, e in EXERCICIOS.items() if e.pagina in PAGINAS]
SEMENTES = range(1, 31)
# Onde o gabarito pode aparecer na 2ª dica mais vezes que no enunciado: nenhum (cada 2ª dica foi desenhada
# para parar antes da conta final). Um número que o enunciado já mostra (T = 2 quando a resposta é 2 tokens,
# a probabilidade de um rival quando a derivada dele é p) pode voltar na dica: não entrega nada.
GABARITO_NA_DICA = set()


def _vezes(v, html):
    """Quantas vezes o gabarito aparece no HTML: um token como <code>, um número inteiro dele (0,12 não conta
    dentro de 0,123 nem de 10,12)."""
    if v.tipo == "token":
        return html.count(f"<code>{esc(v.resposta_txt)}</code>")
    return len(re.findall(r"(?<![\d,])" + re.escape(v.resposta_txt) + r"(?![\d])", html))


def _numeros(v):
    """Os números e os tokens do enunciado, em ordem (o texto entre «» fica de fora: duas frases com a mesma
    linha dão os mesmos números, e a mesma dica)."""
    return re.findall(r"-?\d+(?:[,.]\d+)*|<code>.*?</code>", re.sub(r"«[^»]*»", "", v.enunciado))


def test_todos_os_exercicios_das_paginas():
    assert len(IDS) == 20
    assert {"saida-1", "proximo_token-4", "por_que_bloco-1", "escala-2", "laboratorio-1", "treino-7"} <= set(IDS)


@pytest.mark.parametrize("id_", IDS)
def test_duas_dicas_em_cada_versao(id_):
    livro = versao(id_)
    for semente in [None, *SEMENTES]:
        v = versao(id_, semente)
        assert len(v.dicas) == 2, (id_, semente)
        assert all(d.strip() and "<script" not in d for d in v.dicas), (id_, semente)
        assert v.dicas[0] != v.dicas[1], (id_, semente)
        if id_ not in GABARITO_NA_DICA:
            assert _vezes(v, v.dicas[1]) <= _vezes(v, v.enunciado), (id_, semente, v.resposta_txt, v.dicas[1])
        if _numeros(v) != _numeros(livro):   # a 2ª dica usa os números da versão
            assert v.dicas[1] != livro.dicas[1], (id_, semente)


@pytest.mark.parametrize("id_", IDS)
def test_a_segunda_dica_muda_com_a_versao(id_):
    vs = [versao(id_, s) for s in SEMENTES]
    pares = [(a, c) for a in vs for c in vs if _numeros(a) != _numeros(c)]
    assert pares, id_
    iguais = [(_numeros(a), a.dicas[1]) for a, c in pares if a.dicas[1] == c.dicas[1]]
    assert not iguais, (id_, iguais[:1])
    assert len({v.dicas[1] for v in vs}) >= 3, id_


def _pede(id_, acao, campos):
    r = api.responder({"widget": f"exercicio:{id_}", "campos": campos, "acao": acao, "inst": "t@1"})
    assert "erro" not in r, r
    return r


@pytest.mark.parametrize("id_", IDS)
def test_o_widget_sobe_a_escada(id_):
    v = versao(id_)
    r0 = _pede(id_, None, {})
    assert "data-lx-dica" not in r0["html"] and r0["campos"]["dica"] == "0"
    r1 = _pede(id_, "dica", {"dica": "0"})
    h = r1["html"]
    assert r1["campos"]["dica"] == "1" and 'data-lx-dica="1"' in h and 'data-lx-dica="2"' not in h
    assert v.dicas[0] in h and v.dicas[1] not in h
    assert h.index('data-lx-dica="1"') < h.index("lx-resolucao")
    assert "dica" not in r1["desligar"]
    r2 = _pede(id_, "dica", dict(r1["campos"]))
    h = r2["html"]
    assert r2["campos"]["dica"] == "2" and "dica" in r2["desligar"]
    assert h.index('data-lx-dica="1"') < h.index('data-lx-dica="2"') < h.index("lx-resolucao")
    assert h.index(v.dicas[0]) < h.index(v.dicas[1])
    # mais um clique não passa da última
    assert _pede(id_, "dica", dict(r2["campos"]))["campos"]["dica"] == "2"
    # outra versão recomeça, com as dicas dela
    r3 = _pede(id_, "outra", dict(r2["campos"]))
    assert r3["campos"]["dica"] == "0" and "data-lx-dica" not in r3["html"]
    outra = versao(id_, int(r3["campos"]["semente"]))
    r4 = _pede(id_, "dica", dict(r3["campos"]))
    assert outra.dicas[0] in r4["html"] and outra.dicas[1] not in r4["html"]
    r5 = _pede(id_, "livro", dict(r4["campos"]))
    assert r5["campos"]["dica"] == "0" and "data-lx-dica" not in r5["html"]
