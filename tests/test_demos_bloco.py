"""As contas da página "Por que o bloco é assim" (lab/livro/demos_bloco.py)."""
import itertools
import math

import numpy as np
import pytest
from livro import brinquedo as b
from livro import demos_bloco as db


# --- 1. atenção sem MLP ------------------------------------------------------
def test_posicao_1_e_uma_matriz():
    r = db.demo_atencao_sem_mlp()
    assert r["dif_M"] < 1e-12


@pytest.mark.parametrize("semente", [0, 1, 2, 3])
def test_posicao_1_linear_para_qualquer_pilha(semente):
    pilha = db.pilha_de_atencao(d=4, camadas=6, semente=semente)
    g = np.random.default_rng(semente)
    x, x2 = g.normal(size=(5, 4)), g.normal(size=(5, 4))
    a, c = 0.7, -1.3
    y = db.roda_pilha(a * x + c * x2, pilha)[0]
    assert np.allclose(y, a * db.roda_pilha(x, pilha)[0] + c * db.roda_pilha(x2, pilha)[0])
    assert np.allclose(y, (a * x[0] + c * x2[0]) @ db.matriz_da_posicao_1(pilha))


def test_pilha_e_impar_na_posicao_1_e_o_mlp_e_par():
    r = db.demo_atencao_sem_mlp()
    assert r["dif_impar"] < 1e-12
    v = [0.3, -1.2, 2.0, -0.1]
    assert db.mlp_do_brinquedo(v) == db.mlp_do_brinquedo([-x for x in v])
    # e o MLP do brinquedo é o do módulo: m = gelu(u') W1 ... W2
    assert np.allclose(db.mlp_do_brinquedo(v), b.mlp([v])[0])


def test_ultima_posicao_nao_e_linear_e_os_pesos_somam_1():
    r = db.demo_atencao_sem_mlp()
    assert r["desvio_dobro"] > 0.01
    for s in r["somas_pesos"]:
        assert s == pytest.approx(1)
    for p in r["pesos_ultima"]:
        assert (p >= 0).all()


# --- 2. GELU -----------------------------------------------------------------
def test_gelu_tanh_e_a_do_brinquedo():
    for z in (-3, -1.1, 0, 0.4, 2.5):
        assert db.gelu_tanh(z) == pytest.approx(b.gelu(z), abs=1e-15)


def test_erro_da_aproximacao_pequeno_mas_nao_zero():
    e = db.erro_da_aproximacao()
    assert 1e-5 < e["erro_max"] < 1e-3
    assert e["pontos"] == 12001


def test_gelu_exata_e_derivada():
    assert db.gelu_exata(0) == 0
    assert db.gelu_exata(10) == pytest.approx(10)
    h = 1e-6
    for z in (-2, -0.5, 0.3, 1.7):
        num = (db.gelu_exata(z + h) - db.gelu_exata(z - h)) / (2 * h)
        assert db.derivada_gelu(z) == pytest.approx(num, abs=1e-6)
    assert db.derivada_gelu(-1) < 0 and db.derivada_relu(-1) == 0


def test_minimo_da_gelu():
    m = db.minimo_gelu()
    assert -0.8 < m["z"] < -0.7 and -0.18 < m["valor"] < -0.16


# --- 3. residual -------------------------------------------------------------
def test_residual_mantem_o_gradiente():
    t = db.tabela_gradientes()
    sem = [l["sem"] for l in t]
    com = [l["com"] for l in t]
    assert all(a > b_ for a, b_ in itertools.pairwise(sem))       # sem residual: cai com L
    assert sem[-1] < 0.2
    assert all(0.5 < c < 2 for c in com)                     # com residual: fica perto de 1


def test_gradiente_confere_com_diferencas_finitas():
    """O produto das jacobianas é a derivada de verdade (uma direção, L = 3)."""
    d, L = 6, 3
    for residual in (False, True):
        g = np.random.default_rng(0)
        x0 = g.normal(size=d)
        Ws = [g.normal(size=(d, d)) / math.sqrt(d) for _ in range(L)]
        w = g.normal(size=d)
        w = w / np.linalg.norm(w)

        def f(x, Ws=Ws, w=w, residual=residual):
            for W in Ws:
                x = x + np.tanh(W @ x) / math.sqrt(L) if residual else np.tanh(W @ x)
            return w @ x

        grad = np.array([(f(x0 + 1e-6 * e) - f(x0 - 1e-6 * e)) / 2e-6 for e in np.eye(d)])
        assert db.gradiente_na_entrada(L, residual, d=d, semente=0) == pytest.approx(
            float(np.linalg.norm(grad)), rel=1e-5)
