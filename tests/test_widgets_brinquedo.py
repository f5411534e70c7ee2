"""Os números dos widgets conferidos com o brinquedo chamado direto.

Cada esperado aqui sai de `brinquedo.py` (e de `arquitetura.py`), formatado por `formato.py`;
nenhum passa pelos módulos dos widgets. Um erro num widget (uma linha trocada, um cache que
devolve os logits velhos, uma opção recusada) muda a tela e não muda o esperado.
"""
import html as html_mod
import itertools
import re

import pytest


from livro import arquitetura as arq
from livro import brinquedo as b
from livro.formato import celula, inteiro, num, vetor

from livro.widgets import api as w  # só a porta do navegador: o que o leitor recebe


def _resp(nome, campos=None, acao=None, inst=None):
    r = w.responder({"widget": nome, "campos": campos or {}, "acao": acao, "inst": inst})
    assert "erro" not in r, r
    return r


def _limpo(h):
    return " ".join(html_mod.unescape(re.sub(r"<[^>]+>", " ", h)).split())


def _tabelas(h, classe):
    """[[[célula, ...], ...]] de cada <table class="classe ..."> (cabeçalho de coluna fora)."""
    res = []
    for t in re.findall(rf'<table class="{classe}[^"]*">(.*?)</table>', h, re.S):
        corpo = re.search(r"<tbody>(.*?)</tbody>", t, re.S).group(1)
        res.append([[_limpo(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr, re.S)]
                    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", corpo, re.S)])
    return res


def _barras(h):
    """{token: [textos]} e a ordem das linhas da tabela de barras (a célula da barra fica fora)."""
    linhas = _tabelas(h, "lw-barras")[0]
    return {ln[0]: ln[2:] for ln in linhas}, [ln[0] for ln in linhas]


def _escolhido(h):
    return _limpo(re.search(r'<tr class="lw-escolhido"><th scope="row">(.*?)</th>', h).group(1))


def _ids(r):
    return [int(t) for t in r["campos"]["ids"].split()]


def _f(s):
    return None if s == "" else float(s.replace(",", "."))


# ---------------------------------------------------------------------------
# Passo 6: a saída
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("frase,atencao", [(b.PROMPT, True), (b.PROMPT, False), ("o sofá subiu no", True),
                                            ("o gato", True)])
def test_saida_p_e_z_do_brinquedo(frase, atencao):
    """O passo 6 mostra as probabilidades do modelo (T = 1): a temperatura é do passo 7."""
    r = _resp("saida", {"frase": frase, "atencao": atencao})
    z = b.modelo(b.codificar(frase), atencao)["z"][-1]
    p = b.softmax(z)
    linhas, ordem = _barras(r["html"])
    assert linhas == {b.VOCAB[i]: [num(p[i]), num(z[i])] for i in range(b.V)}
    ps = [p[b.VOCAB.index(t)] for t in ordem]
    assert ps == sorted(ps, reverse=True), "as barras fora de ordem"
    assert ordem[0] == b.VOCAB[b.ranking(p)[0]]


# ---------------------------------------------------------------------------
# Passo 7: escolher (T, top-k, top-p, u) e gerar com o cache de KV
# ---------------------------------------------------------------------------
CONFIGS = [("0,7", "", "0,9", "0,5"), ("0,7", "", "0,9", "0,8"), ("1", "", "", ""), ("2", "", "", "0,5"),
           ("1", "2", "", "0,5"), ("1", "3", "0,5", "0,99"), ("0,3", "", "", "0"), ("1,5", "12", "1", "0,3")]


def _linhas_esperadas(z, T, k, top_p):
    p = b.softmax(z, T)
    mantidos, q = b.filtrar(p, k, top_p)
    qd, ad = dict(zip(mantidos, q)), dict(zip(mantidos, b.acumuladas(q)))
    return {b.VOCAB[i]: [num(p[i]), num(qd[i]) if i in qd else "cortado", num(ad[i]) if i in ad else ""]
            for i in range(b.V)}


@pytest.mark.parametrize("T,k,top_p,u", CONFIGS)
def test_proximo_escolhe_como_o_brinquedo(T, k, top_p, u):
    r = _resp("proximo", {"T": T, "k": k, "top_p": top_p, "u": u})
    z = b.modelo(b.IDS_PROMPT)["z"][-1]
    cfg = (_f(T), None if k == "" else int(k), _f(top_p))
    linhas, _ = _barras(r["html"])
    assert linhas == _linhas_esperadas(z, *cfg)
    assert _escolhido(r["html"]) == b.VOCAB[b.escolher(z, *cfg, _f(u))[0]]


# (T, k, top-p, um sorteio u por passo): sorteios diferentes a cada passo.
GERACOES = [
    (0.7, None, 0.9, [0.5, 0.95, 0.05, 0.6]),
    (1.0, None, None, [0.9, 0.1, 0.99, 0.3]),
    (2.0, 6, None, [0.2, 0.97, 0.5, 0.01]),
    (1.3, None, 0.95, [0.999, 0.0, 0.75, 0.4]),
    (1.0, None, None, None),
]


def _texto_campo(x):
    return "" if x is None else repr(x).replace(".", ",")


def _referencia(T, k, top_p, us):
    """A geração sem cache nenhum: o modelo inteiro de novo a cada passo (b.modelo + b.escolher)."""
    seq, passos = list(b.IDS_PROMPT), []
    for n in range(len(us) if us else 3):
        z = b.modelo(seq)["z"][-1]
        tok = b.escolher(z, T, k, top_p, None if us is None else us[n])[0]
        passos.append((list(seq), tok))
        seq.append(tok)
        if tok == b.EOT or len(seq) >= b.n_ctx:
            break
    return passos


@pytest.mark.parametrize("T,k,top_p,us", GERACOES)
def test_gerar_com_varios_sorteios_e_o_brinquedo_sem_cache(T, k, top_p, us):
    """b.gerar usa o sorteio de cada passo e o cache de KV dá os mesmos tokens que refazer tudo."""
    ref = _referencia(T, k, top_p, us)
    passos = b.gerar(b.IDS_PROMPT, T, k, top_p, us=us, max_novos=len(ref))
    assert [(p_["entrada"], p_["token"]) for p_ in passos] == ref
    for p_ in passos:
        z = b.modelo(p_["entrada"])["z"][-1]
        assert p_["p"] == pytest.approx(b.softmax(z)[p_["token"]], abs=1e-12)


def test_os_sorteios_mudam_a_geracao():
    """Sem isto o teste acima não distingue "um u por passo" de "o primeiro u sempre"."""
    diferentes = 0
    for T, k, top_p, us in GERACOES:
        if us:
            diferentes += _referencia(T, k, top_p, us) != _referencia(T, k, top_p, [us[0]] * len(us))
    assert diferentes >= 2


@pytest.mark.parametrize("T,k,top_p,us", GERACOES)
def test_widget_gera_passo_a_passo_como_o_brinquedo(T, k, top_p, us):
    """Anexar e rodar de novo, com um u diferente a cada passo: o widget (que usa o seu cache de
    KV) escolhe o mesmo token que b.gerar e mostra, a cada passo, as probabilidades do modelo
    inteiro recalculado."""
    ref = _referencia(T, k, top_p, us)
    gerados = [t for _, t in ref]
    assert [p_["token"] for p_ in b.gerar(b.IDS_PROMPT, T, k, top_p, us=us, max_novos=len(ref))] == gerados
    inst = f"geracao-{T}-{k}-{top_p}-{us}"
    campos = {"T": _texto_campo(T), "k": _texto_campo(k), "top_p": _texto_campo(top_p),
              "u": _texto_campo(us[0] if us else None)}
    r = _resp("proximo", campos, None, inst)
    for n, (entrada, tok) in enumerate(ref):
        assert _ids(r) == entrada
        z = b.modelo(entrada)["z"][-1]
        u = None if us is None else us[n]
        assert _barras(r["html"])[0] == _linhas_esperadas(z, T, k, top_p), f"passo {n + 1}"
        assert _escolhido(r["html"]) == b.VOCAB[tok], f"passo {n + 1}"
        r = _resp("proximo", dict(r["campos"], u=_texto_campo(u)), "anexar", inst)
        assert _ids(r) == entrada + [tok], f"passo {n + 1}"
        if tok != b.EOT:        # o cache do widget: só a linha do token anexado é nova
            assert "1 linha nova" in _limpo(re.search(r'<p class="lw-cache">(.*?)</p>', r["html"]).group(1))
        if n + 1 < len(ref):    # o próximo u já na tela: a escolha mostrada é a do passo seguinte
            r = _resp("proximo", dict(r["campos"], u=_texto_campo(None if us is None else us[n + 1])),
                      None, inst)
    if _ids(r)[-1] != b.EOT:
        assert _barras(r["html"])[0] == _linhas_esperadas(b.modelo(_ids(r))["z"][-1], T, k, top_p)
        cache = _limpo(re.search(r'<p class="lw-cache">(.*?)</p>', r["html"]).group(1))
        assert f"K e V de {inteiro(len(_ids(r)))} posições" in cache, cache


def test_caches_de_kv_guardados_sao_os_ultimos_usados():
    """No navegador, um worker serve muitas cargas de página seguidas, cada uma com um inst novo:
    só os MAX_CACHES_KV caches usados por último ficam. Um inst usado de novo volta para o fim da
    fila; um inst esquecido calcula o prompt inteiro de novo, como um widget novo."""
    from livro.widgets import geracao
    n = geracao.MAX_CACHES_KV
    outros = (f"pagina-{i}" for i in itertools.count(1))
    velho = "pagina-0"
    anexado = _resp("proximo", None, "anexar", velho)
    for _ in range(n - 1):
        _resp("proximo", None, None, next(outros))
    assert len(geracao._CACHES_KV) == n and next(iter(geracao._CACHES_KV)) == velho
    _resp("proximo", anexado["campos"], None, velho)  # usado de novo: vai para o fim da fila
    for _ in range(n - 1):
        _resp("proximo", None, None, next(outros))
    assert velho in geracao._CACHES_KV and len(geracao._CACHES_KV) == n
    _resp("proximo", None, None, next(outros))
    assert velho not in geracao._CACHES_KV and len(geracao._CACHES_KV) == n
    # esquecido, o velho refaz tudo: as mesmas linhas que um widget novo com os mesmos ids
    cache = lambda r: _limpo(re.search(r'<p class="lw-cache">(.*?)</p>', r["html"]).group(1))
    de_novo = _resp("proximo", anexado["campos"], None, velho)
    assert cache(de_novo) == cache(_resp("proximo", anexado["campos"], None, "um-widget-novo"))
    assert f"{inteiro(len(_ids(de_novo)))} linhas, o prompt inteiro" in cache(de_novo)


# ---------------------------------------------------------------------------
# Passos 1 a 5
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("texto", [b.PROMPT, "o gato subiu no telhado.", "o sofá e no muro."])
def test_tokens_do_brinquedo(texto):
    ids = b.codificar(texto)
    assert f"ids = [{', '.join(map(str, ids))}] ·" in _limpo(_resp("tokens", {"texto": texto})["html"])


@pytest.mark.parametrize("t,pos", list(itertools.product(range(b.V), range(1, b.n_ctx + 1))))
def test_embeddings_do_brinquedo(t, pos):
    r = _resp("embeddings", {"token": str(t), "posicao": str(pos)})
    x = re.search(r"<strong>\[(.*?)\]</strong>", r["html"]).group(1)
    mostrado = [float(v.replace(",", ".")) for v in x.split("; ")]
    esperado = [e + p for e, p in zip(b.E[t], b.P[pos - 1])]
    assert mostrado == pytest.approx(esperado, abs=5e-4)


@pytest.mark.parametrize("linha", range(1, len(b.IDS_PROMPT) + 1))
def test_qkv_do_brinquedo(linha):
    r = _resp("qkv", {"linha": str(linha)}, "linha")
    m = b.modelo(b.IDS_PROMPT)
    i = linha - 1
    texto = _limpo(r["html"])
    assert f"u = LN(x) = (x − μ) / √(σ² + ε) = {vetor(m['u'][i])}" in texto
    cabecas = _tabelas(r["html"], "lw-matriz lw-qkv")[0]
    for n, chave in enumerate("QKV"):
        assert cabecas[n][1:] == [vetor(b.cabeca([m[chave][i]], h)[0]) for h in range(b.n_cabecas)]


@pytest.mark.parametrize("causal,cabeca", list(itertools.product([True, False], [1, 2])))
def test_mascaras_do_brinquedo(causal, cabeca):
    r = _resp("mascaras", {"causal": causal, "cabeca": str(cabeca)})
    m = b.modelo(b.IDS_PROMPT, True, causal)
    S, A = _tabelas(r["html"], "lw-matriz")[:2]
    for mostrada, esperada in ((S, m["S"][cabeca - 1]), (A, m["A"][cabeca - 1])):
        assert [ln[1:] for ln in mostrada] == [[celula(x) for x in ln] for ln in esperada]


@pytest.mark.parametrize("acao", ["tudo", "caso:base", "caso:linha2x10", "caso:ultimo", "caso:sem_atencao"])
def test_bloco_do_brinquedo(acao):
    """O x que o widget mostra na grade, pelo mini-bloco do brinquedo: as mesmas 11 matrizes."""
    r = _resp("bloco", {}, acao)
    c = r["campos"]
    x = [[_f(c[f"x{i}{j}"]) for j in range(1, b.d + 1)] for i in range(1, 4)]
    if acao == "caso:linha2x10":
        assert x == [b.MINI_X[0], [10 * v for v in b.MINI_X[1]], b.MINI_X[2]]
    elif acao == "caso:ultimo":     # só a linha 3 muda, para o x do caso da página do bloco
        assert x == [b.MINI_X[0], b.MINI_X[1], [2, -1, 0, 1]]
    else:
        assert x == b.MINI_X
    esperado = b.mini_bloco(x, c["com_atencao"] is not False and acao != "caso:sem_atencao")
    tabelas = _tabelas(r["html"], "lw-matriz")
    chaves = ["u", "Q", "K", "V", "S", "A", "a", "h", "u2", "m", "y"]
    assert len(tabelas) == len(chaves)
    for chave, t in zip(chaves, tabelas):
        assert [ln[1:] for ln in t] == [[celula(v) for v in ln] for ln in esperado[chave]], chave


def test_bloco_guardado_responde_como_calculado_agora():
    """As peças guardadas do widget do bloco (uma por grade): ir a outra grade e voltar dá o mesmo
    HTML que calcular do zero, e cada grade mostra as suas próprias matrizes."""
    from livro.widgets import passos

    def grade(x):
        return {f"x{i}{j}": str(x[i - 1][j - 1]).replace(".", ",") for i in range(1, 4) for j in range(1, b.d + 1)}

    outra = [b.MINI_X[0], b.MINI_X[1], [2, -1, 0, 1]]
    passos._bloco_pecas_do_texto.cache_clear()
    fresca = _resp("bloco", grade(b.MINI_X), "tudo")["html"]
    de_outra = _resp("bloco", grade(outra), "tudo")["html"]
    assert de_outra != fresca
    assert _resp("bloco", grade(b.MINI_X), "tudo")["html"] == fresca
    y = _tabelas(de_outra, "lw-matriz")[-1]
    assert [ln[1:] for ln in y] == [[celula(v) for v in ln] for ln in b.mini_bloco(outra, True)["y"]]
    for k in range(passos.MAX_PECAS_BLOCO + 3):    # o guardado tem limite
        _resp("bloco", grade([b.MINI_X[0], b.MINI_X[1], [k, -1, 0, 1]]), "tudo")
    assert passos._bloco_pecas_do_texto.cache_info().currsize == passos.MAX_PECAS_BLOCO
    assert _resp("bloco", grade(b.MINI_X), "tudo")["html"] == fresca


# ---------------------------------------------------------------------------
# Desde 2017 e escala (lab/arquitetura.py)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("norma,mlp,atencao,vieses", list(itertools.product(
    ["layernorm", "rmsnorm"], ["relu", "gelu", "swiglu"], ["mha", "gqa"], [True, False])))
