"""Seções 5 a 7 do laboratório: o que as cabeças fazem, tirar a atenção, o logit lens."""
import math
from contextlib import contextmanager

import torch

from livro.gpt2.base import ids_de, mais_provaveis, tensor_da_saida
from livro.gpt2.contas import FRASES_THE, PROMPT, TEXTO_LONGO

# --------------------------------------------------------------------------- 5. o que as cabeças fazem

@torch.no_grad()
def atencoes(modelo, ids):
    """Todos os pesos de atenção: (blocos, cabeças, n, n)."""
    saida = modelo(ids, output_attentions=True)
    return torch.stack([a[0] for a in saida.attentions])                 # (L, cabeças, n, n)


def escore_anterior(A):
    """Atenção média que cada cabeça põe no token anterior (posições 1..n−1): (L, H)."""
    n = A.shape[-1]
    i = torch.arange(1, n)
    return A[..., i, i - 1].mean(dim=-1)


def escore_primeiro(A):
    """Atenção média no primeiro token, sem contar a posição 0 (que só pode olhar para si): (L, H)."""
    return A[..., 1:, 0].mean(dim=-1)


def escore_inducao(A, T):
    """Numa sequência repetida de período T: atenção média da posição i (2ª cópia) em i − T + 1.

    É o token que veio *depois* da ocorrência anterior do token atual: (L, H).
    """
    n = A.shape[-1]
    i = torch.arange(T, n)
    return A[..., i, i - T + 1].mean(dim=-1)


def melhor_cabeca(escore):
    """(bloco, cabeça, valor) da cabeça com o maior escore; blocos e cabeças contados do 0."""
    L, H = escore.shape
    j = int(escore.argmax())
    return j // H, j % H, float(escore.flatten()[j])


def sequencia_repetida(T=50, vocab=None, semente=0):
    """T tokens sorteados ao acaso, repetidos uma vez: (1, 2T)."""
    if vocab is None:  # o vocabulário do GPT-2, lido da configuração padrão
        from transformers import GPT2Config

        vocab = GPT2Config().vocab_size
    g = torch.Generator().manual_seed(semente)
    metade = torch.randint(0, vocab, (T,), generator=g)                  # (T,)
    return torch.cat([metade, metade]).unsqueeze(0)                      # (1, 2T)


@torch.no_grad()
def perdas_por_copia(modelo, ids, T):
    """Perda média na 1ª cópia e na 2ª cópia de uma sequência repetida, e o top-1 na 2ª.

    Conta só os alvos previsíveis por cópia: na 1ª cópia, os alvos 1..T−1; na 2ª, T+1..2T−1
    (o alvo T, o começo da repetição, o modelo não tem como saber).
    """
    logits = modelo(ids).logits[0]                                       # (2T, V)
    logp = torch.log_softmax(logits[:-1], dim=-1)                        # (2T−1, V)
    alvo = ids[0, 1:]                                                    # (2T−1,)
    nats = -logp.gather(1, alvo[:, None])[:, 0]                          # (2T−1,)
    acerto = (logp.argmax(dim=-1) == alvo).float()                       # (2T−1,)
    # a linha j prevê o alvo j+1
    primeira = nats[0:T - 1]
    segunda = nats[T:2 * T - 1]
    return {"primeira": float(primeira.mean()), "segunda": float(segunda.mean()),
            "top1_segunda": float(acerto[T:2 * T - 1].mean()), "ao_acaso": math.log(logits.shape[-1])}


def o_que_as_cabecas_fazem(modelo, tok, texto=TEXTO_LONGO, T=50, semente=0):
    """Escores das três funções em todas as cabeças, e a sequência repetida."""
    A = atencoes(modelo, ids_de(tok, texto))                             # (L, cabeças, n, n)
    ant, pri = escore_anterior(A), escore_primeiro(A)
    rep = sequencia_repetida(T, modelo.config.vocab_size, semente)       # (1, 2T)
    Ar = atencoes(modelo, rep)                                           # (L, cabeças, 2T, 2T)
    ind = escore_inducao(Ar, T)
    return {
        "n_cabecas": ant.numel(),
        "anterior": ant, "primeiro": pri, "inducao": ind,
        "melhor_anterior": melhor_cabeca(ant),
        "melhor_primeiro": melhor_cabeca(pri),
        "melhor_inducao": melhor_cabeca(ind),
        "cabecas_sumidouro": int((pri > 0.5).sum()),
        "copias": perdas_por_copia(modelo, rep, T),
        "soma_linhas": float((A.sum(dim=-1) - 1).abs().max()),
        "acima_diagonal": float(A.triu(diagonal=1).abs().max()),
    }


# --------------------------------------------------------------------------- 6. tirar a atenção

@contextmanager
def sem_atencao(modelo):
    """Zera a saída de toda subcamada de atenção (com ganchos); o resto do modelo fica igual."""
    def zera(modulo, entrada, saida):
        if isinstance(saida, tuple):
            return (torch.zeros_like(saida[0]),) + tuple(saida[1:])
        return torch.zeros_like(saida)

    ganchos = [b.attn.register_forward_hook(zera) for b in modelo.transformer.h]
    try:
        yield modelo
    finally:
        for g in ganchos:
            g.remove()


