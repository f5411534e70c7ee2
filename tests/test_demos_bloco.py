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


def test_marcos_da_derivada_da_gelu():
    m = db.derivada_gelu_marcos()
    assert m["zero"] == pytest.approx(-0.75179, abs=1e-4)
    assert abs(db.derivada_gelu(m["zero"])) < 1e-12
    assert m["zero"] == pytest.approx(db.minimo_gelu()["z"], abs=1e-3)   # zera no mínimo da GELU
    assert all(db.derivada_gelu(z) < 0 for z in (-0.8, -1, -2, -4))     # negativa à esquerda
    assert all(db.derivada_gelu(z) > 0 for z in (-0.7, 0, 0.5))
    assert m["pico"] == pytest.approx(1.12890, abs=1e-4) and m["pico_z"] == pytest.approx(1.41421, abs=1e-4)
    assert all(db.derivada_gelu(z) < m["pico"] for z in (1.3, 1.5, 2, 3))
    assert m["um"] == pytest.approx(-m["zero"], abs=1e-9)               # GELU'(z) + GELU'(-z) = 1
    assert db.derivada_gelu(0.7) < 1 < db.derivada_gelu(0.8)
    assert db.derivada_gelu(1) == pytest.approx(1.0833, abs=1e-4)


def test_raiz_recusa_intervalo_sem_troca_de_sinal():
    with pytest.raises(ValueError, match="mesmo sinal"):
        db.raiz(lambda z: z * z + 1, -1, 1)


def test_larguras_do_mlp():
    r = {l["modelo"]: l["razao"] for l in db.larguras_mlp()}
    assert r["LLaMA 7B"] == pytest.approx(8 / 3, abs=0.03) and r["Llama 2 7B"] == r["LLaMA 7B"]
    assert r["Llama 3 8B"] == 3.5 and r["Gemma 2 9B"] == 4
    assert r["Qwen2-7B"] == pytest.approx(5.29, abs=0.01)


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


# --- números do numpy que a página imprime: longe do ponto de arredondamento -----------------
# O numpy (BLAS) pode somar noutra ordem em outra CPU; o último bit muda. Um número impresso
# com 3 casas só muda se estiver a ~10⁻¹⁵ de um "…5" na 4ª casa. Este teste exige folga de
# 10⁻⁹: assim a página imprime o mesmo em qualquer máquina IEEE.
FOLGA = 1e-9


def _margem(x, casas=3):
    """Distância de x ao ponto mais próximo onde o arredondamento com `casas` casas vira."""
    passo = 10.0 ** -casas
    return abs((float(x) / passo) % 1.0 - 0.5) * passo


def _valores_impressos_pela_pagina():
    demo = db.demo_atencao_sem_mlp()
    pilha = db.pilha_de_atencao(demo["d"], demo["camadas"])
    x = np.random.default_rng(105).normal(size=(demo["n"], demo["d"]))
    y, y2 = db.roda_pilha(x, pilha), db.roda_pilha(2 * x, pilha)
    vals = {"pilha_x1": demo["x1"], "pilha_y1": demo["y1"], "dobro_y5": 2 * y[-1], "y_dobro5": y2[-1],
            "y_neg1": db.roda_pilha(-x, pilha)[0], "pesos_c1": demo["pesos_ultima"][0]}
    for linha in db.tabela_gradientes((1, 5, 10, 20, 40), range(5), d=64):
        vals[f"grad_sem_{linha['L']}"] = [linha["sem"]]
        vals[f"grad_com_{linha['L']}"] = [linha["com"]]
    return vals


def test_numeros_do_numpy_tem_folga_de_arredondamento():
    apertados = [f"{k}: {v!r}" for k, vs in _valores_impressos_pela_pagina().items()
                 for v in np.ravel(vs) if _margem(v) < FOLGA]
    assert apertados == []


def test_margem_acha_o_ponto_de_virada():
    assert _margem(0.1235) < 1e-12 and _margem(0.1234) > 9e-5 and _margem(0.123) > 4.9e-4
