"""As bordas do brinquedo: onde um erro de um caractere (>= por >, < por <=, um índice)
mudaria o que o leitor vê sem mudar o exemplo principal do livro.

Cada teste afirma valores de verdade, calculados à parte: a GELU contra a do PyTorch,
o top-p exatamente no corte, o sorteio u nas fronteiras, empates, o fim do contexto.
"""
import math

import pytest

from livro import brinquedo as b

IDS = b.IDS_PROMPT
Z5 = b.modelo(IDS)["z"][4]
TOK = {t: i for i, t in enumerate(b.VOCAB)}


# --- a GELU do GPT-2 contra a do PyTorch ----------------------------------------

@pytest.mark.pesado  # importar o torch: uns 1,2 s
def test_gelu_igual_a_do_pytorch():
    """A aproximação por tanh da GELU, a do GPT-2: a mesma do PyTorch em float64."""
    import torch  # em requirements.txt: sem ele, o teste falha (não pula)
    xs = [i / 100 for i in range(-800, 801)] + [-30.0, -12.5, 12.5, 30.0, 1e-8, -1e-8]
    ref = torch.nn.functional.gelu(torch.tensor(xs, dtype=torch.float64), approximate="tanh").tolist()
    nossos = [b.gelu(x) for x in xs]
    pior = max(abs(a - r) for a, r in zip(nossos, ref))
    assert pior < 1e-12, f"a GELU do brinquedo se afasta da do PyTorch em {pior:.3g}"
    # e não é a GELU exata z·Φ(z): em z = 1 as duas diferem na quarta casa
    exata = torch.nn.functional.gelu(torch.tensor([1.0], dtype=torch.float64)).item()
    assert abs(b.gelu(1.0) - exata) > 1e-5


def test_gelu_valores_conhecidos():
    """Valores calculados à parte com 30 dígitos (mpmath), arredondados para float."""
    assert b.gelu(0.0) == 0.0
    assert b.gelu(1.0) == pytest.approx(0.8411919906082767, abs=1e-15)
    assert b.gelu(-1.0) == pytest.approx(-0.1588080093917233, abs=1e-15)
    assert b.gelu(3.0) == pytest.approx(2.996362607918227, abs=1e-15)


def test_layernorm_usa_variancia_populacional_e_eps():
    """desvio = √(σ² + ε) com σ² dividido por d (não por d − 1) e ε = 1e-5."""
    v = [1.0, 2.0, 3.0, 6.0]                      # média 3, σ² = (4 + 1 + 0 + 9)/4 = 3,5
    assert b.media(v) == 3.0
    assert b.desvio(v) == pytest.approx(math.sqrt(3.5 + 1e-5), abs=1e-15)
    assert b.ln_linha([0.0, 0.0, 0.0, 0.0]) == [0.0, 0.0, 0.0, 0.0]   # ε evita 0/0
    assert b.ln_linha([5.0, 5.0, 5.0, 5.0 + 2e-3])[3] == pytest.approx(
        1.5e-3 / math.sqrt(0.75e-6 + 1e-5), abs=1e-12)               # perto de 0, ε pesa


# --- top-p: o corte ----------------------------------------------------------

def test_top_p_exatamente_no_corte_para_ali():
    """A soma dos mantidos chega exatamente a top-p: para ali (>=), não pega o próximo."""
    p = [0.5, 0.25, 0.125, 0.125]                  # frações exatas em binário
    assert b.filtrar(p, top_p=0.75) == ([0, 1], [2 / 3, 1 / 3])
    assert b.filtrar(p, top_p=0.5) == ([0], [1.0])
    assert b.filtrar(p, top_p=0.5 + 1e-9) == ([0, 1], [2 / 3, 1 / 3])


def test_top_p_tolera_o_arredondamento_da_soma():
    """0,48 + 0,45 dá 0,9299999999999999 na soma acumulada em float: ainda assim chega a 0,93."""
    p = [0.48, 0.45, 0.07]
    assert p[0] / sum(p) + p[1] / sum(p) < 0.93      # a soma que filtrar faz fica um ulp abaixo
    ordem, q = b.filtrar(p, top_p=0.93)
    assert ordem == [0, 1]
    assert q == pytest.approx([0.48 / 0.93, 0.45 / 0.93], abs=1e-15)


def test_top_p_1_mantem_todos():
    p = b.softmax(Z5)
    ordem, q = b.filtrar(p, top_p=1.0)
    assert ordem == b.ranking(p)
    assert len(ordem) == b.V
    assert q == pytest.approx([p[i] for i in ordem], abs=1e-15)


def test_top_p_minusculo_fica_com_um():
    ordem, q = b.filtrar(b.softmax(Z5), top_p=1e-9)
    assert ordem == [TOK["␣telhado"]]
    assert q == [1.0]


