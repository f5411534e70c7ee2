"""Peças dos testes do laboratório do GPT-2.

Sem rede e sem os pesos do GPT-2, os testes montam um GPT-2 minúsculo (V = 50.257 com o
tokenizador de verdade, 2 blocos, d = 16, 2 heads) num cache do Hugging Face temporário, com a
mesma estrutura do hub (models--gpt2/snapshots/<hash>/, refs/main). Com HF_HUB_CACHE apontando
para ele e HF_HUB_OFFLINE=1, o `from_pretrained("gpt2")` dos scripts, sem mudança, carrega
esse modelo.

Os testes marcados `pesos_reais` conferem os números do curso e só rodam quando o GPT-2 small
de verdade já está no cache do Hugging Face desta máquina (senão, são pulados com o motivo).
"""
import glob
import os

import pytest

RAIZ = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB = os.path.join(RAIZ, "lab")

# o GPT-2 minúsculo; pesos com desvio 0,3 para que as ativações sejam da ordem de 1
# (com o 0,02 do GPT-2, tudo seria tão pequeno que qualquer diferença passaria por zero), e
# ruído nos vieses e nas LayerNorms (que nascem 0 e 1), para que esquecê-los apareça
MINUSCULO = dict(n_layer=2, n_embd=16, n_head=2, n_positions=128, initializer_range=0.3)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "pesos_reais: compara com os números do curso; só roda com o GPT-2 small no cache")


@pytest.fixture(scope="session")
def cache_minusculo(tmp_path_factory):
    """O cache temporário com o GPT-2 minúsculo: {'raiz', 'snapshot', 'env'}."""
    from livro.gpt2 import cache as gpt2_cache
    from transformers import GPT2Config

    raiz = str(tmp_path_factory.mktemp("hf"))
    env = gpt2_cache.monta_cache(raiz, GPT2Config(**MINUSCULO), desvio_extra=0.3)
    # matrizes pequenas: uma thread por processo evita brigas pela CPU nos subprocessos
    env["OMP_NUM_THREADS"] = "1"
    (snapshot,) = glob.glob(os.path.join(raiz, "hub", "models--gpt2", "snapshots", "*"))
    return {"raiz": raiz, "snapshot": snapshot, "env": env}


@pytest.fixture(scope="session")
def minusculo(cache_minusculo):
    """(modelo, tok) do GPT-2 minúsculo, carregados neste processo pela pasta do snapshot."""
    from livro.gpt2 import lab as gpt2_lab

    return gpt2_lab.carrega(cache_minusculo["snapshot"])


@pytest.fixture(scope="session")
def gpt2_real():
    """(modelo, tok) do GPT-2 small de verdade, se ele já estiver no cache desta máquina."""
    from huggingface_hub import try_to_load_from_cache

    caminho = try_to_load_from_cache("gpt2", "model.safetensors")
    if not isinstance(caminho, str):
        pytest.skip("o GPT-2 small não está no cache do Hugging Face desta máquina "
                    "(rode o laboratório uma vez com internet para baixá-lo)")
    from livro.gpt2 import lab as gpt2_lab

    modelo, tok = gpt2_lab.carrega(os.path.dirname(caminho))
    if not gpt2_lab.pesos_reais(modelo):
        pytest.skip("o 'gpt2' do cache não tem a forma do GPT-2 small")
    return modelo, tok