def test_config_bloco_da_arquitetura(norma, mlp, atencao, vieses):
    r = _resp("config-bloco", {"norma": norma, "mlp": mlp, "atencao": atencao, "vieses": vieses})
    base = arq.CLASSE_8B
    n_kv = base["n_cabecas"] if atencao == "mha" else base["n_kv"]
    total = arq.params_bloco(base["d"], base["n_cabecas"], n_kv, mlp, vieses, norma)["total"]
    assert f"<strong>{inteiro(total)}</strong> parâmetros" in r["html"]
    kv = arq.cache_kv_bytes(base["n_camadas"], n_kv, base["d"] // base["n_cabecas"], bytes_por_numero=2)
    assert f"{inteiro(kv // 1024)} KiB" in _limpo(r["html"])


@pytest.mark.parametrize("norma_pos", ["pre", "pos"])
def test_config_bloco_onde_fica_a_norma(norma_pos):
    """Pré-LN: a norma antes da atenção; pós-LN: a atenção direto sobre x, a norma depois da soma."""
    texto = _limpo(_resp("config-bloco", {"norma_pos": norma_pos, "norma": "layernorm"})["html"])
    assert ("x → LayerNorm → atenção" in texto) == (norma_pos == "pre"), texto
    assert ("x → atenção → + x → LayerNorm" in texto) == (norma_pos == "pos"), texto


@pytest.mark.parametrize("logC,logN,ajuste", list(itertools.product(["20", "23", "26"], ["8", "10", "13"],
                                                                      ["besiroglu", "hoffmann"])))
def test_compute_da_arquitetura(logC, logN, ajuste):
    aj = {"besiroglu": arq.BESIROGLU_2024, "hoffmann": arq.HOFFMANN_2022}[ajuste]
    r = _resp("compute", {"logC": logC, "logN": logN, "ajuste": ajuste})
    C, N = 10.0 ** int(logC), 10.0 ** int(logN)
    perda = arq.perda(N, C / (arq.FLOPS_TREINO * N), aj)
    assert f"perda prevista <strong>{num(perda)}</strong>" in r["html"]
    assert f"perda {num(arq.otimo_chinchilla(C, aj)['perda'])}." in r["html"]
