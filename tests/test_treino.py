"""O gradiente de `livro.treino` contra diferenças finitas, a árvore do corpus e as bordas
(a comparação com o autograd do torch está em test_treino_torch.py)."""
import math
import random

import pytest

from livro import brinquedo as b
from livro import treino as tr


def test_arvore_do_corpus():
    ids, pos, vistos, alvos = tr.arvore(tr.ids_do_corpus())
    # os prefixos com alvo: "o", "o gato" e "o gato subiu no" uma vez só; 36 linhas viram 16
    assert len(ids) == 16 and sum(len(i) for i, _ in tr.ids_do_corpus()) == 36
    for k, vis in enumerate(vistos):       # cada linha vê os seus prefixos, um de cada tamanho
        assert vis[-1] == k and [pos[j] for j in vis] == list(range(pos[k] + 1))
        assert all(vistos[j] == vis[:m + 1] for m, j in enumerate(vis))
    assert alvos[0] == {2: 8 / 52}              # "o" -> "gato" nas 8 frases; 52 linhas com alvo
    assert sum(sum(a.values()) for a in alvos) == pytest.approx(1.0, abs=1e-15)


def test_perda_do_brinquedo_e_a_do_passo_6():
    ps = b.perdas(b.IDS_PROMPT)
    assert tr.perda(tr.pesos_do_brinquedo(), b.IDS_PROMPT) == pytest.approx(sum(ps) / len(ps), abs=1e-14)


def test_diferencas_finitas_centrais():
    pesos, ids = tr.pesos_aleatorios(3), [0, 2, 4, 5, 1, 6]
    G = tr.gradiente(pesos, ids)
    gerador = random.Random(1)
    for nome in tr.NOMES:
        for _ in range(3):
            i, j = gerador.randrange(len(pesos[nome])), gerador.randrange(len(pesos[nome][0]))
            assert tr.diferenca_finita(pesos, ids, nome, i, j) == pytest.approx(G[nome][i][j], abs=tr.LIMITE_DF)


def test_linha_sem_uso_tem_gradiente_zero():
    G = tr.gradiente(tr.pesos_do_brinquedo(), b.IDS_PROMPT)
    # O token 6 não aparece no prompt: a linha dele em E não recebe nada; P só até a posição 5.
    assert G["E"][6] == [0.0] * b.d and all(v == 0.0 for linha in G["P"][5:] for v in linha)
    assert any(v != 0.0 for v in G["E"][2])


@pytest.mark.parametrize("ids", [[], [3], [0, 12], [0, -1], list(range(9)), "ab", [0, 1.0]])
def test_entrada_ruim_tem_mensagem(ids):
    with pytest.raises(b.ErroToken):
        tr.gradiente(tr.pesos_do_brinquedo(), ids)


def _margem(x, casas=3):
    passo = 10.0 ** -casas
    return abs((x / passo) % 1.0 - 0.5) * passo


def test_vetores_da_pagina_longe_do_arredondamento():
    """Os vetores da linha 5 que a página imprime com 3 casas não estão a 10⁻⁹ de virar."""
    pesos, ids = tr.pesos_do_brinquedo(), b.codificar("o gato subiu no telhado")
    r = tr.ida(pesos, ids)
    G, volta = tr.volta(pesos, r)
    du2 = tr.volta_mlp(r["u2"], r["g"], r["o"], volta["dy"], pesos["W1"], pesos["W2"])["u2"]
    valores = [*volta["dz"][4], *volta["dy_chapeu"][4], *volta["dy"][4], *du2[4], *volta["dh"][4],
               *volta["dX"][4], tr.perda(pesos, ids)]
    valores += [max((v for linha in M for v in linha), key=abs) for M in G.values()]
    assert [v for v in valores if v != 0 and _margem(v) < 1e-9] == []


def test_diferencas_finitas_da_pagina_longe_do_arredondamento():
    """A página imprime a volta e a diferença finita de cinco pesos com 5 casas: as duas longe
    (10⁻⁹) do ponto de virada, para que o ruído de arredondamento da diferença não mude o texto."""
    pesos, ids = tr.pesos_do_brinquedo(), b.codificar("o gato subiu no telhado")
    G = tr.gradiente(pesos, ids)
    for nome, i, j in [("W_U", 1, 6), ("W1", 0, 4), ("W_Q", 3, 1), ("E", 1, 2), ("P", 4, 0)]:
        df = tr.diferenca_finita(pesos, ids, nome, i, j, passo=tr.PASSO_DF)
        assert _margem(G[nome][i][j], 5) > 1e-9 and _margem(df, 5) > 1e-9, nome
        assert abs(df - G[nome][i][j]) < tr.LIMITE_DF


def test_diferencas_finitas_no_pos_ln_e_com_token_repetido():
    """O pós-LN (a volta tem outro caminho) e um token que aparece duas vezes (a linha de E soma as
    duas linhas de ∂L/∂x): a volta confere com a diferença finita."""
    pesos, ids = tr.pesos_aleatorios(5), b.codificar("o gato no muro e no telhado")
    t = ids[2]
    assert ids.count(t) == 2
    for pos_ln in (False, True):
        G = tr.gradiente(pesos, ids, pos_ln)
        gerador = random.Random(2)
        pontos = [(nome, gerador.randrange(len(pesos[nome])), gerador.randrange(len(pesos[nome][0])))
                  for nome in tr.NOMES for _ in range(2)] + [("E", t, c) for c in range(b.d)]
        for nome, i, j in pontos:
            df = tr.diferenca_finita(pesos, ids, nome, i, j, pos_ln=pos_ln)
            assert df == pytest.approx(G[nome][i][j], abs=tr.LIMITE_DF), (pos_ln, nome, i, j)


def test_gradiente_do_corpus_e_a_media_das_frases():
    """A ida e a volta pela árvore de prefixos dão a média das frases, cada uma pesando pelas suas
    linhas com alvo (e pelas vezes que aparece)."""
    pesos, corpus = tr.pesos_aleatorios(4), tr.ids_do_corpus()
    total = sum(v * (len(i) - 1) for i, v in corpus)
    L, G = tr.gradiente_do_corpus(pesos, corpus)
    assert L == pytest.approx(tr.perda_do_corpus(pesos, corpus), abs=1e-13)
    esperado = tr.zeros_como(pesos)
    for ids, vezes in corpus:
        esperado = tr.soma_gradientes(esperado, tr.gradiente(pesos, ids), vezes * (len(ids) - 1) / total)
    for nome in tr.NOMES:
        for lg, le in zip(G[nome], esperado[nome]):
            assert lg == pytest.approx(le, abs=1e-13), nome


def test_piso_do_corpus_pelas_frequencias():
    """O piso: só três começos têm mais de uma continuação ("o gato", "o gato subiu no", "o gato no")."""
    contas = [[6, 2], [3, 2, 1], [1, 1]]
    esperado = sum(c * -math.log(c / sum(cs)) for cs in contas for c in cs) / 52
    assert tr.perda_minima() == pytest.approx(esperado, abs=1e-14)
    assert tr.perda_minima([("o gato.", 3)]) == 0.0
