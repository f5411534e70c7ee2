"""Os exercícios conferidos de "De onde vêm os pesos" (livro.exercicios.treino), o sorteio e a leitura.

Os gabaritos da versão do livro são refeitos por outro caminho (o brinquedo e a diferença finita,
não a volta de livro.treino); os erros típicos das versões sorteadas guardam, com o gabarito, a
relação que os define (o sinal trocado é o oposto, a média esquecida é n vezes...).
"""
import html
import math
import re

import numpy as np
import pytest

from livro import brinquedo as b
from livro import treino as tr
from livro.exercicios import versao
from livro.exercicios.base import Sorteio, Versao, na_borda, sub
from livro.exercicios.confere import conferir, ler_numero, ler_token, ler_vetor
from livro.exercicios.treino import FRASE, FRASE_REPETIDA

SEMENTES = range(1, 61)


def erros(v):
    return {e.nome: e.valor for e in v.erros}


def test_treino_1_livro_e_p_menos_1_da_linha_5():
    ids = b.codificar(FRASE)
    p5 = b.modelo(ids)["p"][4]
    v = versao("treino-1")
    assert v.resposta == pytest.approx(p5[ids[5]] - 1, abs=1e-12) and v.resposta < -0.5
    e = erros(v)
    assert e["sinal trocado"] == pytest.approx(1 - p5[ids[5]], abs=1e-12)
    assert e["esqueceu o −1"] == pytest.approx(p5[ids[5]], abs=1e-12)
    assert e["dividiu pela média"] == pytest.approx((p5[ids[5]] - 1) / 5, abs=1e-12)  # o número da página
    # digitado como um estudante digitaria um negativo
    for texto in (v.resposta_txt, v.resposta_txt.replace("-", "−"), v.resposta_txt.replace(",", "."),
                  " " + v.resposta_txt + " "):
        assert conferir(v, texto)[0] == "certo", texto


@pytest.mark.parametrize("sem", SEMENTES)
def test_treino_1_erros_guardam_a_definicao(sem):
    v = versao("treino-1", sem)
    e, r = erros(v), v.resposta
    assert abs(r) >= 0.01
    if "sinal trocado" in e:
        assert e["sinal trocado"] == pytest.approx(-r, abs=1e-12)
    div = 1
    if "esqueceu a média" in e:
        n = e["esqueceu a média"] / r
        assert n == pytest.approx(round(n), abs=1e-9) and 2 <= round(n) < b.n_ctx
        div = round(n)
        if "dividiu pelos tokens" in e:
            assert e["dividiu pelos tokens"] == pytest.approx(r * div / (div + 1), abs=1e-12)
    if "dividiu pela média" in e:
        n = r / e["dividiu pela média"]
        assert n == pytest.approx(round(n), abs=1e-9) and 2 <= round(n) < b.n_ctx
    if "esqueceu o −1" in e:          # o alvo: p/div contra (p − 1)/div
        assert r < 0 and e["esqueceu o −1"] - r == pytest.approx(1 / div, abs=1e-12)
    if "alvo errado" in e:            # um rival: (p − 1)/div contra p/div
        assert r > 0 and r - e["alvo errado"] == pytest.approx(1 / div, abs=1e-12)


def test_treino_2_livro_um_passo_nos_logits_do_brinquedo():
    ids = b.codificar(FRASE)
    r = b.modelo(ids)
    z, p, alvo = r["z"][4], r["p"][4], ids[5]
    e = [1.0 if j == alvo else 0.0 for j in range(b.V)]
    novo = b.softmax([zj - (pj - ej) for zj, pj, ej in zip(z, p, e)])   # η = 1, a perda só da linha 5
    v = versao("treino-2")
    assert v.resposta == pytest.approx(novo[alvo], abs=1e-12) and v.resposta > p[alvo]
    media = b.softmax([zj - (pj - ej) / 5 for zj, pj, ej in zip(z, p, e)])
    assert erros(v)["com a média"] == pytest.approx(media[alvo], abs=1e-12)
    assert v.tipo == "prob" and conferir(v, f"{100 * v.resposta:.1f}%".replace(".", ","))[0] == "certo"


@pytest.mark.parametrize("sem", SEMENTES)
def test_treino_2_o_passo_certo_sobe_mais_o_alvo(sem):
    """Descer o gradiente sobe o alvo; o sinal trocado o desce; mexer só no logit do alvo sobe menos
    (os rivais não descem)."""
    v = versao("treino-2", sem)
    e = erros(v)
    assert e["sinal trocado"] < v.resposta and e["só o alvo"] < v.resposta
    assert v.resposta >= 0.05


