"""A página dos embeddings lê o GPT-2 small de lab/arquitetura.py (sem importar o transformers,
que carregaria o torch no build); tests/test_gpt2_config.py confere a cópia campo a campo.
Aqui, o que a página usa além dela: o ε da LayerNorm (o mesmo do brinquedo)."""
import os

import pytest

from livro import brinquedo as b

RAIZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.pesado  # importar o transformers: uns 0,9 s
def test_eps_do_gpt2config():
    from transformers import GPT2Config

    assert GPT2Config().layer_norm_epsilon == b.EPS


def test_pagina_nao_importa_transformers():
    """O build da página não carrega o torch: nenhuma célula importa o transformers."""
    texto = open(os.path.join(RAIZ, "book", "embeddings.md"), encoding="utf-8").read()
    assert "from transformers" not in texto and "import transformers" not in texto
    assert "arq.GPT2_SMALL" in texto
