"""lab/gpt2_config.json é a configuração do GPT-2 small que as páginas leem (importar
transformers custa segundos por página); aqui ela é conferida contra a própria biblioteca."""
import json
import os

RAIZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_igual_a_gpt2config():
    from transformers import GPT2Config

    dados = json.load(open(os.path.join(RAIZ, "lab", "gpt2_config.json"), encoding="utf-8"))
    cfg = GPT2Config()
    campos = [k for k in dados if not k.startswith("_")]
    assert len(campos) >= 9
    for k in campos:
        assert dados[k] == getattr(cfg, k), k
