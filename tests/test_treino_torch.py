"""O gradiente de `livro.treino` contra o autograd do torch (float64).

Marca `pesado`: importar o torch custa uns 2 s de CPU; o `make check` pula, o `make test` roda.
As diferenças finitas (test_treino.py) conferem o mesmo gradiente sem o torch."""
import math
import random

import pytest

from livro import brinquedo as b
from livro import treino as tr

pytestmark = pytest.mark.pesado
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
