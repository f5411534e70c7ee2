"""A escada de dicas dos exercícios dos passos 1 a 5 (issue 55): tokens, embeddings, qkv,
máscaras, bloco (e por_que_bloco, se um exercício de lá estiver em passos.py ou atencao.py).

Toda versão tem duas dicas: a 1ª diz onde olhar; a 2ª dá o primeiro passo com os números da
própria versão, sem dar a resposta. A 2ª é calculada: duas versões de enunciados diferentes têm
segundas dicas diferentes, e o primeiro passo bate com os números do enunciado (recalculados aqui
dos números impressos). O widget mostra uma de cada vez, antes da resolução; "Outra versão" recomeça.

A outra metade dos exercícios (saida, outros, treino, treino_volta) tem o seu próprio teste.
"""
import math
import re
from statistics import fmean

import pytest

from livro import brinquedo as b
from livro.exercicios import EXERCICIOS, versao
from livro.formato import num, vetor
from livro.widgets import api

PAGINAS_DAQUI = ("tokens", "embeddings", "qkv", "mascaras", "bloco", "por_que_bloco")
MODULOS = ("livro.exercicios.passos", "livro.exercicios.atencao")
IDS = [i for i, e in EXERCICIOS.items() if e.pagina in PAGINAS_DAQUI and e.gera.__module__ in MODULOS]
SEMENTES = range(1, 31)


def versoes(id_):
    return [versao(id_)] + [versao(id_, s) for s in SEMENTES]


def _sem_tags(html):
    return re.sub(r"<[^>]+>", "", html)


def ocorrencias(texto, alvo, inteiro):
    """Quantas vezes `alvo` aparece em `texto`; um inteiro só conta inteiro (o 7 de 17 não conta)."""
    if inteiro:
        return len(re.findall(rf"(?<!\d)(?<!\d[.,]){re.escape(alvo)}(?!\d|[.,]\d|º)", texto))
    return texto.count(alvo)


def test_ha_exercicios_daqui():
    paginas = {EXERCICIOS[i].pagina for i in IDS}
    assert {"tokens", "embeddings", "qkv", "mascaras", "bloco"} <= paginas
    assert len(IDS) >= 16


@pytest.mark.parametrize("id_", IDS)
def test_duas_dicas_em_toda_versao(id_):
    for v in versoes(id_):
        assert len(v.dicas) == 2, id_
        d1, d2 = v.dicas
        for d in v.dicas:
            assert d.strip() and len(_sem_tags(d)) >= 30, (id_, d)
            assert "$" not in d and "\\(" not in d and "\\[" not in d, (id_, d)  # sem MathJax: HTML simples
            assert d.count("<code>") == d.count("</code>"), (id_, d)
        assert d1 != d2 and d2 not in v.resolucao, id_


@pytest.mark.parametrize("id_", IDS)
def test_a_segunda_dica_nao_da_a_resposta(id_):
    """O texto da resposta não está na 2ª dica. Num inteiro, ele pode aparecer só se o próprio
    enunciado já o mostra tantas vezes quanto (o 6º token de tokens-2 pode ter o id 6; em qkv-3, com
    12 tokens, a resposta 768 é o d do enunciado). Uma resposta 0 fica de fora (ver abaixo)."""
    for v in versoes(id_):
        inteiro = v.tipo == "inteiro"
        resp = v.resposta_txt
        na_dica = ocorrencias(_sem_tags(v.dicas[1]), resp, inteiro)
        if v.tipo != "vetor" and v.resposta == 0:
            continue  # qkv-1 com x_j = μ: o primeiro passo, x_j − μ, já é 0, e 0 dividido pelo desvio é 0
        if inteiro:
            assert na_dica <= ocorrencias(_sem_tags(v.enunciado), resp, inteiro), (id_, resp, v.dicas[1])
        else:
            assert na_dica == 0, (id_, resp, v.dicas[1])
        if v.tipo == "vetor":  # nem a resposta inteira com outra vírgula, nem sem os colchetes
            assert resp.strip("[]") not in v.dicas[1], (id_, resp)


