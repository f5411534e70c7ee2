"""As funções das nove seções (lab/livro/gpt2/*.py, reunidas em gpt2_lab), no GPT-2 minúsculo, e as
peças com conta à mão."""
import math
import os

import pytest
import torch

from livro.gpt2 import caminho as gpt2_caminho
from livro.dados import valores_curso
from livro.gpt2 import lab as gl

from .conftest import LAB, MINUSCULO


@pytest.fixture(scope="module")
def resultados(minusculo):
    modelo, tok = minusculo
    return {k: f(modelo, tok) for k, f in gl.SECOES.items()}


# ------------------------------------------------------------------ 1. tokens

def test_1_tokens(resultados):
    r = resultados[1]
    assert r["pedacos"] == ["Data", " visualization", " em", "powers", " users", " to"]
    assert r["vocabulario"] == 50257
    assert len({tuple(i) for i in r["ids_the"]}) == 3
    assert r["gato"] == [" g", "ato"] and len(r["cachorro"]) == 4
    for en, pt in r["razoes"]:           # o português custa mais tokens por palavra
        assert pt > 1.5 * en


# ------------------------------------------------------------------ 2. parâmetros

def test_2_parametros(resultados, minusculo):
    r = resultados[2]
    assert r["contados"]["pecas"] == r["formula"]["pecas"]
    assert r["contados"]["total"] == r["formula"]["total"]
    modelo, _ = minusculo
    assert r["contados"]["total"] == sum(p.numel() for p in modelo.parameters())
    assert r["small"]["bloco"] == 7_087_872 and r["small"]["total"] == 124_439_808


# ------------------------------------------------------------------ 3. formas

def test_3_formas(resultados):
    r = resultados[3]
    n, d, L = 6, MINUSCULO["n_embd"], MINUSCULO["n_layer"]
    etapas = dict(r["etapas"])
    assert etapas["ids"] == (1, n)
    assert etapas["wte"] == etapas["wpe"] == (1, n, d)
    assert all(etapas[f"bloco {i + 1}"] == (1, n, d) for i in range(L))
    assert etapas["logits"] == (1, n, 50257)
    assert etapas["softmax da última linha"] == (50257,)
    assert abs(r["soma"] - 1) < 1e-5
    linhas = r["posicoes"]["linhas"]
    assert len(linhas) == n and "nats" not in linhas[-1]
    for l in linhas[:-1]:
        assert l["nats"] == pytest.approx(-math.log(l["p_certo"]), rel=1e-4)
    assert r["posicoes"]["perda"] == pytest.approx(sum(l["nats"] for l in linhas[:-1]) / (n - 1))


def test_3_perda_igual_a_da_biblioteca(minusculo, resultados):
    modelo, tok = minusculo
    ids = gl.ids_de(tok, gl.PROMPT)
    with torch.no_grad():
        ref = float(modelo(ids, labels=ids).loss)
    assert resultados[3]["posicoes"]["perda"] == pytest.approx(ref, abs=1e-5)


# ------------------------------------------------------------------ 4. bloco à mão