@torch.no_grad()
def ultima_distribuicao(modelo, tok, texto):
    """A distribuição da última posição: (V,)."""
    return torch.softmax(modelo(ids_de(tok, texto)).logits[0, -1], dim=-1)


@torch.no_grad()
def perda_media(modelo, ids):
    """A perda média de prever cada próximo token de ids (1, n), em nats."""
    logits = modelo(ids).logits[0, :-1]                                  # (n−1, V)
    return float(torch.nn.functional.cross_entropy(logits, ids[0, 1:]))


def tire_a_atencao(modelo, tok, frases=FRASES_THE, texto=TEXTO_LONGO):
    """Com e sem atenção: as duas frases terminadas em "the" e a perda num parágrafo."""
    com = [ultima_distribuicao(modelo, tok, f) for f in frases]
    with sem_atencao(modelo):
        sem = [ultima_distribuicao(modelo, tok, f) for f in frases]
        perda_sem = perda_media(modelo, ids_de(tok, texto))
    perda_com = perda_media(modelo, ids_de(tok, texto))
    return {
        "n_tokens": [len(tok.encode(f)) for f in frases],
        "com": [mais_provaveis(tok, p, 2) for p in com],
        "sem": [mais_provaveis(tok, p, 2) for p in sem],
        "dif_sem": float((sem[0] - sem[1]).abs().max()),
        "dif_com": float((com[0] - com[1]).abs().max()),
        "tokens_texto": len(tok.encode(texto)),
        "perda_com": perda_com,
        "perda_sem": perda_sem,
    }


# --------------------------------------------------------------------------- 7. o fluxo em cada profundidade

@torch.no_grad()
def logit_lens(modelo, ids, alvo=None):
    """Lê o fluxo residual da última posição depois de cada bloco.

    Em cada profundidade aplica ln_f e a wte transposta. Cuidado: na saída da biblioteca o
    último hidden_state já passou pela ln_f; ali ela não é aplicada de novo.
    Devolve, por profundidade (0 = embedding), o token do topo e a posição e a probabilidade
    de `alvo` (por padrão, o token que o modelo inteiro escolhe).
    """
    t = modelo.transformer
    saida = modelo(ids, output_hidden_states=True)
    hs = saida.hidden_states                                             # L+1 × (1, n, d)
    L = len(t.h)
    final = saida.logits[0, -1]                                          # (V,)
    alvo = int(final.argmax()) if alvo is None else alvo
    linhas = []
    for prof, x in enumerate(hs):
        r = x[0, -1]                                                     # (d,)
        if prof < L:
            r = t.ln_f(r)                                                # (d,)
        logits = modelo.lm_head(r)                                       # (V,)
        p = torch.softmax(logits, dim=-1)                                # (V,)
        posicao = int((logits > logits[alvo]).sum()) + 1
        linhas.append({"profundidade": prof, "topo": int(logits.argmax()), "posicao": posicao,
                       "p": float(p[alvo]), "logits": logits})
    return {"alvo": alvo, "linhas": linhas,
            "dif_final": float((linhas[-1]["logits"] - final).abs().max())}


@torch.no_grad()
def normas_residuais(modelo, ids):
    """Norma média do fluxo residual depois de cada bloco (sem a posição 0, o "sumidouro").

    Usa ganchos nos blocos, para ler a saída do último bloco *antes* da ln_f.
    """
    t = modelo.transformer
    saidas = []

    def guarda(modulo, entrada, saida):
        saidas.append(tensor_da_saida(saida).detach())

    ganchos = [b.register_forward_hook(guarda) for b in t.h]
    try:
        hs = modelo(ids, output_hidden_states=True).hidden_states
    finally:
        for g in ganchos:
            g.remove()
    fluxos = [hs[0]] + saidas                                            # L+1 × (1, n, d)
    return {"normas": [float(x[0, 1:].norm(dim=-1).mean()) for x in fluxos],
            "norma_pos0": [float(x[0, 0].norm()) for x in fluxos],
            "confere_hidden": max(float((a - b).abs().max()) for a, b in zip(fluxos[:-1], hs[:-1]))}


PROFUNDIDADES = (0, 3, 6, 8, 9, 10, 11, 12)  # as colunas da tabela do curso


def fluxo_em_cada_profundidade(modelo, tok, texto=PROMPT, profundidades=PROFUNDIDADES):
    """Logit lens no prompt do curso e a norma do fluxo residual em cada profundidade."""
    ids = ids_de(tok, texto)
    lens = logit_lens(modelo, ids)
    L = modelo.config.n_layer
    profs = [p for p in profundidades if p <= L]
    return {"alvo": tok.decode([lens["alvo"]]), "profundidades": profs,
            "posicoes": [lens["linhas"][p]["posicao"] for p in profs],
            "p": [lens["linhas"][p]["p"] for p in profs],
            "topos": [tok.decode([l["topo"]]) for l in lens["linhas"]],
            "todas_p": [l["p"] for l in lens["linhas"]],
            "todas_posicoes": [l["posicao"] for l in lens["linhas"]],
            "dif_final": lens["dif_final"], "normas": normas_residuais(modelo, ids)}