@pytest.mark.parametrize("id_", IDS)
def test_a_segunda_dica_e_calculada(id_):
    """A 2ª dica muda com os números da versão (a 1ª pode ser a mesma). Duas versões com os mesmos
    números no enunciado e outra frase podem ter a mesma 2ª dica (em embeddings-1, o mesmo último
    token na mesma posição; em mascaras-2, os mesmos escores visíveis e outro futuro), mas quase toda
    versão de números diferentes dos da versão do livro tem outra 2ª dica."""
    vs = versoes(id_)
    por_enunciado = {}
    for v in vs:
        por_enunciado.setdefault(v.enunciado, set()).add(v.dicas[1])
    assert all(len(d) == 1 for d in por_enunciado.values()), id_  # a mesma versão, a mesma dica
    assert len({v.dicas[1] for v in vs}) >= 5, id_
    livro = vs[0]
    outras = [v for v in vs[1:] if _chave(v.enunciado) != _chave(livro.enunciado)]
    assert len(outras) >= 20, id_
    assert sum(v.dicas[1] != livro.dicas[1] for v in outras) >= 0.9 * len(outras), id_


def _chave(enunciado):
    """Os números de um enunciado (sem a frase entre « »), índices incluídos; sem número nenhum
    (tokens-1), a frase."""
    t = re.sub(r"«[^»]*»", "", _sem_tags(enunciado)).translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789"))
    return tuple(re.findall(r"-?\d+(?:[.,]\d+)*", t)) or (enunciado,)


# ---------------------------------------------------------------------------
# O primeiro passo bate com os números do enunciado (relidos do texto impresso)
# ---------------------------------------------------------------------------
def _vetores(html):
    """Os vetores impressos num texto, na ordem: [-0,5; 1,0] -> [-0.5, 1.0]."""
    return [[_float(x) for x in m.split("; ")]
            for m in re.findall(r"\[(-?[\d.]+,\d+(?:; -?[\d.]+,\d+)*)\]", _sem_tags(html))]


def _float(x):
    return float(x.replace("−", "-").replace(".", "").replace(",", "."))


def _numeros(html):
    return [_float(x) for x in re.findall(r"-?[\d.]*\d,\d+", _sem_tags(html))]


def _perto_de_algum(alvo, numeros, tol):
    return any(abs(alvo - x) <= tol for x in numeros)