def test_top_k_depois_top_p_renormaliza_sobre_os_k():
    """Top-k 3 e depois top-p 0,8: a soma acumulada é sobre os 3, renormalizados.
    Renormalizados, ␣telhado + ␣muro passam de 0,8 (ficam 2); sem renormalizar, não (ficariam 3)."""
    p = b.softmax(Z5)
    tel, muro, sofa = TOK["␣telhado"], TOK["␣muro"], TOK["␣sofá"]
    tres = p[tel] + p[muro] + p[sofa]
    assert p[tel] + p[muro] + p[sofa] < 0.8 < (p[tel] + p[muro]) / tres
    ordem, q = b.filtrar(p, k=3, top_p=0.8)
    assert ordem == [tel, muro]
    assert q == pytest.approx([p[tel] / (p[tel] + p[muro]), p[muro] / (p[tel] + p[muro])], abs=1e-15)


def test_top_k_corta_exatamente_k():
    for k in (1, 2, 5, b.V):
        ordem, q = b.filtrar(b.softmax(Z5), k=k)
        assert ordem == b.ranking(b.softmax(Z5), k)
        assert sum(q) == pytest.approx(1.0, abs=1e-15)


# --- o sorteio u: as fronteiras ----------------------------------------------

def test_u_zero_da_o_primeiro():
    assert b.escolher(Z5, T=0.7, top_p=0.9, u=0.0)[0] == TOK["␣telhado"]
    assert b.sortear([3, 7, 1], [0.5, 0.25, 0.25], 0.0) == 3


def test_u_quase_1_da_o_ultimo_mantido():
    u = math.nextafter(1.0, 0.0)
    tok, det = b.escolher(Z5, T=0.7, top_p=0.9, u=u)
    assert det["mantidos"][-1] == TOK["␣e"]
    assert tok == TOK["␣e"]
    assert b.sortear([3, 7, 1], [0.5, 0.25, 0.25], u) == 1


def test_u_exatamente_numa_soma_acumulada_vai_para_o_seguinte():
    """As faixas são [s_(i-1), s_i): u igual a uma soma acumulada cai no token seguinte."""
    ordem, q = [3, 7, 1, 9], [0.5, 0.25, 0.125, 0.125]
    assert b.acumuladas(q) == [0.5, 0.75, 0.875, 1.0]
    assert [b.sortear(ordem, q, u) for u in (0.0, 0.4999, 0.5, 0.75, 0.875)] == [3, 3, 7, 1, 9]


def test_sorteios_do_livro_caem_nas_faixas_certas():
    """T = 0,7, top-p 0,9: as somas acumuladas 0,626; 0,770; 0,845 separam os sorteios."""
    _, det = b.escolher(Z5, T=0.7, top_p=0.9, u=0.5)
    s = det["acumuladas"]
    escolhe = [b.escolher(Z5, T=0.7, top_p=0.9, u=u)[0] for u in (s[0] - 1e-9, s[0], s[1], s[2])]
    assert escolhe == [TOK["␣telhado"], TOK["␣muro"], TOK["␣sofá"], TOK["␣chão"]]


# --- empates: ordem estável (o menor id primeiro) -----------------------------

def test_empates_mantem_a_ordem_dos_ids():
    assert b.ranking([0.2] * 5) == [0, 1, 2, 3, 4]
    assert b.ranking([0.25, 0.25, 0.5]) == [2, 0, 1]
    assert b.ranking([0.1, 0.3, 0.3, 0.3], 2) == [1, 2]


def test_logits_iguais_guloso_fica_com_o_menor_id():
    z = [1.0, 2.0, 2.0, 0.5] + [-1.0] * (b.V - 4)
    tok, det = b.escolher(z)
    assert tok == 1
    assert det["mantidos"][:2] == [1, 2]
    assert det["p"][1] == det["p"][2]
    ordem, q = b.filtrar(b.softmax(z), k=2)
    assert ordem == [1, 2] and q == [0.5, 0.5]


# --- a geração: o fim do contexto --------------------------------------------

def test_geracao_para_no_n_ctx():
    """Prompt de 7 tokens: um passo, e a geração para nos 8 de n_ctx (sem erro)."""
    prompt = [4, 2, 1, 9, 4, 8, 9]
    assert len(prompt) == b.n_ctx - 1
    passos = b.gerar(prompt)
    assert len(passos) == 1
    assert passos[0]["token"] == TOK["␣no"] != b.EOT
    assert passos[0]["linhas_calculadas"] == 7


def test_geracao_sem_fim_de_texto_para_no_n_ctx():
    """T = 2, u = 0,99: três pontos seguidos e nenhum <|endoftext|>; para em 8 tokens."""
    passos = b.gerar(IDS, T=2.0, us=[0.99])
    assert [p["token"] for p in passos] == [TOK["."]] * 3
    assert [len(p["entrada"]) for p in passos] == [5, 6, 7]
    assert [p["linhas_calculadas"] for p in passos] == [5, 6, 7]


