"""O brinquedo é um GPT-2 de verdade: os mesmos pesos no GPT2LMHeadModel dão os mesmos números."""
import pytest

from livro import brinquedo as b
from livro import brinquedo_hf as bh

TOL = 1e-12  # float64: o que sobra é só a ordem das somas (medido: cerca de 2e-14)


@pytest.fixture(scope="module")
def gpt2():
    return bh.gpt2_do_brinquedo()


def test_forma_do_gpt2(gpt2):
    c = gpt2.config
    assert (c.n_layer, c.n_embd, c.n_head, c.n_inner, c.vocab_size, c.n_positions) == \
        (1, b.d, b.n_cabecas, b.d_ff, b.V, b.n_ctx)
    assert c.activation_function == "gelu_new" and c.layer_norm_epsilon == b.EPS
    assert not c.tie_word_embeddings
    assert sum(p.numel() for p in gpt2.parameters()) == (
        b.V * b.d + b.n_ctx * b.d                      # E, P
        + 2 * 2 * b.d                                  # ln_1, ln_2 (γ, β)
        + b.d * 3 * b.d + 3 * b.d + b.d * b.d + b.d    # c_attn, c_proj (pesos e vieses zerados)
        + b.d * b.d_ff + b.d_ff + b.d_ff * b.d + b.d   # c_fc, c_proj do MLP
        + 2 * b.d + b.d * b.V)                         # ln_f, lm_head (sem viés)


def test_prompt_igual(gpt2):
    z, a = bh.diferenca(gpt2, b.IDS_PROMPT)
    assert z < TOL and a < TOL
    h = bh.roda(gpt2, b.IDS_PROMPT)
    p = b.modelo(b.IDS_PROMPT)["p"]
    assert max(abs(x - y) for x, y in zip(h["p"][-1], p[-1])) < TOL


def test_sequencias_aleatorias_iguais(gpt2):
    r = bh.compara(gpt2, quantas=300, semente=1)
    assert r["sequencias"] == 301
    assert r["logits"] < TOL, r
    assert r["atencao"] < TOL, r


def test_um_peso_mudado_aparece():
    """Controle: com uma entrada de W_Q mudada em 0,01, a comparação reprova."""
    W_Q = [list(linha) for linha in b.W_Q]
    W_Q[0][0] += 0.01
    z, a = bh.diferenca(bh.gpt2_do_brinquedo(W_Q), b.IDS_PROMPT)
    assert max(z, a) > 1e-6