def test_treino_3_livro_e_a_diferenca_finita():
    ids = b.codificar(FRASE_REPETIDA)
    t = b.VOCAB.index(b.ESPACO + "no")
    assert ids.count(t) == 2
    pesos = tr.pesos_do_brinquedo()
    v = versao("treino-3")
    for c in range(b.d):
        assert v.resposta[c] == pytest.approx(tr.diferenca_finita(pesos, ids, "E", t, c), abs=1e-7)
    e = erros(v)
    assert [a + c for a, c in zip(e["só a primeira"], e["só a última"])] == pytest.approx(v.resposta, abs=1e-12)
    assert [2 * x for x in e["a média"]] == pytest.approx(v.resposta, abs=1e-12)


@pytest.mark.parametrize("sem", SEMENTES)
def test_treino_3_a_media_e_a_soma_dividida(sem):
    v = versao("treino-3", sem)
    e = erros(v)
    if "a média" in e:
        k = next(r / m for r, m in zip(v.resposta, e["a média"]) if abs(m) > 1e-9)
        assert round(k) >= 2 and [round(k) * x for x in e["a média"]] == pytest.approx(v.resposta, abs=1e-12)
    assert max(abs(x) for x in v.resposta) >= 0.01


def test_sorteio_cobre_o_intervalo_e_as_escolhas():
    s = Sorteio("treino-1", 7)
    assert {s.inteiro(2, 5) for _ in range(200)} == {2, 3, 4, 5}
    assert {s.escolhe("abc") for _ in range(100)} == set("abc")
    assert sorted(s.amostra(range(6), 6)) == list(range(6))


def test_na_borda_do_arredondamento():
    perto, longe = Versao("", 0.1235, ""), Versao("", 0.1232, "")
    assert na_borda(perto) and not na_borda(longe)
    assert na_borda(Versao("", [0.5, -0.2105], "", tipo="vetor")) and not na_borda(Versao("", [0.5, 0.2], "", tipo="vetor"))
    assert not na_borda(Versao("", 0.1235, "", rel=0.05))


def test_leitura_dos_tokens_e_numeros():
    sofa, chao = b.VOCAB.index(b.ESPACO + "sofá"), b.VOCAB.index(b.ESPACO + "chão")
    for texto in ("␣sofá", " sofá", "sofa\u0301", "SOFÁ", "«sofá»"):
        assert ler_token(texto) == sofa, texto
    assert ler_token("cha\u0303o") == chao and ler_token("␣chão") == chao
    assert ler_numero("−0,605") == -0.605 and ler_numero("1.5") == 1.5
    assert ler_numero("39,5%", porcentagem=True) == pytest.approx(0.395, abs=1e-15)
    assert math.isclose(ler_numero("2e-3"), 0.002)


def test_outras_versoes_variam_o_que_importa():
    """Rivais e alvos, com e sem a média (treino-1); outras taxas (treino-2); quase sempre um token
    repetido, o caso em que as linhas se somam (treino-3)."""
    v1 = [versao("treino-1", s) for s in SEMENTES]
    assert sum(v.resposta > 0 for v in v1) >= 10 and sum(v.resposta < 0 for v in v1) >= 10
    assert sum("esqueceu a média" in erros(v) for v in v1) >= 10 and sum("dividiu pela média" in erros(v) for v in v1) >= 10
    taxas = {re.search(r"η = ([\d,]+)\.", versao("treino-2", s).enunciado).group(1) for s in SEMENTES}
    assert len(taxas) >= 3
    v3 = [versao("treino-3", s) for s in SEMENTES]
    assert sum("a média" in erros(v) for v in v3) >= len(v3) // 2


@pytest.mark.parametrize("id_", ["treino-1", "treino-2", "treino-3", "escala-1"])
def test_a_tolerancia_e_a_do_enunciado_nem_mais_nem_menos(id_):
    """Dentro da tolerância dita, certo; um pouco além dela (uma vez e um décimo), errado."""
    v = versao(id_)

    def desloca(f):
        if v.tipo == "vetor":
            return "[" + "; ".join(repr(x + f * v.tol) for x in v.resposta) + "]"
        return repr(v.resposta * (1 + f * v.rel)) if v.rel else repr(v.resposta + f * v.tol)
    for f in (0.9, -0.9):
        assert conferir(v, desloca(f))[0] == "certo", (id_, f)
    for f in (1.1, -1.1, 1.5):
        assert conferir(v, desloca(f))[0] == "errado", (id_, f)


# ---------------------------------------------------------------------------
# treino-4 a 7 (livro.exercicios.treino_volta): entradas do gradiente. O gabarito é conferido por uma
# conta independente (diferença finita da perda, ou o jacobiano numérico do softmax e da LayerNorm), e
# cada erro típico é refeito à parte, com o erro.
# ---------------------------------------------------------------------------
SUBS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
H = 1e-6