def test_max_novos_limita_os_passos():
    assert len(b.gerar(IDS, T=2.0, us=[0.99], max_novos=2)) == 2
    assert len(b.gerar(IDS, max_novos=1)) == 1


def test_cache_recusa_a_posicao_alem_do_contexto():
    cache = b.CacheKV()
    for t in [0] * b.n_ctx:
        cache.adiciona(t)
    with pytest.raises(b.ErroToken, match=str(b.n_ctx)):
        cache.adiciona(0)
    with pytest.raises(b.ErroToken, match="posições"):
        b.embed([0] * (b.n_ctx + 1))
    assert len(b.embed([0] * b.n_ctx)) == b.n_ctx


def test_cada_passo_da_geracao_usa_as_probabilidades_certas():
    """p do passo é o softmax com T = 1; p_T é com a temperatura pedida."""
    passos = b.gerar(IDS, T=0.7, top_p=0.9, us=[0.5])
    z = b.modelo(IDS)["z"][4]
    assert passos[0]["p"] == pytest.approx(b.softmax(z)[TOK["␣telhado"]], abs=1e-15)
    assert passos[0]["p_T"] == pytest.approx(b.softmax(z, 0.7)[TOK["␣telhado"]], abs=1e-15)
    z2 = b.modelo(IDS + [TOK["␣telhado"]])["z"][5]
    assert passos[1]["p"] == pytest.approx(b.softmax(z2)[TOK["."]], abs=1e-12)


# --- configurações nas bordas ---------------------------------------------------

@pytest.mark.parametrize("kw", [{"u": 0.0}, {"top_p": 1.0}, {"k": 1}, {"k": 12}, {"T": 1e-3}])
def test_bordas_validas_sao_aceitas(kw):
    tok, _ = b.escolher(Z5, **{"u": None, **kw})
    assert 0 <= tok < b.V


@pytest.mark.parametrize("kw,trecho", [
    ({"u": 1.0}, "sorteio"), ({"u": -1e-9}, "sorteio"), ({"top_p": 1.0 + 1e-9}, "top-p"),
    ({"k": 0}, "top-k"), ({"T": -1.0}, "temperatura"), ({"T": math.inf}, "temperatura")])
def test_bordas_invalidas_sao_recusadas(kw, trecho):
    with pytest.raises(ValueError, match=trecho):
        b.escolher(Z5, **kw)


# --- o mecanismo, com valores à parte ---------------------------------------------

def test_mascara_causal_e_escala():
    """S = QKᵀ/√d_h, -∞ só acima da diagonal; sem máscara, nenhum -∞."""
    Q = [[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
    K = [[2.0, 0.0], [0.0, 1.0], [1.0, -1.0]]
    S = b.escores(Q, K)
    r = math.sqrt(2)
    assert S == [[2 / r, -math.inf, -math.inf], [0.0, 2 / r, -math.inf], [2 / r, 1 / r, 0.0]]
    assert b.escores(Q, K, causal=False)[0] == [2 / r, 0.0, 1 / r]


def test_softmax_com_temperatura():
    z = [1.0, 2.0, 3.0]
    e = [math.exp(x / 0.5) for x in z]
    assert b.softmax(z, 0.5) == pytest.approx([x / sum(e) for x in e], abs=1e-15)
    assert b.softmax([0.0, -math.inf]) == [1.0, 0.0]


def test_perdas_usam_o_token_seguinte():
    ids = IDS + [TOK["␣telhado"]]
    p = b.modelo(ids)["p"]
    assert b.perdas(ids) == pytest.approx([-math.log(p[i][ids[i + 1]]) for i in range(5)], abs=1e-15)
    assert len(b.perdas(ids)) == len(ids) - 1


def test_pesos_do_mlp():
    """W_1 = [I | −I] e W_2 = [I ; I], entrada por entrada."""
    for i in range(b.d):
        for j in range(b.d_ff):
            assert b.W1[i][j] == (1.0 if j == i else -1.0 if j == i + b.d else 0.0)
    for i in range(b.d_ff):
        assert b.W2[i] == [1.0 if (i % b.d) == j else 0.0 for j in range(b.d)]


def test_cache_kv_igual_ao_modelo_inteiro_em_toda_posicao():
    ids = [0, 2, 4, 5, 1, 6, 10, 11]
    r = b.modelo(ids)
    cache = b.CacheKV()
    for i, t in enumerate(ids):
        assert cache.adiciona(t) == pytest.approx(r["z"][i], abs=1e-12)
    assert cache.linhas_calculadas == len(ids)
