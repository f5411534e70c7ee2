"""Apresentação das páginas: colar valores no texto, tabelas e figuras.

Nenhuma conta do modelo mora aqui: os números vêm de `brinquedo` (e dos outros
módulos de lab/) e são formatados por `formato`. Toda página cola seus valores
com `cola` (a trava de números, livro_ext/trava/razao_codigo.py, procura por `cola(` no fonte).
"""

import math

from livro.formato import MENOS_INF, num

COLADOS = {}  # fora do build (notebook baixado): chave -> valor, para consulta


def cola(chave, valor):
    """Cola `valor` no texto da página, sob o nome `chave`.

    str -> {glue:text}`chave` (já formatado por `formato`); Math(...) -> {glue:math};
    Markdown(...) -> {glue:md}; figura do matplotlib -> {glue:figure};
    HTML(...) (um diagrama SVG) -> {glue}. Fora do build, sem o myst-nb,
    só guarda o valor em COLADOS: o texto do notebook já traz tudo resolvido.
    Uma figura precisa de texto alternativo em português: `:alt:` no ```{glue:figure}``` da
    página (sem ele, o HTML mostraria o caminho do arquivo; tests/test_interface_pt.py confere).
    """
    COLADOS[chave] = valor
    try:
        from myst_nb import glue
    except ImportError:
        return
    if type(valor).__name__ == "Figure":
        _figura_tambem_vetorial()
    glue(chave, valor, display=False)


def _figura_tambem_vetorial():
    """Uma figura sai em SVG e em PNG: o site e o PDF mostram o SVG (vetorial, nítido em
    qualquer tela e no papel); os notebooks baixados, o PNG (o Colab não mostra SVG)."""
    try:
        import matplotlib
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:
        return
    matplotlib.rcParams["svg.hashsalt"] = "livro"     # ids do SVG iguais a cada build
    set_matplotlib_formats("png", "svg", metadata={"Date": None})

AZUL = "#1f77b4"
CINZA = "#b0b0b0"
LARANJA = "#ff7f0e"

# As figuras cabem na coluna de um celular (358 px a 390 px de tela) sem encolher: a 100
# px por polegada (o PNG do build, e o SVG do site no mesmo tamanho: livro_ext/tema/figuras.py),
# 3,45 polegadas dão uns 350 px já com as margens.
LARGURA_CELULAR = 3.45


def _cabe(tamanho_fig):
    """(largura, altura) com a largura limitada a LARGURA_CELULAR (a altura fica)."""
    largura, altura = tamanho_fig
    return min(largura, LARGURA_CELULAR), altura


def _quebra_titulo(titulo, largura_pol, tamanho=11):
    """Quebra um título longo em linhas que cabem na figura (sem partir um trecho $...$)."""
    import textwrap

    por_linha = max(12, int(0.9 * largura_pol * 72 / (0.62 * tamanho)))  # ~0,62 em por letra
    if len(titulo) <= por_linha:
        return titulo
    partes = titulo.split("$")
    protegido = "$".join(p.replace(" ", "\u00a0") if k % 2 else p for k, p in enumerate(partes))
    linhas = textwrap.wrap(protegido, por_linha, break_long_words=False, break_on_hyphens=False)
    return "\n".join(linhas).replace("\u00a0", " ")


def _sem_quebra(celula):
    """Um vetor [a; b; c] não se parte em duas linhas da tabela (a tabela rola, se precisar)."""
    if celula.startswith("[") and celula.endswith("]"):
        return celula.replace(" ", "\u00a0")
    return celula


def tabela(cabecalho, linhas, direita=None):
    """Uma tabela em Markdown (para `{glue:md}`), com as colunas numéricas à direita.

    cabecalho: lista de títulos; linhas: listas de células já formatadas (strings);
    direita: índices das colunas alinhadas à direita (padrão: todas menos a primeira).
    """
    if direita is None:
        direita = range(1, len(cabecalho))
    alinhamento = ["---:" if i in direita else ":---" for i in range(len(cabecalho))]
    md = ["| " + " | ".join(cabecalho) + " |", "| " + " | ".join(alinhamento) + " |"]
    for linha in linhas:
        md.append("| " + " | ".join(_sem_quebra(str(c)).replace("|", "\\|") for c in linha) + " |")
    return "\n".join(md)


