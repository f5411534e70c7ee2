"""Os widgets das páginas "desde 2017" (configure o bloco) e "escala" (reparta a computação).

Usam `lab/livro/arquitetura.py`; nenhuma conta de modelo é refeita aqui.
"""
import math

from livro import arquitetura as arq
from livro.formato import (
    abreviado,
    casas_min,
    cientifico,
    contagem,
    inteiro,
    num,
    pct,
    pct_pequeno,
)
from livro.widgets.campos import (
    ErroEntrada,
    ligado,
    em,
    ler_num,
)
from livro.widgets.html import (
    botao,
    campo_faixa,
    campo_lista,
    campo_marca,
    escapa,
    linha,
    nota,
    barras,
)

# ---------------------------------------------------------------------------
# Desde 2017: configure o bloco (usa lab/livro/arquitetura.py)
# ---------------------------------------------------------------------------
CONFIG_D = 4096          # o bloco "classe 8B" da página
CONFIGS_BLOCO = {
    "2017": {"norma_pos": "pos", "norma": "layernorm", "mlp": "relu", "atencao": "mha",
             "posicao": "senoidal", "vieses": True},
    "2019": {"norma_pos": "pre", "norma": "layernorm", "mlp": "gelu", "atencao": "mha",
             "posicao": "aprendida", "vieses": True},
    "2026": {"norma_pos": "pre", "norma": "rmsnorm", "mlp": "swiglu", "atencao": "gqa",
             "posicao": "rope", "vieses": False},
}


BYTES_KV = 2  # float16/bfloat16 no cache de KV



def _cfg_base():
    return arq.CLASSE_8B


def _config_padrao():
    return dict(CONFIGS_BLOCO["2026"])


def _config_form(c):
    base = _cfg_base()
    return (linha(
        campo_lista("norma_pos", "Onde fica a norma",
                     [("pos", "no fluxo, após cada soma (pós-LN)"), ("pre", "no ramo, antes de cada subcamada (pré-LN)")],
                     c["norma_pos"]),
        campo_lista("norma", "Normalizador", [("layernorm", "LayerNorm"), ("rmsnorm", "RMSNorm")], c["norma"]),
        campo_lista("mlp", "MLP", [("relu", "ReLU (W1 e W2)"), ("gelu", "GELU (W1 e W2)"),
                                    ("swiglu", "SwiGLU (W1, W3 e W2)")], c["mlp"]),
        campo_lista("atencao", "Atenção",
                     [("mha", "MHA"), ("gqa", f"GQA ({base['n_cabecas']} cabeças de consulta dividem {base['n_kv']} pares K/V)")],
                     c["atencao"]),
        campo_lista("posicao", "Posição", [("senoidal", "senoidal (somada a X)"), ("aprendida", "tabela P (somada a X)"),
                                            ("rope", "RoPE (gira Q e K)")], c["posicao"]),
        campo_marca("vieses", "vieses", ligado(c["vieses"])))
        + linha(botao("2017 (o artigo)", "preset:2017"), botao("2019 (GPT-2)", "preset:2019"),
                 botao("Padrão de hoje", "preset:2026"), classe="lw-controles lw-casos"))