def test_4_bloco_a_mao_igual_a_biblioteca(resultados):
    r = resultados[4]
    assert r["escala_logits"] > 1          # ativações de verdade, não quase zero
    assert r["dif_bloco"] < 1e-5
    assert r["dif_atencao"] < 1e-5
    assert r["dif_logits"] < 1e-5 * max(1.0, r["escala_logits"])
    d, h = MINUSCULO["n_embd"], MINUSCULO["n_head"]
    assert [f for _, f in r["formas"]] == [(6, d), (h, 6, d // h), (h, 6, 6), (6, d), (6, 4 * d), (6, d)]


def test_4_um_erro_no_bloco_aparece(minusculo, monkeypatch):
    """Controle: com a GELU exata (erf) no lugar da do GPT-2, a diferença passa de 1e-5."""
    modelo, tok = minusculo
    monkeypatch.setattr(gpt2_caminho, "gelu", lambda x: torch.nn.functional.gelu(x))
    r = gl.bloco_a_mao_e_a_biblioteca(modelo, tok)
    assert r["dif_bloco"] > 1e-5


def test_4_sem_mascara_a_diferenca_aparece(minusculo, monkeypatch):
    modelo, tok = minusculo
    monkeypatch.setattr(gpt2_caminho, "mascara_causal", lambda n: torch.zeros(n, n))
    r = gl.bloco_a_mao_e_a_biblioteca(modelo, tok)
    assert r["dif_atencao"] > 1e-3 and r["dif_bloco"] > 1e-5


def test_4_imprime_as_seis_formas(minusculo, capsys):
    modelo, tok = minusculo
    gl.bloco_a_mao_e_a_biblioteca(modelo, tok, mostra=True)
    linhas = [l for l in capsys.readouterr().out.splitlines() if "×" in l]
    assert len(linhas) == 6


def test_4_pecas_a_mao():
    x = torch.tensor([[1.0, 2.0, 3.0, 6.0]])
    ln = torch.nn.LayerNorm(4)
    with torch.no_grad():
        ln.weight.copy_(torch.tensor([1.0, 2.0, 1.0, 0.5]))
        ln.bias.copy_(torch.tensor([0.0, 1.0, 0.0, -1.0]))
        assert torch.allclose(gl.layernorm(x, ln, 1e-5), ln(x), atol=1e-6)
        # média 3, variância 3,5: o primeiro elemento normalizado é −2/√3,5
        assert float(gl.layernorm(x, ln, 0.0)[0, 0]) == pytest.approx(-2 / math.sqrt(3.5), abs=1e-6)
    z = torch.linspace(-4, 4, 81)
    assert torch.allclose(gl.gelu(z), torch.nn.functional.gelu(z, approximate="tanh"), atol=1e-6)
    assert float(gl.gelu(torch.tensor(1.0))) == pytest.approx(0.8412, abs=1e-4)
    s = torch.tensor([[0.0, math.log(3.0)]])
    assert torch.allclose(gl.softmax(s), torch.tensor([[0.25, 0.75]]))
    m = gl.mascara_causal(3)
    assert torch.isinf(m[0, 1]) and m[1, 0] == 0 and m[2, 2] == 0


# ------------------------------------------------------------------ 5. cabeças

def test_5_cabecas(resultados):
    r = resultados[5]
    L, H = MINUSCULO["n_layer"], MINUSCULO["n_head"]
    assert r["n_cabecas"] == L * H
    assert r["anterior"].shape == r["primeiro"].shape == r["inducao"].shape == (L, H)
    assert r["soma_linhas"] < 1e-5 and r["acima_diagonal"] == 0.0
    b, h, v = r["melhor_inducao"]
    assert float(r["inducao"][b, h]) == v == float(r["inducao"].max())
    c = r["copias"]
    assert c["ao_acaso"] == pytest.approx(math.log(50257))
    assert 0 <= c["top1_segunda"] <= 1


def test_5_escores_numa_atencao_feita_a_mao():
    n, T = 8, 4
    anterior = torch.zeros(1, 1, n, n)
    anterior[0, 0, 0, 0] = 1
    for i in range(1, n):
        anterior[0, 0, i, i - 1] = 1
    assert float(gl.escore_anterior(anterior)) == 1.0
    assert float(gl.escore_primeiro(anterior)) == pytest.approx(1 / (n - 1))
    inducao = torch.zeros(1, 1, n, n)
    for i in range(n):
        inducao[0, 0, i, i - T + 1 if i >= T else 0] = 1
    assert float(gl.escore_inducao(inducao, T)) == 1.0
    assert float(gl.escore_anterior(inducao)) < 1.0
    A = torch.stack([anterior[0], inducao[0]])                     # (2 blocos, 1 cabeça, n, n)
    assert gl.melhor_cabeca(gl.escore_inducao(A, T))[:2] == (1, 0)


def test_5_sequencia_repetida():
    ids = gl.sequencia_repetida(T=7, vocab=100, semente=3)
    assert ids.shape == (1, 14)
    assert torch.equal(ids[0, :7], ids[0, 7:])
    assert torch.equal(ids, gl.sequencia_repetida(T=7, vocab=100, semente=3))


# ------------------------------------------------------------------ 6. sem atenção

def test_6_sem_atencao(resultados):
    r = resultados[6]
    assert r["n_tokens"] == [10, 10]
    assert r["dif_sem"] < 1e-6                  # só ' the' e a posição 9 importam
    assert r["dif_com"] > 1e-4                  # com atenção, as frases diferem
    assert r["sem"][0] == r["sem"][1]


def test_6_ganchos_saem_depois(minusculo):
    modelo, tok = minusculo
    antes = gl.ultima_distribuicao(modelo, tok, gl.FRASES_THE[0])
    with gl.sem_atencao(modelo):
        durante = gl.ultima_distribuicao(modelo, tok, gl.FRASES_THE[0])
    depois = gl.ultima_distribuicao(modelo, tok, gl.FRASES_THE[0])
    assert torch.equal(antes, depois)
    assert not torch.allclose(antes, durante)


def test_6_zerar_atencao_e_o_mesmo_que_pular_a_subcamada(minusculo):
    """Sem atenção, cada bloco é x + mlp(ln_2(x)): conferimos à mão, sem os ganchos."""
    modelo, tok = minusculo
    t, c = modelo.transformer, modelo.config
    ids = gl.ids_de(tok, gl.FRASES_THE[1])
    with torch.no_grad():
        x = t.wte.weight[ids[0]] + t.wpe.weight[: ids.shape[1]]
        for b in t.h:
            u = gl.layernorm(x, b.ln_2, c.layer_norm_epsilon)
            x = x + gl.gelu(u @ b.mlp.c_fc.weight + b.mlp.c_fc.bias) @ b.mlp.c_proj.weight + b.mlp.c_proj.bias
        p = torch.softmax(gl.layernorm(x, t.ln_f, c.layer_norm_epsilon)[-1] @ t.wte.weight.T, -1)
        with gl.sem_atencao(modelo):
            ref = gl.ultima_distribuicao(modelo, tok, gl.FRASES_THE[1])
    assert float((p - ref).abs().max()) < 1e-6


# ------------------------------------------------------------------ 7. logit lens

def test_7_logit_lens(resultados):
    r = resultados[7]
    L = MINUSCULO["n_layer"]
    assert r["profundidades"] == [0]            # das colunas do curso, só o embedding existe aqui
    assert len(r["todas_p"]) == L + 1
    assert r["todas_posicoes"][-1] == 1
    assert r["dif_final"] < 1e-5
    assert r["normas"]["confere_hidden"] < 1e-6
    assert len(r["normas"]["normas"]) == L + 1


# ------------------------------------------------------------------ 8. decodificação

def test_8_filtros_numa_distribuicao_conhecida():
    p = torch.tensor([0.5, 0.3, 0.15, 0.05])
    z = torch.log(p)
    assert gl.quantos_para(p, 0.9) == 3
    assert gl.quantos_para(p, 0.5) == 1
    assert gl.quantos_para(p, 0.51) == 2
    assert torch.isfinite(gl.filtra_top_p(z, 0.9)).tolist() == [True, True, True, False]
    assert torch.isfinite(gl.filtra_top_p(z, 0.5)).tolist() == [True, False, False, False]
    assert torch.isfinite(gl.filtra_top_k(z, 2)).tolist() == [True, True, False, False]
    # a ordem fica; T pequeno concentra, T grande achata
    assert float(gl.com_temperatura(z, 0.5)[0]) > 0.5 > float(gl.com_temperatura(z, 2.0)[0])
    assert torch.allclose(gl.com_temperatura(z, 1.0), p)
    assert gl.escolhe(z, guloso=True) == 0
    with pytest.raises(ValueError, match="guloso=True"):   # T = 0 não é uma temperatura
        gl.escolhe(z, T=0)
    g = torch.Generator().manual_seed(0)
    sorteados = {gl.escolhe(z, T=1.0, k=2, gerador=g) for _ in range(200)}
    assert sorteados == {0, 1}


def test_8_temperatura_e_cache(resultados):
    r = resultados[8]
    ps = [l["p_topo"] for l in r["tabela"]]
    assert ps == sorted(ps, reverse=True)
    assert [l["para_90"] for l in r["tabela"]] == sorted(l["para_90"] for l in r["tabela"])
    assert len({l["topo"] for l in r["tabela"]}) == 1
    assert r["top_k2"] == 2
    assert r["cache_igual"] and r["dif_cache"] < 1e-4


def test_8_cache_de_kv_passa_so_o_token_novo(minusculo):
    """O caminho com cache roda cada passo com 1 token; sem cache, com a sequência inteira."""
    modelo, tok = minusculo
    vistos = []
    gancho = modelo.transformer.wte.register_forward_hook(lambda m, e, s: vistos.append(s.shape[1]))
    try:
        ids = gl.ids_de(tok, gl.PROMPT)
        gl.gera(modelo, ids, 4, cache=True)
        com = list(vistos)
        vistos.clear()
        gl.gera(modelo, ids, 4, cache=False)
        sem = list(vistos)
    finally:
        gancho.remove()
    assert com == [6, 1, 1, 1]
    assert sem == [6, 7, 8, 9]


# ------------------------------------------------------------------ 9. sua vez

def test_9_decodifica(minusculo):
    modelo, tok = minusculo
    a = gl.decodifica(modelo, tok, gl.PROMPT, n=8, T=0.7, p=0.9, semente=1)
    b = gl.decodifica(modelo, tok, gl.PROMPT, n=8, T=0.7, p=0.9, semente=1)
    assert a["ids"] == b["ids"] and len(a["ids"]) == 8
    assert all(m["dentro"] and m["massa"] >= 0.9 - 1e-5 for m in a["mantidos"])
    guloso = gl.decodifica(modelo, tok, gl.PROMPT, n=5, guloso=True)
    ref, _ = gl.gera(modelo, gl.ids_de(tok, gl.PROMPT), 5, guloso=True, cache=False)
    assert guloso["ids"] == ref


# ------------------------------------------------------------------ valores do curso

VALORES = valores_curso()


def test_json_do_curso_bem_formado():
    for chave, v in VALORES.items():
        assert {"secao", "precisa", "tipo", "valor", "frase"} <= set(v), chave
        assert v["precisa"] in ("nada", "config", "pesos"), chave
        assert v["tipo"] in ("exato", "abs", "rel", "prefixo", "referencia"), chave
        if v["tipo"] in ("abs", "rel"):
            assert v["tol"] > 0, chave
        assert chave.startswith(f"s{v['secao']}."), chave


def test_medidas_cobrem_o_json(resultados):
    medidas = {}
    for s, r in resultados.items():
        medidas.update(gl.medidas(s, r))
    assert set(medidas) == set(VALORES)


def test_valores_que_nao_precisam_de_pesos_conferem(resultados):
    """Tokenizador real e GPT2Config: estes valores do curso conferem aqui, sem os pesos."""
    curso = gl.Curso(ativo=False)
    for s, r in resultados.items():
        curso.confere_tudo(gl.medidas(s, r))
    nada = {k for k, v in VALORES.items() if v["precisa"] == "nada" and v["tipo"] != "referencia"}
    assert set(curso.conferidos) == nada
    assert len(nada) >= 14


def test_curso_reprova_valor_errado():
    curso = gl.Curso(ativo=True)
    with pytest.raises(AssertionError):
        curso.confere("s2.bloco", 7_087_873)
    with pytest.raises(AssertionError):
        curso.confere("s3.p_visualize", 0.158 + 0.0015)
    assert curso.confere("s3.p_visualize", 0.158 + 0.0009)
    with pytest.raises(AssertionError):
        curso.confere("s7.posicoes", [8532, 381, 62, 12, 3, 1, 1, 1])
    with pytest.raises(AssertionError):
        curso.confere("s8.guloso", "visualize and share")
    assert curso.confere("s8.guloso", "visualize and visualize data in a way that is easy to understand. And")


def test_curso_pula_sem_pesos():
    curso = gl.Curso(ativo=False)
    assert curso.confere("s3.p_visualize", 0.5) is None
    assert curso.pulados == ["s3.p_visualize"]


# ------------------------------------------------------------------ a divisão em módulos

GPT2 = os.path.join(LAB, "livro", "gpt2")


def test_nenhum_modulo_do_laboratorio_passa_de_600_linhas():
    for nome in os.listdir(GPT2):
        if nome.endswith(".py"):
            with open(os.path.join(GPT2, nome), encoding="utf-8") as f:
                assert len(f.read().splitlines()) <= 600, nome


def test_forma_do_small_vem_do_gpt2config():
    from transformers import GPT2Config

    assert gl.forma_gpt2_small(GPT2Config())
    assert not gl.forma_gpt2_small(GPT2Config(**MINUSCULO))
    assert gl.sequencia_repetida(T=5).max() < GPT2Config().vocab_size


def test_arquivos_do_colab_existem():
    for nome in gl.ARQUIVOS:
        assert os.path.exists(os.path.join(LAB, nome)), nome
    modulos = {f"livro/gpt2/{n}" for n in os.listdir(GPT2) if n.endswith(".py")}
    # o cache minúsculo dos testes e o gerador do .ipynb não vão para o Colab
    assert modulos - {"livro/gpt2/cache.py", "livro/gpt2/notebook.py"} <= set(gl.ARQUIVOS)