def mapa(ax, M, rotulos_linhas, rotulos_colunas, casas=3, titulo="", cmap="Blues",
         vmin=None, vmax=None, separar_colunas=None, mascara=None, rotulo_mascara=MENOS_INF,
         tamanho=9):
    """Mapa de calor de M com cada célula escrita com vírgula decimal.

    Células −∞ (a máscara causal) ficam cinza-claro com "−∞" escrito.
    mascara(i, j) -> True: a célula também fica cinza, com `rotulo_mascara` escrito.
    separar_colunas: índices de coluna antes dos quais desenhar uma linha (cabeças).
    """
    if mascara is not None:
        M = [[-math.inf if mascara(i, j) else x for j, x in enumerate(linha)]
             for i, linha in enumerate(M)]
    import numpy as np

    n, m = len(M), len(M[0])
    finitos = [x for linha in M for x in linha if x != -math.inf]
    lo = min(finitos) if vmin is None else vmin
    hi = max(finitos) if vmax is None else vmax
    dados = np.ma.masked_invalid(np.array([[x if x != -math.inf else np.nan for x in linha]
                                           for linha in M], dtype=float))
    mapa_cor = __import__("matplotlib").colormaps[cmap].with_extremes(bad="#eeeeee")
    ax.imshow(dados, cmap=mapa_cor, vmin=lo, vmax=hi, aspect="auto")
    meio = (lo + hi) / 2
    for i in range(n):
        for j in range(m):
            x = M[i][j]
            if x == -math.inf:
                ax.text(j, i, rotulo_mascara, ha="center", va="center", color="#888888",
                        fontsize=tamanho, in_layout=False)
                continue
            escuro = (x > meio) if cmap in ("Blues", "Greens", "Oranges", "Purples") else abs(x - meio) > 0.35 * (hi - lo)
            # dentro do eixo: fora das contas do layout (que mediriam cada texto de novo)
            ax.text(j, i, num(x, casas), ha="center", va="center", fontsize=tamanho,
                    color="white" if escuro else "black", in_layout=False)
    ax.set_xticks(range(m))
    ax.set_xticklabels(rotulos_colunas)
    ax.set_yticks(range(n))
    ax.set_yticklabels(rotulos_linhas)
    ax.tick_params(length=0)
    for j in (separar_colunas or []):
        ax.axvline(j - 0.5, color="black", linewidth=2)
    if titulo:
        ax.set_title(_quebra_titulo(titulo, ax.figure.get_figwidth()), fontsize=11)