def _config_bloco(c, acao, inst):
    c = dict(c)
    if acao and acao.startswith("preset:"):
        c.update(CONFIGS_BLOCO.get(acao[7:], {}))
    escolhas = {"norma_pos": ("o lugar da norma", ("pos", "pre")),
                "norma": ("o normalizador", ("layernorm", "rmsnorm")),
                "mlp": ("o MLP", ("relu", "gelu", "swiglu")), "atencao": ("a atenção", ("mha", "gqa")),
                "posicao": ("a posição", ("senoidal", "aprendida", "rope"))}
    for campo, (rotulo, validos) in escolhas.items():
        if c.get(campo) not in validos:
            raise ErroEntrada(f"Escolha inválida {em(rotulo)}: use uma das opções da lista.")
    vieses = ligado(c.get("vieses"))
    base = _cfg_base()
    d, nq = base["d"], base["n_cabecas"]
    n_kv = nq if c["atencao"] == "mha" else base["n_kv"]
    p = arq.params_bloco(d, nq, n_kv, c["mlp"], vieses, c["norma"])
    d_h = d // nq
    kv = arq.cache_kv_bytes(base["n_camadas"], n_kv, d_h, bytes_por_numero=BYTES_KV)
    kv_mha = arq.cache_kv_bytes(base["n_camadas"], nq, d_h, bytes_por_numero=BYTES_KV)
    itens = [("MLP", p["frac_mlp"], [f"{inteiro(p['mlp'])} ({pct(p['frac_mlp'])})"], "lw-mlp"),
             ("atenção", p["frac_atencao"], [f"{inteiro(p['atencao'])} ({pct(p['frac_atencao'])})"], "lw-at"),
             ("normas", p["frac_normas"], [f"{inteiro(p['normas'])} ({pct_pequeno(p['frac_normas'])})"], "")]
    pre = c["norma_pos"] == "pre"
    norma = "RMSNorm" if c["norma"] == "rmsnorm" else "LayerNorm"
    if pre:
        fluxo = (f"x → <b>{norma}</b> → atenção → <b>+ x</b> → <b>{norma}</b> → MLP → <b>+ h</b>"
                 '<span class="lw-residual lw-residual-ok">caminho residual: direto, a identidade passa intacta</span>')
    else:
        fluxo = (f"x → atenção → <b>+ x</b> → <b>{norma}</b> → MLP → <b>+ h</b> → <b>{norma}</b>"
                 '<span class="lw-residual lw-residual-cinza">caminho residual: passa por uma norma em cada '
                 "camada (sem warmup, não treina bem)</span>")
    posicao = {"senoidal": "senoidal, somada na entrada: 0 parâmetros",
               "aprendida": f"aprendida, somada na entrada: n_ctx × {inteiro(d)} parâmetros fora do bloco",
               "rope": "RoPE: gira Q e K conforme a posição, 0 parâmetros"}[c["posicao"]]
    out = [f'<p class="lw-fluxo">{fluxo}</p>',
           barras(itens, ["parte", "fração do bloco", "parâmetros"]),
           nota(f"Um bloco com d = {inteiro(d)} e {inteiro(nq)} cabeças de consulta: "
                 f"<strong>{inteiro(p['total'])}</strong> parâmetros; o MLP fica com {pct(p['frac_mlp'])} "
                 f"e a atenção com {pct(p['frac_atencao'])}."),
           nota(f"Posição: {posicao}."),
           nota(f"Cache de KV por token ({contagem(base['n_camadas'], 'bloco')}, {inteiro(8 * BYTES_KV)} bits "
                 "por número): "
                 f"{inteiro(kv // 1024)} KiB" + (f", {inteiro(kv_mha // kv)}× menor que com MHA" if kv < kv_mha
                                                 else "") + ".")]
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Escala: reparta a computação (usa lab/livro/arquitetura.py)
# ---------------------------------------------------------------------------
def _ajustes():
    return {"besiroglu": ("Besiroglu et al. (2024)", arq.BESIROGLU_2024),
            "hoffmann": ("Hoffmann et al. (2022), abordagem 3", arq.HOFFMANN_2022)}


def _compute_padrao():
    return {"logC": "23", "logN": "10", "ajuste": "besiroglu", "inferencia": False, "logS": "12"}


def _compute_form(c):
    return (linha(campo_faixa("logC", "Computação C (FLOPs)", c["logC"], 20, 26, 0.5),
                   campo_faixa("logN", "Parâmetros N", c["logN"], 8, 13, 0.05),
                   campo_lista("ajuste", "Ajuste da lei", [("besiroglu", "Besiroglu et al. (2024)"),
                                                           ("hoffmann", "Hoffmann et al. (2022)")], c["ajuste"]))
            + linha(campo_marca("inferencia", "precificar a inferência também", ligado(c["inferencia"])),
                     campo_faixa("logS", "Tokens a servir", c["logS"], 10, 15, 0.5)))


def _grafico(pontos, marcas, xmin, xmax):
    """Curva da perda contra log10(N), em SVG; marcas = [(log10 N, perda, classe, rótulo)]."""
    L, A_, M = 320, 150, 30
    ys = [y for _, y in pontos] + [m[1] for m in marcas]
    ymin, ymax = min(ys), max(ys)
    ymax = ymin + max(ymax - ymin, 1e-6)

    def px(x):
        return M + (x - xmin) / (xmax - xmin) * (L - M - 8)

    def py(y):
        return 8 + (ymax - y) / (ymax - ymin) * (A_ - 28)

    linha = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pontos)
    out = [f'<svg class="lw-grafico" viewBox="0 0 {L} {A_}" role="img" '
           f'aria-label="perda prevista contra o número de parâmetros, com a computação fixa">',
           f'<polyline points="{linha}" class="lw-curva"/>',
           f'<line x1="{M}" y1="{A_ - 20}" x2="{L - 8}" y2="{A_ - 20}" class="lw-eixo"/>']
    for e in range(math.ceil(xmin), math.floor(xmax) + 1):
        out.append(f'<text x="{px(e):.1f}" y="{A_ - 6}" class="lw-rotulo">{escapa(abreviado(10 ** e, 0))}</text>')
    out.append(f'<text x="{M}" y="{A_ - 24}" class="lw-rotulo" text-anchor="start">perda</text>')
    out.append(f'<text x="{L - 8}" y="{A_ - 24}" class="lw-rotulo" text-anchor="end">N (parâmetros)</text>')
    out.append(f'<text x="2" y="{py(ymax) + 4:.1f}" class="lw-rotulo">{num(ymax, 2)}</text>')
    out.append(f'<text x="2" y="{py(ymin) + 4:.1f}" class="lw-rotulo">{num(ymin, 2)}</text>')
    for x, y, cls, rot in marcas:
        out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" class="{cls}"><title>{escapa(rot)}</title></circle>')
    out.append("</svg>")
    return "".join(out)


