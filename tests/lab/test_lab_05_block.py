"""lab/05_block.py, rodado como o aluno roda (um subprocesso), no GPT-2 minúsculo do cache."""
import importlib.util
import json
import math
import os
import subprocess
import sys

import pytest

from .conftest import LAB, MINUSCULO

SCRIPT = os.path.join(LAB, "05_block.py")


def _modulo():
    spec = importlib.util.spec_from_file_location("bloco05", SCRIPT)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.fixture(scope="module")
def execucao(cache_minusculo, tmp_path_factory):
    """Os seis experimentos, do jeito padrão (sem --so), com os resultados gravados em json."""
    saida = tmp_path_factory.mktemp("b05") / "r.json"
    r = subprocess.run([sys.executable, SCRIPT, "--json", str(saida)], env=cache_minusculo["env"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return {"texto": r.stdout, "erro": r.stderr,
            "r": {int(k): v for k, v in json.loads(saida.read_text()).items()}}


def test_roda_os_seis_e_imprime_cada_um(execucao):
    assert sorted(execucao["r"]) == [1, 2, 3, 4, 5, 6]
    for k in range(1, 7):
        assert f"Experimento {k}:" in execucao["texto"]
    assert 'from_pretrained("gpt2")' in execucao["texto"]


def test_1_bloco_do_zero(execucao):
    r = execucao["r"][1]
    assert r["entra"] == r["sai"] == [1, 5, MINUSCULO["n_embd"]]
    # com os pesos do bloco 0, o nosso bloco é o da biblioteca
    assert r["dif_gpt2"] < 1e-5


def test_2_post_ln_para_e_pre_ln_aprende(execucao):
    """O que é verdade: na inicialização os gradientes têm a mesma ordem de grandeza; treinando
    sem warmup, o pós-LN fica no chute uniforme e o gradiente do 1º bloco some."""
    r = execucao["r"][2]
    razao = r["grad_pre_inicio"] / r["grad_post_inicio"]
    assert 0.1 < razao < 10
    assert r["perda_post"] > 0.9 * r["ln_V"]
    assert r["perda_pre"] < r["perda_post"] - 0.5
    assert r["perda_pre"] < 0.8 * r["ln_V"]
    assert r["grad_post_fim"] < 1e-6 * r["grad_post_inicio"]
    assert r["grad_pre_fim"] > 1e-3
    assert "o pós-LN parou no chute uniforme" in execucao["texto"]


def test_3_norma_do_fluxo(execucao):
    r = execucao["r"][3]
    assert len(r["normas"]) == MINUSCULO["n_layer"] + 1
    assert all(v > 0 for v in r["normas"])


def test_4_logit_lens(execucao):
    r = execucao["r"][4]
    assert len(r["posicoes"]) == MINUSCULO["n_layer"] + 1
    assert r["posicoes"][-1] == 1            # no fim, o alvo é o topo
    assert all(p == 1 for p in r["posicoes"][r["topo_desde"]:])
    assert r["topo_desde"] == 0 or r["posicoes"][r["topo_desde"] - 1] > 1
    assert r["dif_final"] < 1e-5             # a ln_f não foi aplicada duas vezes


def test_5_parametros_do_minusculo(execucao):
    from livro.gpt2 import contas as gpt2_contas
    from transformers import GPT2Config

    r = execucao["r"][5]
    f = gpt2_contas.parametros_formula(GPT2Config(**MINUSCULO))
    assert r["pecas"] == f["pecas"]
    assert r["bloco"] == f["bloco"] and r["total"] == f["total"]


def test_6_gelu_contra_relu(execucao):
    r = execucao["r"][6]
    assert r["gelu_min"] == pytest.approx(-0.170, abs=0.002)
    tela = "\n".join(r["tela"])
    assert "o" in tela and "+" in tela and "*" in tela
    # abaixo do eixo só a GELU aparece
    eixo = next(i for i, l in enumerate(r["tela"]) if set(l) <= set("-|*+o ") and l.count("-") > 10)
    abaixo = "".join(r["tela"][eixo + 1:])
    assert "o" in abaixo and "+" not in abaixo


def test_numeros_com_virgula(execucao):
    assert "ln V = 2,77" in execucao["texto"]
    assert "-0,170" in execucao["texto"]


def test_so_6_nao_carrega_o_gpt2(tmp_path):
    """--so 6 (e 2) não precisam do modelo: rodam até sem cache e sem rede."""
    from livro.gpt2 import cache as gpt2_cache

    env = gpt2_cache.ambiente(str(tmp_path))
    r = subprocess.run([sys.executable, SCRIPT, "--so", "6"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Experimento 6" in r.stdout and "Experimento 1" not in r.stdout


def test_5_no_gpt2_small_sem_pesos():
    """O experimento 5 num GPT-2 small criado sem pesos (meta): os números do curso, exatos."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    with torch.device("meta"):
        modelo = GPT2LMHeadModel(GPT2Config())
    r = _modulo().experimento_5(modelo)
    assert r["bloco"] == 7_087_872
    assert r["atencao"] == 2_362_368
    assert r["mlp"] == 4_722_432
    assert r["normas"] == 3_072
    assert r["total"] == 124_439_808
    assert round(100 * r["fracao_mlp"], 1) == 66.6


def test_4_aplicar_ln_f_duas_vezes_daria_outra_coisa(minusculo):
    """O cuidado do logit lens importa: ln_f sobre o último hidden_state muda os logits."""
    import torch

    modelo, tok = minusculo
    ids = torch.tensor([tok.encode("Data visualization empowers users to")])
    with torch.no_grad():
        s = modelo(ids, output_hidden_states=True)
        certo = modelo.lm_head(s.hidden_states[-1][0, -1])
        duas = modelo.lm_head(modelo.transformer.ln_f(s.hidden_states[-1][0, -1]))
    assert float((certo - s.logits[0, -1]).abs().max()) < 1e-5
    assert float((duas - s.logits[0, -1]).abs().max()) > 1e-3


def test_2_pilha_tem_a_forma_certa():
    import torch

    m = _modulo()
    rede = m.Pilha(V=16, d=32, h=4, L=3, n_max=8, pre_ln=False)
    assert rede(torch.zeros(2, 8, dtype=torch.long)).shape == (2, 8, 16)
    assert isinstance(rede.ln_f, torch.nn.Identity)   # o pós-LN já sai normalizado
    x = torch.randn(2, 5, 32)
    # pós-LN: a saída de cada bloco é normalizada (média 0, variância 1 por linha)
    with torch.no_grad():
        y = rede.h[0](x)
    assert float(y.mean(-1).abs().max()) < 1e-5
    assert math.isclose(float(y.var(-1, unbiased=False).mean()), 1.0, rel_tol=1e-3)