def _sub(texto):
    """x₅ -> 5 (os índices do enunciado)."""
    return int(texto.translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")))


@pytest.mark.parametrize("semente", [None, *SEMENTES])
def test_qkv_1_a_media_e_o_numero_pedido(semente):
    v = versao("qkv-1", semente)
    x = _vetores(v.enunciado)[0]
    j = int(re.search(r"Calcule o (\d+)º número", v.enunciado).group(1))
    mu = fmean(x)
    assert f"= {num(mu)};" in v.dicas[1]
    assert f"= {num(x[j - 1] - mu)}." in v.dicas[1], (semente, v.dicas[1])


@pytest.mark.parametrize("semente", [None, *SEMENTES])
def test_embeddings_2_as_linhas_de_p(semente):
    v = versao("embeddings-2", semente)
    j, i = (int(n) for n in re.search(r"posição (\d+) e na posição (\d+)", v.enunciado).groups()[::-1])
    assert f"P[{j}] = {vetor(b.P[j - 1], 1)}" in v.dicas[1]
    assert f"P[{i}] = {vetor(b.P[i - 1], 1)}" in v.dicas[1], (semente, v.dicas[1])


@pytest.mark.parametrize("semente", [None, *SEMENTES])
def test_embeddings_1_a_primeira_coordenada(semente):
    v = versao("embeddings-1", semente)
    t, n = (int(g) for g in re.search(r"\(id (\d+)\), na posição (\d+)", v.enunciado).groups())
    e, p = _vetores(v.dicas[1])[:2]
    assert e == list(map(float, b.E[t])) and p == list(map(float, b.P[n - 1])), semente
    assert f"= {num(e[0] + p[0], 1)};" in v.dicas[1]


@pytest.mark.parametrize("semente", [None, *SEMENTES])
def test_mascaras_1_o_produto_escalar(semente):
    v = versao("mascaras-1", semente)
    q, k = _vetores(v.enunciado)[:2]
    qk = sum(a * c for a, c in zip(q, k))
    assert _perto_de_algum(qk, _numeros(v.dicas[1]), 0.01), (semente, v.dicas[1])
    assert f"√{b.d_h}" in v.dicas[1]


@pytest.mark.parametrize("semente", [None, *SEMENTES])
def test_mascaras_2_os_exponenciais_dos_visiveis(semente):
    v = versao("mascaras-2", semente)
    visiveis = _vetores(v.enunciado)[0]
    exps = _vetores(v.dicas[1])[0]
    assert len(exps) == len(visiveis), semente  # só as colunas que a máscara deixa
    assert all(abs(math.exp(s) - e) <= 0.01 * max(1, e) for s, e in zip(visiveis, exps)), semente
    soma = _float(re.search(r"somam (-?[\d.]+,\d+)", v.dicas[1]).group(1))
    assert abs(soma - sum(exps)) <= 0.01, semente


@pytest.mark.parametrize("semente", [None, *SEMENTES])
def test_bloco_1_a_primeira_coordenada(semente):
    v = versao("bloco-1", semente)
    x, a = _vetores(v.enunciado)[:2]
    assert v.dicas[1].startswith(f"O 1º número: {num(x[0], 2)} + "), semente
    assert _perto_de_algum(a[0], _numeros(v.dicas[1]), 1e-9)
    assert _perto_de_algum(x[0] + a[0], _numeros(v.dicas[1]), 0.011)


@pytest.mark.parametrize("semente", [None, *SEMENTES])
def test_bloco_4_a_linha_multiplicada(semente):
    v = versao("bloco-4", semente)
    x = _vetores(v.enunciado)[0]
    f = int(re.search(r"por (\d+)\.", v.enunciado).group(1))
    assert _vetores(v.dicas[1])[0] == [f * c for c in x], semente
    assert f"{f} vezes" in v.dicas[1]


@pytest.mark.parametrize("semente", [None, *SEMENTES])
def test_bloco_2_o_cubo_de_z(semente):
    v = versao("bloco-2", semente)
    z = float(re.search(r"z = (-?\d+,\d+)", v.enunciado).group(1).replace(",", "."))
    assert f"z³ = {num(z ** 3, 4)}" in v.dicas[1] and f"= {num(z + b.K_GELU * z ** 3, 4)}." in v.dicas[1]


# ---------------------------------------------------------------------------
# O widget: uma de cada vez, em ordem, antes da resolução; "Outra versão" recomeça
# ---------------------------------------------------------------------------
def _pede(id_, campos, acao, inst=None):
    r = api.responder({"widget": f"exercicio:{id_}", "campos": campos, "acao": acao, **({"inst": inst} if inst else {})})
    assert "erro" not in r, r
    return r


@pytest.mark.parametrize("id_", IDS)
@pytest.mark.parametrize("semente", ["livro", "7"])
def test_widget_mostra_a_escada(id_, semente):
    v = versao(id_, None if semente == "livro" else int(semente))
    r0 = _pede(id_, {"semente": semente, "dica": "0"}, None)
    assert "data-lx-dica" not in r0["html"] and "dica" not in r0["desligar"]

    r1 = _pede(id_, {"semente": semente, "dica": "0"}, "dica")
    h = r1["html"]
    assert r1["campos"]["dica"] == "1" and 'data-lx-dica="1"' in h and 'data-lx-dica="2"' not in h
    assert v.dicas[0] in h and v.dicas[1] not in h
    assert h.index('data-lx-dica="1"') < h.index("lx-resolucao")
    assert "dica" not in r1["desligar"]

    r2 = _pede(id_, r1["campos"], "dica")
    h = r2["html"]
    assert r2["campos"]["dica"] == "2" and "dica" in r2["desligar"]
    assert h.index('data-lx-dica="1"') < h.index(v.dicas[0]) < h.index('data-lx-dica="2"') < h.index(v.dicas[1]) \
        < h.index("lx-resolucao")

    r3 = _pede(id_, r2["campos"], "dica")  # não há terceira
    assert r3["campos"]["dica"] == "2" and 'data-lx-dica="3"' not in r3["html"]

    r4 = _pede(id_, r2["campos"], "outra", inst="dicas@1")
    assert r4["campos"]["dica"] == "0" and "data-lx-dica" not in r4["html"] and "dica" not in r4["desligar"]
    nova = versao(id_, int(r4["campos"]["semente"]))
    r5 = _pede(id_, r4["campos"], "dica")
    assert nova.dicas[0] in r5["html"] and r5["campos"]["dica"] == "1"
    r6 = _pede(id_, r2["campos"], "livro")
    assert r6["campos"]["dica"] == "0" and "data-lx-dica" not in r6["html"]


@pytest.mark.parametrize("estragado", ["9", "-1", "abc", "1.5", "99999", ""])
def test_widget_dica_estragada_volta_ao_comeco(estragado):
    r = _pede("qkv-1", {"dica": estragado}, "dica")
    assert r["campos"]["dica"] in ("1", "2")
    if estragado != "9":
        assert r["campos"]["dica"] == "1"
