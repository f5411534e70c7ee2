"""arquitetura.GPT2_SMALL é a configuração do GPT-2 small que as páginas e os widgets leem
(importar transformers custaria segundos por página e não existe no Pyodide); aqui ela é
conferida, campo a campo, contra a própria biblioteca (marca `pesado`: o transformers e o torch
custam segundos; o make check pula)."""
import pytest

from livro import arquitetura as arq

pytestmark = pytest.mark.pesado


def test_igual_a_gpt2config():
    from transformers import GPT2Config

    cfg = GPT2Config()
    g = arq.GPT2_SMALL
    assert g["V"] == cfg.vocab_size
    assert g["n_ctx"] == cfg.n_positions
    assert g["d"] == cfg.n_embd
    assert g["n_camadas"] == cfg.n_layer
    assert g["n_cabecas"] == cfg.n_head
    assert g["n_kv"] == cfg.n_head  # MHA
    assert g["d_ff"] == (cfg.n_inner or 4 * cfg.n_embd)


def test_total_igual_ao_modelo():
    """O total de params_gpt2 é o número de parâmetros do GPT2LMHeadModel (saída amarrada a wte)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    modelo = GPT2LMHeadModel(GPT2Config())
    g, contas = arq.GPT2_SMALL, arq.params_gpt2()
    assert sum(p.numel() for p in modelo.parameters()) == contas["total"]
    assert modelo.lm_head.weight is modelo.transformer.wte.weight  # saída amarrada à wte
    assert tuple(modelo.transformer.wte.weight.shape) == (g["V"], g["d"])
    assert tuple(modelo.transformer.wpe.weight.shape) == (g["n_ctx"], g["d"])
    assert sum(p.numel() for p in modelo.transformer.h[0].parameters()) == contas["bloco"]