def _caso(v):
    """(ids, linha i de 1 a n) de uma versão: a frase entre «», a linha do rótulo ou do enunciado."""
    ids = b.codificar(re.search(r"«(.+?)»", v.enunciado).group(1))
    m = re.search(r"([₀-₉]+)$", v.rotulo) or re.search(r"Linha (\d+) ", v.rotulo)
    return ids, int(m.group(1).translate(SUBS)) if m else None


def _perda_de_u(pesos, r, ids, u):
    """A perda média da frase refeita a partir da cópia u (x fica): a ida de livro.treino depois da
    primeira LayerNorm, para a diferença finita de ∂L/∂u."""
    h = tr.soma(r["X"], tr.atencao(pesos, u, r["vistos"])["a"])
    y = tr.soma(h, tr.mlp(pesos, tr.LN(h))["m"])
    z = tr.matmul(tr.LN(y), pesos["W_U"])
    return math.fsum(-math.log(tr.softmax(z[k])[ids[k + 1]]) for k in range(len(ids) - 1)) / (len(ids) - 1)


@pytest.mark.parametrize("sem", [None, *SEMENTES[:20]])
def test_treino_4_du_e_a_diferenca_finita_e_a_transposta_esquecida(sem):
    v = versao("treino-4", sem)
    ids, i = _caso(v)
    pesos = tr.pesos_do_brinquedo()
    r = tr.ida(pesos, ids)
    for c in range(b.d):
        u = [linha[:] for linha in r["u"]]
        u[i - 1][c] += H
        mais = _perda_de_u(pesos, r, ids, u)
        u[i - 1][c] -= 2 * H
        assert v.resposta[c] == pytest.approx((mais - _perda_de_u(pesos, r, ids, u)) / (2 * H), abs=1e-8)
    # os três pedaços do enunciado, lidos de volta, e a conta de cada erro com numpy
    d = [np.array(ler_vetor(x, b.d)) for x in re.findall(r"∂L/∂[QKV][₀-₉]+ = (\[[^\]]+\])", v.enunciado)]
    W = [np.array(getattr(b, "W_" + M), dtype=float) for M in "QKV"]
    e = erros(v)
    assert v.resposta == pytest.approx(list(sum(x @ w.T for x, w in zip(d, W))), abs=1e-4)
    if "sem a transposta" in e:
        assert e["sem a transposta"] == pytest.approx(list(sum(x @ w for x, w in zip(d, W))), abs=1e-4)
    if "só o Q" in e:
        assert e["só o Q"] == pytest.approx(list(d[0] @ W[0].T), abs=1e-4)
    if "só o V" in e:
        assert e["só o V"] == pytest.approx(list(d[2] @ W[2].T), abs=1e-4)
    if "sem o V" in e:
        assert e["sem o V"] == pytest.approx(list(d[0] @ W[0].T + d[1] @ W[1].T), abs=1e-4)
    if sem is None:
        assert set(e) == {"sem a transposta", "só o Q", "só o V", "sem o V"}


@pytest.mark.parametrize("sem", [None, *SEMENTES])
def test_treino_5_a_entrada_de_dWU_e_a_diferenca_finita_e_os_erros_do_softmax(sem):
    v = versao("treino-5", sem)
    ids, _ = _caso(v)
    m = re.search(r"na linha (\d+), coluna de <code>(.+?)</code>\?", v.enunciado)
    j, t = int(m.group(1)) - 1, b.VOCAB.index(html.unescape(m.group(2)))
    n = len(ids) - 1
    if sem is None or sem <= 10:
        assert v.resposta == pytest.approx(tr.diferenca_finita(tr.pesos_do_brinquedo(), ids, "W_U", j, t), abs=1e-8)
    r = b.modelo(ids)                        # o brinquedo, não livro.treino
    y, p = [r["y_chapeu"][k][j] for k in range(n)], [r["p"][k][t] for k in range(n)]
    alvo = [ids[k + 1] == t for k in range(n)]
    lidos = re.findall(r"ŷ = (-?[\d,]+), p = ([\d,]+)", v.enunciado)      # os números que o leitor vê
    assert [ler_numero(x) for par in lidos for x in par] == pytest.approx([x for par in zip(y, p) for x in par], abs=5e-5)
    certo = math.fsum(yk * (pk - a) for yk, pk, a in zip(y, p, alvo))
    assert v.resposta == pytest.approx(certo / n, abs=1e-12)
    e = erros(v)
    refeito = {"esqueceu a média": certo, "dividiu pelos tokens": certo / (n + 1),
               "esqueceu o −1": math.fsum(yk * pk for yk, pk in zip(y, p)) / n,
               "−1/p só no alvo": math.fsum(-yk / pk for yk, pk, a in zip(y, p, alvo) if a) / n,
               "só a diagonal do softmax": math.fsum(yk * (pk - 1) for yk, pk, a in zip(y, p, alvo) if a) / n}
    for nome, valor in e.items():
        assert valor == pytest.approx(refeito[nome], abs=1e-12), nome
    if sem is None:
        assert set(e) == set(refeito)


