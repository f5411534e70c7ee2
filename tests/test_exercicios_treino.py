"""Os exercícios conferidos de "De onde vêm os pesos" (livro.exercicios.treino), o sorteio e a leitura.

Os gabaritos da versão do livro são refeitos por outro caminho (o brinquedo e a diferença finita,
não a volta de livro.treino); os erros típicos das versões sorteadas guardam, com o gabarito, a
relação que os define (o sinal trocado é o oposto, a média esquecida é n vezes...).
"""
import math
import re

import pytest

from livro import brinquedo as b
from livro import treino as tr
from livro.exercicios import versao
from livro.exercicios.base import Sorteio, Versao, na_borda
from livro.exercicios.confere import conferir, ler_numero, ler_token
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
