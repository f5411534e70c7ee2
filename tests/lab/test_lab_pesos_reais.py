"""Os números que o curso mediu no GPT-2 small, conferidos nos pesos de verdade.

Só rodam quando o GPT-2 small já está no cache do Hugging Face desta máquina (o laboratório o
baixa na primeira vez que roda com internet); senão são pulados, com o motivo. Para rodar só
estes: pytest -m pesos_reais tests/lab
"""
import json
import os
import subprocess
import sys

import pytest

from livro.dados import valores_curso
from livro.gpt2 import lab as gl

from .conftest import LAB
from .test_lab_notebook import executa, saida_texto

pytestmark = pytest.mark.pesos_reais

VALORES = valores_curso()
CONFERIVEIS = {k for k, v in VALORES.items() if v["tipo"] != "referencia"}
SECOES = gl.SECOES


def _offline():
    """O ambiente desta máquina (o cache do usuário), sem rede."""
    return dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")


@pytest.mark.parametrize("secao", sorted(SECOES))
def test_secao_confere_com_o_curso(gpt2_real, secao):
    modelo, tok = gpt2_real
    curso = gl.Curso(modelo)
    assert curso.ativo
    curso.confere_tudo(gl.medidas(secao, SECOES[secao](modelo, tok)))
    assert not curso.pulados
    esperadas = {k for k in CONFERIVEIS if VALORES[k]["secao"] == secao}
    assert set(curso.conferidos) == esperadas


def test_invariantes_nos_pesos_reais(gpt2_real):
    modelo, tok = gpt2_real
    r4 = gl.bloco_a_mao_e_a_biblioteca(modelo, tok)
    assert r4["dif_bloco"] < 1e-5 and r4["dif_atencao"] < 1e-5
    r6 = gl.tire_a_atencao(modelo, tok)
    assert r6["dif_sem"] < 1e-6 and r6["perda_sem"] > r6["perda_com"] + 1.0
    r7 = gl.fluxo_em_cada_profundidade(modelo, tok)
    normas = r7["normas"]["normas"]
    assert normas[-1] > 5 * normas[0]                  # o fluxo cresce ao longo da pilha
    r8 = gl.temperatura_e_cache(modelo, tok)
    assert r8["cache_igual"]


def test_notebook_com_os_pesos_reais(gpt2_real):
    texto = saida_texto(executa(_offline()))
    for k in range(1, 10):
        assert f"checkpoint {k} ok" in texto
    assert "comparar com o curso: sim" in texto
    assert "pulados: 0" in texto


def test_05_block_com_os_pesos_reais(gpt2_real, tmp_path):
    saida = tmp_path / "r.json"
    r = subprocess.run([sys.executable, os.path.join(LAB, "05_block.py"), "--so", "1", "3", "4", "5",
                        "--json", str(saida)], env=_offline(), capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = {int(k): v for k, v in json.loads(saida.read_text()).items()}
    assert res[1]["dif_gpt2"] < 1e-5
    assert res[3]["subidas"] >= 10                     # a norma sobe em quase toda passagem
    pos, p = res[4]["posicoes"], res[4]["p"]
    idx = VALORES["s7.profundidades"]["valor"]
    assert gl.dentro([pos[i] for i in idx], VALORES["s7.posicoes"]["valor"], 0.02, rel=True)
    assert gl.dentro([p[i] for i in idx], VALORES["s7.p"]["valor"], 0.002)
    assert res[4]["topo_desde"] == 10                 # posição 1 nos blocos 10, 11 e 12
    assert res[5]["bloco"] == 7_087_872 and res[5]["total"] == 124_439_808