def _jacobiano(f, x):
    """J[k][l] = ∂f_k/∂x_l pela diferença finita central."""
    colunas = []
    for l in range(len(x)):
        mais, menos = list(x), list(x)
        mais[l] += H
        menos[l] -= H
        colunas.append((np.array(f(mais)) - np.array(f(menos))) / (2 * H))
    return np.array(colunas).T


def _numeros(v, rotulo):
    return np.array(ler_vetor(re.search(re.escape(rotulo) + r" = (\[[^\]]+\])", v.enunciado).group(1), len(v.resposta)))


@pytest.mark.parametrize("sem", [None, *SEMENTES])
def test_treino_6_ds_e_o_jacobiano_do_softmax(sem):
    v = versao("treino-6", sem)
    ids, i = _caso(v)
    c = int(re.search(r"na cabeça (\d+)", v.enunciado).group(1)) - 1
    S = [x for x in b.modelo(ids)["S"][c][i - 1][:i]]           # os escores do brinquedo, sem a máscara
    A = b.softmax(S)
    J = _jacobiano(b.softmax, S)
    dA = _numeros(v, "∂L/∂A")
    assert A == pytest.approx(list(_numeros(v, "A")), abs=1e-5)
    assert v.resposta == pytest.approx(list(J.T @ dA), abs=1e-5)
    e = erros(v)
    if "número a número" in e:                                   # só a diagonal do jacobiano
        assert e["número a número"] == pytest.approx(list(np.diag(J) * dA), abs=1e-5)
    if "sem tirar a soma" in e:
        assert e["sem tirar a soma"] == pytest.approx(list(np.array(A) * dA), abs=1e-5)
    if "sem o softmax" in e:
        assert e["sem o softmax"] == pytest.approx(list(dA), abs=1e-5)
    if sem is None:
        assert set(e) == {"número a número", "sem tirar a soma", "sem o softmax"}
    # e a linha de ∂L/∂S leva à de ∂L/∂Q da página: ∂L/∂Q = ∂L/∂S K / √d_h
    pesos = tr.pesos_do_brinquedo()
    r = tr.ida(pesos, ids)
    dQ = tr.volta_atencao(r["u"], r, tr.volta(pesos, r)[1]["dh"], pesos)["QKV"][i - 1][c * b.d_h:(c + 1) * b.d_h]
    K = np.array(r["K"][c][:i])
    assert list(np.array(v.resposta) @ K / math.sqrt(b.d_h)) == pytest.approx(dQ, abs=1e-12)


def _ln(v):
    mu = sum(v) / len(v)
    return [(x - mu) / math.sqrt(sum((x - mu) ** 2 for x in v) / len(v) + b.EPS) for x in v]


@pytest.mark.parametrize("sem", [None, *SEMENTES])
def test_treino_7_dy_e_o_jacobiano_da_layernorm(sem):
    v = versao("treino-7", sem)
    ids, i = _caso(v)
    y = b.modelo(ids)["y"][i - 1]
    g = _numeros(v, f"∂L/∂ŷ{sub(i)}")
    J = _jacobiano(_ln, y)
    assert v.resposta == pytest.approx(list(J.T @ g), abs=1e-4)      # g foi lido com 5 casas
    s = math.sqrt(np.var(y) + b.EPS)
    e = erros(v)
    mu = float(np.mean(y))
    congelados = {"número a número": lambda w: [(x - mu) / s for x in w],          # μ e s fixos: só dividir por s
                  "sem a média": lambda w: [(x - mu) / math.sqrt(sum((z - mu) ** 2 for z in w) / len(w) + b.EPS)
                                            for x in w],                        # μ fixo, s muda com y
                  "sem a escala": lambda w: [(x - sum(w) / len(w)) / s for x in w]}  # s fixo, μ muda com y
    for nome, f in congelados.items():
        if nome in e:
            assert e[nome] == pytest.approx(list(_jacobiano(f, y).T @ g), abs=1e-4), nome
    if "sem dividir por s" in e:
        assert e["sem dividir por s"] == pytest.approx(list(s * (J.T @ g)), abs=1e-4)
    if sem is None:
        pesos = tr.pesos_do_brinquedo()
        r = tr.ida(pesos, ids)
        assert v.resposta == pytest.approx(tr.volta(pesos, r)[1]["dy"][i - 1], abs=1e-15)
        assert set(e) == {"número a número", "sem a média", "sem a escala", "sem dividir por s"}
