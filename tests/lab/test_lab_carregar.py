"""O código de carregar de verdade: o cache feito à mão, o tokenizador BPE real e as contas sem pesos."""
import json
import os
import re
import subprocess
import sys

import pytest

from .conftest import LAB, MINUSCULO

# o que o carregamento sem mudança devolve, visto de dentro de um processo novo
SONDA = """
import json
from transformers import AutoTokenizer, GPT2LMHeadModel
m = GPT2LMHeadModel.from_pretrained("gpt2", attn_implementation="eager")
t = AutoTokenizer.from_pretrained("gpt2")
print(json.dumps({"n_embd": m.config.n_embd, "n_layer": m.config.n_layer, "vocab": len(t),
                  "origem": m.config._name_or_path}))
"""


def test_cache_tem_a_estrutura_do_hub(cache_minusculo):
    repo = os.path.join(cache_minusculo["raiz"], "hub", "models--gpt2")
    commit = open(os.path.join(repo, "refs", "main")).read()
    assert re.fullmatch(r"[0-9a-f]{40}", commit)
    assert os.path.basename(cache_minusculo["snapshot"]) == commit
    arquivos = set(os.listdir(cache_minusculo["snapshot"]))
    assert {"config.json", "model.safetensors", "vocab.json", "merges.txt"} <= arquivos


def test_from_pretrained_gpt2_sem_mudanca_carrega_o_minusculo(cache_minusculo):
    r = subprocess.run([sys.executable, "-c", SONDA], env=cache_minusculo["env"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    dados = json.loads(r.stdout.strip().splitlines()[-1])
    assert dados["n_embd"] == MINUSCULO["n_embd"] and dados["n_layer"] == MINUSCULO["n_layer"]
    assert dados["vocab"] == 50257
    assert dados["origem"] == "gpt2"


def test_sem_o_cache_e_offline_o_carregamento_falha(tmp_path):
    """Controle: sem o cache, o mesmo código não acha nada (logo, o teste acima não é de graça)."""
    from livro.gpt2 import cache as gpt2_cache

    env = gpt2_cache.ambiente(str(tmp_path))
    r = subprocess.run([sys.executable, "-c", SONDA], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode != 0


def test_tokenizador_real(minusculo):
    _, tok = minusculo
    assert len(tok) == 50257
    ids = [tok.encode(s) for s in (" the", "the", " The")]
    assert all(len(i) == 1 for i in ids) and len({i[0] for i in ids}) == 3
    pedacos = [tok.decode([i]) for i in tok.encode("Data visualization empowers users to")]
    assert pedacos == ["Data", " visualization", " em", "powers", " users", " to"]
    assert tok.decode(tok.encode("o gato subiu no telhado")) == "o gato subiu no telhado"
    assert tok.eos_token == "<|endoftext|>" and tok.eos_token_id == 50256


def test_arquivos_bpe_sao_os_do_gpt2():
    from livro.gpt2 import contas as gpt2_contas

    encoder, merges = gpt2_contas.arquivos_bpe()
    vocab = json.load(open(encoder, encoding="utf-8"))
    assert len(vocab) == 50257 and vocab["<|endoftext|>"] == 50256
    linhas = open(merges, encoding="utf-8").read().splitlines()
    assert linhas[0].startswith("#version") and len([l for l in linhas[1:] if l]) == 50000


FRASES = ["Data visualization empowers users to", "O gato subiu no telhado.",
          "O cachorro está dormindo ao lado da porta.", "  dois  espaços, números 1234 e çãõ!"]


def test_bpe_leve_da_pagina_igual_ao_transformers(minusculo):
    """A página do livro tokeniza com `tokenizers` puro; tem de dar os mesmos ids."""
    from livro.gpt2 import contas as gpt2_contas

    _, tok = minusculo
    tk = gpt2_contas.bpe_gpt2()
    for f in FRASES + list(gpt2_contas.PROMPTS_CONFIANCA.values()):
        assert tk.encode(f).ids == tok.encode(f), f
        assert gpt2_contas.pedacos(tk, f) == [tok.decode([i]) for i in tok.encode(f)]


def test_contas_pela_formula_batem_com_o_gpt2config():
    """Os números da seção 2 e da página, contados num GPT-2 small de verdade (sem pesos: meta)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from livro.gpt2 import contas as gpt2_contas
    from livro.gpt2 import lab as gpt2_lab

    with torch.device("meta"):
        modelo = GPT2LMHeadModel(GPT2Config())
    contados = gpt2_lab.parametros_modelo(modelo)
    resumo = gpt2_contas.resumo_bloco(contados["pecas"])
    assert resumo["bloco"] == 7_087_872
    assert resumo["atencao"] == 2_362_368
    assert resumo["mlp"] == 4_722_432
    assert resumo["normas"] == 3_072
    assert contados["total"] == 124_439_808
    assert contados["saida_amarrada"]
    # a fórmula, com a configuração de arquitetura.GPT2_SMALL (o que a página usa), dá o mesmo
    formula = gpt2_contas.parametros_formula(gpt2_contas.config_small())
    assert formula["pecas"] == contados["pecas"]
    assert formula["total"] == contados["total"]
    assert gpt2_contas.parametros_formula(GPT2Config()) == formula
    from livro import arquitetura

    assert arquitetura.params_gpt2()["total"] == formula["total"]
    assert arquitetura.params_gpt2()["bloco"] == formula["bloco"]


@pytest.mark.parametrize("cfg", [dict(n_layer=3, n_embd=24, n_head=4, vocab_size=100, n_positions=32),
                                 dict(n_layer=1, n_embd=8, n_head=2, vocab_size=50, n_positions=16, n_inner=20)])
def test_formula_vale_para_outras_formas(cfg):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from livro.gpt2 import contas as gpt2_contas
    from livro.gpt2 import lab as gpt2_lab

    with torch.device("meta"):
        modelo = GPT2LMHeadModel(GPT2Config(**cfg))
    contados = gpt2_lab.parametros_modelo(modelo)
    formula = gpt2_contas.parametros_formula(GPT2Config(**cfg))
    assert contados["pecas"] == formula["pecas"]
    assert contados["total"] == formula["total"]


def test_lab_nao_tem_pesos_nem_caches_soltos():
    """Nada pesado entra no repositório por engano."""
    grandes = [os.path.join(d, n) for d, _, nomes in os.walk(LAB) for n in nomes
               if os.path.getsize(os.path.join(d, n)) > 2_000_000]
    assert not grandes


def test_prompt_do_curso_vem_da_frase_que_o_curso_imprime():
    from livro.gpt2 import contas as gpt2_contas

    prompt = gpt2_contas.PROMPTS_CONFIANCA["era_uma_vez"]
    assert prompt.endswith(", there was a") and not prompt.endswith(" ")
    import pytest

    with pytest.raises(ValueError, match="continuação"):
        gpt2_contas.prompt_do_curso("s8.presidente_top_p")    # valor 1: não está na frase