def figura_mapa(M, rotulos_linhas, rotulos_colunas, tamanho_fig=(4.8, 3.6), xlabel=None,
                ylabel=None, girar_x=False, **opcoes):
    """Uma figura com um só mapa de calor (para pôr várias lado a lado numa grade da página,
    que no celular vira uma coluna). A largura cabe na coluna de um celular (LARGURA_CELULAR)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=_cabe(tamanho_fig))
    mapa(ax, M, rotulos_linhas, rotulos_colunas, **opcoes)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if girar_x:
        ax.tick_params(axis="x", labelrotation=45)
    fig.tight_layout()
    _cabe_nas_celulas(fig, ax, len(rotulos_colunas))
    plt.close(fig)
    return fig


def _cabe_nas_celulas(fig, ax, colunas, minimo=8.5):
    """Diminui (até `minimo` pontos) o texto das células que não caberia na largura de uma célula."""
    celula_pt = ax.get_window_extent().width / fig.dpi * 72 / colunas
    for t in ax.texts:
        largura_pt = 0.62 * t.get_fontsize() * len(t.get_text())  # DejaVu Sans: ~0,62 em por dígito
        if largura_pt > 0.88 * celula_pt:
            t.set_fontsize(max(minimo, t.get_fontsize() * 0.88 * celula_pt / largura_pt))


# --- figuras da saída e do próximo token (passos 6 e 7) ---


def eixo_com_virgula(eixo, casas=1):
    """Marcas de um eixo com vírgula decimal (0,2 em vez de 0.2)."""
    from matplotlib.ticker import FuncFormatter

    eixo.set_major_formatter(FuncFormatter(lambda x, _pos: num(x, casas)))


def barras_probabilidades(rotulos, series, nomes=None, cores=None, titulo="", destaque=None):
    """Barras horizontais: uma linha por token, uma barra por série (ex.: com e sem atenção).

    rotulos: os tokens, de cima para baixo; series: listas de probabilidades na mesma ordem.
    Cada barra leva o seu valor escrito com vírgula. destaque: índice de rótulo em negrito.
    """
    import matplotlib.pyplot as plt

    n, k = len(rotulos), len(series)
    cores = cores or [AZUL, CINZA, LARANJA][:k]
    altura = 0.8 / k
    fig, ax = plt.subplots(figsize=(LARGURA_CELULAR, 0.34 * n * max(1, k * 0.8) + 1.2))
    topo = max(max(s) for s in series)
    for j, s in enumerate(series):
        ys = [i + (j - (k - 1) / 2) * altura for i in range(n)]
        ax.barh(ys, s, height=altura * 0.92, color=cores[j],
                label=None if nomes is None else nomes[j])
        for y, v in zip(ys, s):
            ax.text(v + topo * 0.01, y, num(v), va="center", fontsize=8.5)
    ax.set_yticks(range(n))
    ax.set_yticklabels(rotulos)
    if destaque is not None:
        ax.get_yticklabels()[destaque].set_fontweight("bold")
    ax.invert_yaxis()
    ax.set_xlim(0, topo * 1.25)
    eixo_com_virgula(ax.xaxis, 1)
    ax.set_xlabel("probabilidade")
    for lado in ("top", "right"):
        ax.spines[lado].set_visible(False)
    if nomes is not None:  # a legenda embaixo, fora das barras
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), frameon=False)
    if titulo:  # centrado na figura (os rótulos dos tokens tomam a esquerda)
        fig.suptitle(_quebra_titulo(titulo, LARGURA_CELULAR), fontsize=11)
    fig.tight_layout()
    return fig


def faixa_do_sorteio(rotulos, q, sorteios, titulo=""):
    """A faixa [0, 1) cortada nas somas acumuladas de q, com cada sorteio u marcado.

    rotulos/q: os tokens mantidos e as probabilidades renormalizadas, na ordem;
    sorteios: lista de (u, texto) para marcar com uma seta.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(LARGURA_CELULAR, 2.6))
    cores = plt.get_cmap("tab10").colors
    inicio = 0.0
    faixa_px = LARGURA_CELULAR * 100 * 0.85   # a largura da faixa, em px, mais ou menos
    for i, (r, w) in enumerate(zip(rotulos, q)):
        ax.barh(0, w, left=inicio, height=0.6, color=cores[i % 10], edgecolor="white")
        texto_px = 7.5 * len(r)                # o rótulo deitado, a 8,5 pontos
        if w * faixa_px > 14:
            ax.text(inicio + w / 2, 0, r, ha="center", va="center", fontsize=8.5,
                    color="white", rotation=0 if w * faixa_px > texto_px + 4 else 90)
        inicio += w
    for u, texto in sorteios:
        ax.annotate(texto, xy=(u, 0.32), xytext=(u, 0.85), ha="center", fontsize=9,
                    arrowprops={"arrowstyle": "->", "color": "black"})
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.5, 1.1)
    ax.set_yticks([])
    eixo_com_virgula(ax.xaxis, 1)
    ax.set_xlabel("soma acumulada (renormalizada)")
    for lado in ("top", "right", "left"):
        ax.spines[lado].set_visible(False)
    if titulo:
        ax.set_title(_quebra_titulo(titulo, LARGURA_CELULAR), fontsize=11)
    fig.tight_layout()
    return fig


def colunas_agrupadas(rotulos, series, nomes, cores=None, titulo=""):
    """Colunas verticais agrupadas: um grupo por token, uma coluna por série (ex.: temperaturas).

    Sem valores escritos (a tabela da página já os dá); o eixo y leva vírgula decimal.
    """
    import matplotlib.pyplot as plt

    n, k = len(rotulos), len(series)
    cores = cores or [AZUL, CINZA, LARANJA][:k]
    largura = 0.8 / k
    fig, ax = plt.subplots(figsize=(LARGURA_CELULAR, 3.9))
    for j, s in enumerate(series):
        xs = [i + (j - (k - 1) / 2) * largura for i in range(n)]
        ax.bar(xs, s, width=largura * 0.95, color=cores[j], label=nomes[j])
    ax.set_xticks(range(n))
    ax.set_xticklabels(rotulos, rotation=60, ha="right", rotation_mode="anchor")
    eixo_com_virgula(ax.yaxis, 1)
    ax.set_ylabel("probabilidade")
    for lado in ("top", "right"):
        ax.spines[lado].set_visible(False)
    ax.legend(frameon=False)
    if titulo:
        ax.set_title(_quebra_titulo(titulo, LARGURA_CELULAR), fontsize=11)
    fig.tight_layout()
    return fig
