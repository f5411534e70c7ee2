"""O gradiente de `livro.treino` contra o autograd do torch (float64) e diferenças finitas."""
import math
import random

import pytest

from livro import brinquedo as b
from livro import treino as tr

torch = pytest.importorskip("torch")


def _torch_perda(P, ids, pos_ln=False):
    """O brinquedo em torch, escrito de novo a partir das equações (não de `treino`)."""
    def ln(x):
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + b.EPS)

    def gelu(z):
        return 0.5 * z * (1 + torch.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z ** 3)))

    def attn(u):
        n = u.shape[0]
        Q, K, V = u @ P["W_Q"], u @ P["W_K"], u @ P["W_V"]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
        outs = []
        for c in range(b.n_cabecas):
            sl = slice(c * b.d_h, (c + 1) * b.d_h)
            S = Q[:, sl] @ K[:, sl].T / math.sqrt(b.d_h)
            A = torch.softmax(S.masked_fill(mask, float("-inf")), -1)
            outs.append(A @ V[:, sl])
        return torch.cat(outs, -1) @ P["W_O"]

    t = torch.tensor(ids)
    X = P["E"][t] + P["P"][: len(ids)]
    if not pos_ln:
        h = X + attn(ln(X))
        y = h + gelu(ln(h) @ P["W1"]) @ P["W2"]
        z = ln(y) @ P["W_U"]
    else:
        h = ln(X + attn(X))
        y = ln(h + gelu(h @ P["W1"]) @ P["W2"])
        z = y @ P["W_U"]
    return torch.nn.functional.cross_entropy(z[:-1], t[1:])


def _torch_grad(pesos, ids, pos_ln=False):
    P = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in pesos.items()}
    L = _torch_perda(P, ids, pos_ln)
    L.backward()
    return L.item(), {k: P[k].grad.tolist() for k in P}


def _dif_max(G, H):
    return max(abs(g - h) for k in G for lg, lh in zip(G[k], H[k]) for g, h in zip(lg, lh))


def _sequencias():
    gerador = random.Random(7)
    seqs = [b.IDS_PROMPT, [0, 2], list(range(8)), [3, 3, 3, 3]]
    for _ in range(8):
        n = gerador.randint(2, b.n_ctx)
        seqs.append([gerador.randrange(b.V) for _ in range(n)])
    return seqs


@pytest.mark.parametrize("pos_ln", [False, True])
@pytest.mark.parametrize("ids", _sequencias())
def test_gradiente_igual_ao_do_torch(ids, pos_ln):
    for pesos in (tr.pesos_do_brinquedo(), tr.pesos_aleatorios(len(ids))):
        L, G = _torch_grad(pesos, ids, pos_ln)
        assert tr.perda(pesos, ids, pos_ln) == pytest.approx(L, abs=1e-12)
        meu = tr.gradiente(pesos, ids, pos_ln)
        assert set(meu) == set(pesos)
        for k in pesos:
            assert [len(meu[k]), len(meu[k][0])] == [len(pesos[k]), len(pesos[k][0])]
        assert _dif_max(meu, G) <= tr.LIMITE_TORCH


def _corpora():
    """O do livro e um com prefixos repetidos, frases curtas e uma frase que é começo de outra."""
    gerador = random.Random(3)
    outro = [([0, 2, 4], 2), ([0, 2, 4, 5, 1], 1), ([0, 2, 1, 8, 10], 3), ([3, 3], 1), ([0, 2, 4], 1)]
    outro += [([0] + [gerador.randrange(b.V) for _ in range(gerador.randint(1, b.n_ctx - 1))], 2)
              for _ in range(4)]
    return [tr.ids_do_corpus(), outro]


@pytest.mark.parametrize("pos_ln", [False, True])
@pytest.mark.parametrize("corpus", _corpora())
def test_gradiente_do_corpus_pela_arvore_igual_ao_do_torch(corpus, pos_ln):
    """Uma ida e uma volta pela árvore de prefixos = a média, pesada pelas linhas com alvo, das
    perdas de cada frase no torch (frase a frase, com a máscara causal de sempre)."""
    total = sum(v * (len(ids) - 1) for ids, v in corpus)
    pesos = tr.pesos_aleatorios(11)
    P = {k: torch.tensor(w, dtype=torch.float64, requires_grad=True) for k, w in pesos.items()}
    L = sum(v * (len(ids) - 1) / total * _torch_perda(P, ids, pos_ln) for ids, v in corpus)
    L.backward()
    meu_L, meu_G = tr.gradiente_do_corpus(pesos, corpus, pos_ln)
    assert meu_L == pytest.approx(L.item(), abs=1e-12)
    assert tr.perda_do_corpus(pesos, corpus, pos_ln) == pytest.approx(meu_L, abs=1e-12)
    assert _dif_max(meu_G, {k: P[k].grad.tolist() for k in P}) <= tr.LIMITE_TORCH


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
