"""Os números do treino saem iguais em qualquer máquina IEEE (e no Pyodide).

As somas de `livro.treino` são exatas (`math.fsum`); o que ainda pode mudar de uma máquina para
outra é o último bit de exp, log e tanh (a libm). Aqui cada uma dessas três funções é trocada por
uma que erra em ±1 ulp ao acaso, e os treinos inteiros rodam de novo: cada número que a página
imprime tem de sair com o mesmo texto, e longe do ponto em que o arredondamento vira.
"""
import math
import random
import types

import pytest

from livro import brinquedo as b
from livro import treino as tr
from livro.formato import num

# A distância ao ponto de virada tem de ser cem vezes a maior mudança vista. A perturbação daqui
# é bem pior que a de uma libm de verdade (que erra o último bit em poucos argumentos, não em dois
# terços das chamadas).
FOLGA = 100


def _libm_perturbada(semente):
    g = random.Random(semente)
    ns = types.SimpleNamespace(**{k: getattr(math, k) for k in dir(math) if not k.startswith("_")})
    for nome in ("exp", "log", "tanh"):
        f = getattr(math, nome)
        setattr(ns, nome, (lambda f: lambda x: f(x) * (1 + g.choice((-1, 0, 1)) * 2.0 ** -52))(f))
    return ns


def _margem(x, casas):
    passo = 10.0 ** -casas
    return abs((x / passo) % 1.0 - 0.5) * passo


def _texto(valor, casas):
    return str(valor) if casas is None else num(valor, casas)


@pytest.fixture(scope="module")
def resumos(request):
    normal = tr.experimentos()
    perturbados = []
    for semente in (1, 2):
        mp = pytest.MonkeyPatch()
        mp.setattr(tr, "math", _libm_perturbada(semente))
        try:
            perturbados.append(tr.experimentos())
        finally:
            mp.undo()
    return normal, perturbados


@pytest.mark.lento
def test_numeros_impressos_nao_dependem_do_ultimo_bit(resumos):
    normal, perturbados = resumos
    R = tr.resumo(normal)
    outros = [tr.resumo(p) for p in perturbados]
    apertados = []
    for chave, (valor, casas) in R.items():
        for O in outros:
            assert _texto(O[chave][0], casas) == _texto(valor, casas), chave
            if casas is not None:
                mudanca = abs(O[chave][0] - valor)
                if _margem(valor, casas) <= FOLGA * mudanca:
                    apertados.append((chave, valor, mudanca))
    assert apertados == []
    # A ordem dos tokens na tabela do treinado também.
    ordem = b.ranking(normal[(tr.TAXA, False)].proximo())
    assert all(b.ranking(p[(tr.TAXA, False)].proximo()) == ordem for p in perturbados)


@pytest.mark.lento
def test_o_salto_do_pos_ln_e_nitido(resumos):
    """No passo do salto, a perda pula muito mais do que qualquer perturbação a mexe."""
    normal, perturbados = resumos
    k = tr.resumo(normal)["pos_salto"][0]
    c = normal[(tr.TAXA_ALTA, True)].curva
    for p in perturbados:
        cp = p[(tr.TAXA_ALTA, True)].curva
        assert max(abs(x - y) for x, y in zip(c[:k + 1], cp[:k + 1])) < 0.01
    assert c[k] > tr.LIMIAR_SALTO and c[k - 1] < 1


@pytest.mark.lento
def test_a_perturbacao_muda_alguma_coisa(resumos):
    """Sem isto o teste acima não provaria nada: as curvas perturbadas diferem das normais."""
    normal, perturbados = resumos
    c = normal[(tr.TAXA, False)].curva
    assert all(p[(tr.TAXA, False)].curva != c for p in perturbados)
    # e depois do salto o pós-LN é caótico: por isso a página não imprime nada dali
    cpos = normal[(tr.TAXA_ALTA, True)].curva
    assert any(abs(p[(tr.TAXA_ALTA, True)].curva[-1] - cpos[-1]) > 1e-4 for p in perturbados)
