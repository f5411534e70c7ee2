"""Seções 8 e 9 do laboratório: temperatura, top-k, top-p, o cache de KV e a sua decodificação.

A decodificação gulosa escolhe sempre o token mais provável: é o limite de T -> 0, não uma
temperatura (T = 0 dividiria por zero). Aqui ela se pede com `guloso=True`.
"""
import inspect

import torch

from livro.gpt2.base import ids_de
from livro.gpt2.contas import PROMPT, PROMPTS_CONFIANCA

# --------------------------------------------------------------------------- 8. temperatura, top-k, top-p e o cache de KV

def com_temperatura(logits, T):
    """softmax(z / T): T < 1 concentra, T > 1 achata."""
    return torch.softmax(logits / T, dim=-1)


def quantos_para(p, massa=0.9):
    """Quantos dos tokens mais prováveis são precisos para somar `massa`."""
    acumulada = torch.sort(p, descending=True).values.cumsum(dim=-1)
    return int((acumulada < massa).sum()) + 1


def filtra_top_k(logits, k):
    """Mantém os k maiores logits; os outros viram −∞."""
    corte = torch.topk(logits, k).values[..., -1:]
    return logits.masked_fill(logits < corte, float("-inf"))


def filtra_top_p(logits, p):
    """Mantém o menor conjunto dos mais prováveis cuja soma chega a p; os outros viram −∞."""
    ordem = torch.argsort(logits, descending=True)
    probs = torch.softmax(logits[ordem], dim=-1)
    antes = probs.cumsum(dim=-1) - probs          # massa dos que vêm antes de cada um
    fica = antes < p                              # o primeiro sempre fica
    saida = torch.full_like(logits, float("-inf"))
    saida[ordem[fica]] = logits[ordem[fica]]
    return saida


def confere_temperatura(T):
    """T tem de ser positiva: a gulosa não é T = 0, é o limite T -> 0 (guloso=True)."""
    if not T > 0:
        raise ValueError("A temperatura precisa ser maior que zero; para sempre o mais "
                         "provável (o limite T -> 0), use guloso=True.")


def escolhe(logits, T=1.0, k=None, p=None, gerador=None, guloso=False):
    """Escolhe o próximo token: o mais provável (guloso); ou filtra (top-k, top-p) e sorteia."""
    if guloso:
        return int(logits.argmax())
    confere_temperatura(T)
    z = logits / T
    if k is not None:
        z = filtra_top_k(z, k)
    if p is not None:
        z = filtra_top_p(z, p)
    return int(torch.multinomial(torch.softmax(z, dim=-1), 1, generator=gerador))


def _cache_de(saida):
    """O cache de KV de uma saída: `cache` (transformers 5) ou `past_key_values` (4)."""
    c = getattr(saida, "cache", None)
    return c if c is not None else saida.past_key_values


def _passo_com_cache(modelo, ids, cache):
    """Roda só os tokens novos, passando o cache pelo nome que a versão instalada usa."""
    nome = "cache" if "cache" in inspect.signature(modelo.forward).parameters else "past_key_values"
    return modelo(ids, use_cache=True, **{nome: cache})


@torch.no_grad()
def gera(modelo, ids, n, T=1.0, k=None, p=None, semente=0, cache=True, guloso=False):
    """Gera n tokens a partir de ids (1, m). Devolve os ids novos e os logits de cada passo.

    guloso=True: sempre o mais provável (T, k e p não contam).

    Com cache: só o token novo entra em cada passo; K e V das posições anteriores ficam
    guardados. Sem cache: a sequência inteira é recalculada a cada passo.
    """
    g = torch.Generator().manual_seed(semente)
    novos, passos = [], []
    seq = ids
    saida = modelo(ids, use_cache=cache)
    for _ in range(n):
        ultimo = saida.logits[0, -1]                                     # (V,)
        passos.append(ultimo)
        prox = escolhe(ultimo, T, k, p, g, guloso)
        novos.append(prox)
        if len(novos) == n:
            break
        prox_t = torch.tensor([[prox]])                                  # (1, 1)
        seq = torch.cat([seq, prox_t], dim=1)                            # (1, m+1)
        if cache:
            saida = _passo_com_cache(modelo, prox_t, _cache_de(saida))
        else:
            saida = modelo(seq, use_cache=False)
    return novos, torch.stack(passos)                                    # n, (n, V)


@torch.no_grad()
def temperatura_e_cache(modelo, tok, prompt=PROMPT, temperaturas=(0.2, 0.5, 0.8, 1.0, 2.0), n=16):
    """Temperatura, top-k, top-p e o cache de KV, no prompt do curso."""
    ids = ids_de(tok, prompt)                                            # (1, m)
    logits = modelo(ids).logits[0, -1]                                   # (V,)
    topo = int(logits.argmax())
    tabela = []
    for T in temperaturas:
        pt = com_temperatura(logits, T)
        tabela.append({"T": T, "p_topo": float(pt[topo]), "para_90": quantos_para(pt, 0.9),
                       "topo": int(pt.argmax())})
    com, passos_com = gera(modelo, ids, n, guloso=True, cache=True)
    sem, passos_sem = gera(modelo, ids, n, guloso=True, cache=False)
    amostra, _ = gera(modelo, ids, 8, T=1.0, semente=0)                  # T = 1, sem filtro
    return {
        "topo": tok.decode([topo]),
        "tabela": tabela,
        "guloso": tok.decode(com),
        "amostra_T1": tok.decode(amostra),
        "cache_igual": com == sem,
        "dif_cache": float((passos_com - passos_sem).abs().max()),
        "top_k2": int(torch.isfinite(filtra_top_k(logits, 2)).sum()),
        "top_p90": int(torch.isfinite(filtra_top_p(logits, 0.9)).sum()),
        "confianca": {nome: confianca(modelo, tok, texto) for nome, texto in PROMPTS_CONFIANCA.items()},
    }


@torch.no_grad()
def confianca(modelo, tok, prompt, p=0.9):
    """O token mais provável, a sua probabilidade e quantos tokens o top-p mantém."""
    logits = modelo(ids_de(tok, prompt)).logits[0, -1]                   # (V,)
    probs = torch.softmax(logits, dim=-1)
    return {"topo": tok.decode([int(probs.argmax())]), "p_topo": float(probs.max()),
            "top_p": int(torch.isfinite(filtra_top_p(logits, p)).sum())}


# --------------------------------------------------------------------------- 9. sua vez

@torch.no_grad()
def decodifica(modelo, tok, prompt, n=30, T=0.8, k=None, p=0.9, semente=0, guloso=False):
    """Gera n tokens com a decodificação escolhida e devolve o texto e o que cada passo manteve."""
    ids = ids_de(tok, prompt)
    novos, passos = gera(modelo, ids, n, T=T, k=k, p=p, semente=semente, guloso=guloso)
    mantidos = []
    for z, escolhido in zip(passos, novos):
        if guloso:
            mantidos.append({"n": 1, "massa": float(torch.softmax(z, -1).max()),
                             "dentro": escolhido == int(z.argmax())})
            continue
        zz = z / T
        if k is not None:
            zz = filtra_top_k(zz, k)
        if p is not None:
            zz = filtra_top_p(zz, p)
        fica = torch.isfinite(zz)
        massa = float(torch.softmax(z / T, -1)[fica].sum())
        mantidos.append({"n": int(fica.sum()), "massa": massa, "dentro": bool(fica[escolhido])})
    return {"texto": tok.decode(novos), "ids": novos, "mantidos": mantidos}


