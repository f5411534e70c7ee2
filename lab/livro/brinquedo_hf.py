"""O brinquedo é um GPT-2 de verdade: os pesos de `brinquedo.py` dentro do `GPT2LMHeadModel`.

    from livro import brinquedo_hf as bh
    modelo = bh.gpt2_do_brinquedo()          # um GPT2LMHeadModel com 1 bloco, d = 4, V = 12
    bh.compara(modelo)                       # diferença máxima em logits e pesos de atenção

O GPT-2 da biblioteca `transformers` tem as mesmas peças do brinquedo; só os nomes e a
arrumação dos pesos mudam:

- `wte` e `wpe` são as tabelas E e P;
- `c_attn` guarda W_Q, W_K e W_V lado a lado (Q | K | V), d × 3d;
- `Conv1D` (c_attn, c_proj, c_fc) guarda o peso como (entrada, saída), a mesma orientação
  de `x @ W` no brinquedo: nada é transposto;
- `lm_head` é uma `nn.Linear`, que guarda (saída, entrada): ela recebe W_U transposta;
- o brinquedo não tem vieses e usa γ = 1, β = 0 nas LayerNorms: vieses zerados, ganhos 1;
- a camada de saída do brinquedo é uma matriz própria (W_U ≠ Eᵀ): `tie_word_embeddings=False`.

Tudo em float64, para que a diferença que sobra seja só a ordem das somas.
"""
import random

from livro import brinquedo as b


def _transformers():
    """O módulo transformers, sem o aviso do tqdm sobre barras de progresso no Jupyter."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found")
        import transformers
    return transformers


def config():
    """A configuração do GPT-2 com a forma do brinquedo."""
    GPT2Config = _transformers().GPT2Config

    return GPT2Config(
        vocab_size=b.V, n_positions=b.n_ctx, n_embd=b.d, n_layer=1, n_head=b.n_cabecas,
        n_inner=b.d_ff, activation_function="gelu_new", layer_norm_epsilon=b.EPS,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, tie_word_embeddings=False,
        bos_token_id=b.EOT, eos_token_id=b.EOT,
        attn_implementation="eager",  # a atenção que devolve os pesos A (output_attentions)
    )


def pesos(W_Q=None):
    """{nome do GPT-2: matriz do brinquedo (lista de linhas)}; W_Q pode ser trocada (testes)."""
    W_Q = b.W_Q if W_Q is None else W_Q
    c_attn = [q + k + v for q, k, v in zip(W_Q, b.W_K, b.W_V)]         # (d, 3d): Q | K | V
    return {
        "transformer.wte.weight": b.E,                                  # (V, d)
        "transformer.wpe.weight": b.P,                                  # (n_ctx, d)
        "transformer.h.0.attn.c_attn.weight": c_attn,                   # (d, 3d)
        "transformer.h.0.attn.c_proj.weight": b.W_O,                    # (d, d)
        "transformer.h.0.mlp.c_fc.weight": b.W1,                        # (d, d_ff)
        "transformer.h.0.mlp.c_proj.weight": b.W2,                      # (d_ff, d)
        "lm_head.weight": b.transposta(b.W_U),                          # (V, d): Linear guarda Wᵀ
    }


def gpt2_do_brinquedo(W_Q=None):
    """Um `GPT2LMHeadModel` (float64, atenção "eager") com os pesos do brinquedo."""
    import torch

    modelo = _transformers().GPT2LMHeadModel(config()).double().eval()
    estado = modelo.state_dict()
    with torch.no_grad():
        for nome, p in modelo.named_parameters():
            if nome.endswith(".bias"):
                p.zero_()                                               # β = 0 e nenhum viés
            elif ".ln_" in nome:
                p.fill_(1.0)                                            # γ = 1
        for nome, M in pesos(W_Q).items():
            alvo = estado[nome]
            novo = torch.tensor(M, dtype=torch.float64)
            assert novo.shape == alvo.shape, (nome, tuple(novo.shape), tuple(alvo.shape))
            alvo.copy_(novo)
    assert modelo.lm_head.weight.data_ptr() != modelo.transformer.wte.weight.data_ptr()
    return modelo


def roda_lote(modelo, lote):
    """Várias sequências do mesmo tamanho numa passada só: uma lista de resultados de `roda`."""
    import torch

    with torch.no_grad():
        s = modelo(torch.tensor([list(ids) for ids in lote]), output_attentions=True)
    p = torch.softmax(s.logits, dim=-1)
    return [{"z": s.logits[i].tolist(), "p": p[i].tolist(), "A": s.attentions[0][i].tolist()}
            for i in range(len(lote))]


def roda(modelo, ids):
    """logits (n, V), probabilidades (n, V) e pesos de atenção (cabeças, n, n) do GPT-2."""
    return roda_lote(modelo, [ids])[0]


def _dif(X, Y):
    """A maior diferença absoluta entre duas listas (aninhadas) do mesmo formato."""
    if isinstance(X, (list, tuple)):
        return max(_dif(x, y) for x, y in zip(X, Y))
    return abs(X - Y)


def diferenca(modelo, ids):
    """(dif. máxima nos logits, dif. máxima nos pesos de atenção) entre o GPT-2 e o brinquedo."""
    r, h = b.modelo(ids), roda(modelo, ids)
    return _dif(h["z"], r["z"]), _dif(h["A"], r["A"])


def sequencias(quantas=300, semente=0):
    """Sequências aleatórias de 1 a n_ctx ids (a mesma lista para a mesma semente)."""
    g = random.Random(semente)
    return [[g.randrange(b.V) for _ in range(g.randint(1, b.n_ctx))] for _ in range(quantas)]


def compara(modelo=None, quantas=300, semente=0):
    """O prompt e `quantas` sequências aleatórias: a maior diferença em logits e em atenção.

    O GPT-2 roda as sequências de mesmo tamanho juntas (um lote por tamanho); o brinquedo,
    uma por uma.
    """
    modelo = modelo or gpt2_do_brinquedo()
    seqs = [b.IDS_PROMPT] + sequencias(quantas, semente)
    por_tamanho = {}
    for ids in seqs:
        por_tamanho.setdefault(len(ids), []).append(ids)
    dz = da = 0.0
    for lote in por_tamanho.values():
        for ids, h in zip(lote, roda_lote(modelo, lote)):
            r = b.modelo(ids)
            dz, da = max(dz, _dif(h["z"], r["z"])), max(da, _dif(h["A"], r["A"]))
    return {"sequencias": len(seqs), "logits": dz, "atencao": da}


if __name__ == "__main__":
    r = compara()
    print(f"{r['sequencias']} sequências: logits diferem no máximo {r['logits']:.1e}, "
          f"atenção {r['atencao']:.1e}")