def _por_parametro(r):
    """Tokens por parâmetro com os formatadores de formato.py, sem nunca virar "0"."""
    if r >= 1e4 or r < 1e-3:
        return cientifico(r, 1)
    return casas_min(r, 0 if r >= 10 else 1 if r >= 1 else 3)


# campo -> (rótulo, menor e maior expoente aceitos, unidade): um pouco além das faixas da tela.
FAIXAS_COMPUTE = {"logC": ("a computação C", 15, 30, "FLOPs"), "logN": ("os parâmetros N", 6, 14, "parâmetros"),
                  "logS": ("os tokens a servir", 6, 18, "tokens")}


def _expoente(c, campo):
    """Um expoente de 10 lido de um controle deslizante, dentro da faixa do próprio campo."""
    rotulo, lo, hi, unidade = FAIXAS_COMPUTE[campo]
    dominio = (f"um expoente de {inteiro(lo)} a {inteiro(hi)} (de {cientifico(10.0 ** lo)} a "
               f"{cientifico(10.0 ** hi)} {unidade})")
    v = ler_num(c.get(campo), rotulo, dominio=dominio)
    if not lo <= v <= hi:
        raise ErroEntrada(f"{em(rotulo, True)}, use {dominio}.")
    return v


def _grande(x):
    """Parâmetros e tokens: 29,4B, 1,7T; a partir de 10¹⁵, a forma científica (nunca "166.666,7T")."""
    return abreviado(x) if abs(x) < 1e15 else cientifico(x)


def _compute(c, acao, inst):
    c = dict(c)
    logC, logN, logS = (_expoente(c, campo) for campo in ("logC", "logN", "logS"))
    if c.get("ajuste") not in _ajustes():
        raise ErroEntrada("Ajuste desconhecido.")
    nome_aj, aj = _ajustes()[c["ajuste"]]
    C, N = 10 ** logC, 10 ** logN
    D = C / (arq.FLOPS_TREINO * N)

    L_N = arq.perda(N, D, aj)
    ot = arq.otimo_chinchilla(C, aj)
    lo, hi = math.log10(ot["N"]) - 2, math.log10(ot["N"]) + 2
    lo, hi = min(lo, logN - 0.2), max(hi, logN + 0.2)
    pontos = [(x, arq.perda_com_compute(10 ** x, C, aj)) for x in (lo + (hi - lo) * i / 60 for i in range(61))]
    marcas = [(math.log10(ot["N"]), ot["perda"], "lw-otimo", "mínimo pela lei do Chinchilla"),
              (logN, L_N, "lw-voce", "sua escolha")]
    out = []
    inf = None
    if ligado(c.get("inferencia")):
        S = 10 ** logS
        inf = arq.otimo_com_inferencia_para_compute(C, S, aj)
        marcas.append((math.log10(inf["N"]), arq.perda(inf["N"], inf["D"], aj), "lw-inferencia",
                       "mais barato contando o serviço"))
    out.append(_grafico(pontos, marcas, lo, hi))
    if inf:
        out.append(nota(f"Tokens a servir: {cientifico(10 ** logS)}.", "lw-config"))
    out.append(nota(f"C = {cientifico(C)} FLOPs. Sua escolha: N = {_grande(N)} parâmetros, "
                     f"D = C / 6N = {_grande(D)} tokens ({_por_parametro(D / N)} tokens por parâmetro), "
                     f"perda prevista <strong>{num(L_N)}</strong> nats por token.", "lw-voce-txt"))
    out.append(nota(f"O mínimo segundo {escapa(nome_aj)}: N* = {_grande(ot['N'])}, D* = {_grande(ot['D'])}, "
                     f"cerca de <strong>{_por_parametro(ot['tokens_por_parametro'])} tokens por parâmetro</strong>, "
                     f"perda {num(ot['perda'])}.", "lw-otimo-txt"))
    if inf:
        out.append(nota(
            f"Servindo {cientifico(10 ** logS)} tokens, o modelo mais barato com a mesma perda tem "
            f"N = {_grande(inf['N'])} e treina em D = {_grande(inf['D'])} tokens "
            f"(<strong>{_por_parametro(inf['tokens_por_parametro'])} tokens por parâmetro</strong>): "
            f"treino {cientifico(inf['custo_treino'])} + serviço {cientifico(inf['custo_servir'])} "
            "FLOPs.", "lw-inferencia-txt"))
    return "".join(out), c, []



REGISTRO = {
    "config-bloco": (_config_padrao, _config_form, _config_bloco),
    "compute": (_compute_padrao, _compute_form, _compute),
}
