"""Ajudantes das páginas dos passos 6 e 7 (a saída, o próximo token).

Só apresentação: tabelas em Markdown e figuras do matplotlib com vírgula decimal.
Nenhuma conta do modelo mora aqui; todos os números vêm de `brinquedo` e são
formatados por `formato`.
"""

from formato import num

AZUL = "#1f77b4"
CINZA = "#b0b0b0"
LARANJA = "#ff7f0e"


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
        md.append("| " + " | ".join(str(c).replace("|", "\\|") for c in linha) + " |")
    return "\n".join(md)


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
    fig, ax = plt.subplots(figsize=(6.4, 0.42 * n * max(1, k * 0.8) + 0.9))
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
    ax.set_xlim(0, topo * 1.18)
    eixo_com_virgula(ax.xaxis, 1)
    ax.set_xlabel("probabilidade")
    for lado in ("top", "right"):
        ax.spines[lado].set_visible(False)
    if nomes is not None:
        ax.legend(loc="lower right", frameon=False)
    if titulo:
        ax.set_title(titulo, fontsize=11)
    fig.tight_layout()
    return fig


def faixa_do_sorteio(rotulos, q, sorteios, titulo=""):
    """A faixa [0, 1) cortada nas somas acumuladas de q, com cada sorteio u marcado.

    rotulos/q: os tokens mantidos e as probabilidades renormalizadas, na ordem;
    sorteios: lista de (u, texto) para marcar com uma seta.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 2.3))
    cores = plt.get_cmap("tab10").colors
    inicio = 0.0
    for i, (r, w) in enumerate(zip(rotulos, q)):
        ax.barh(0, w, left=inicio, height=0.6, color=cores[i % 10], edgecolor="white")
        if w > 0.07:
            ax.text(inicio + w / 2, 0, r, ha="center", va="center", fontsize=8.5,
                    color="white", rotation=90 if w < 0.14 else 0)
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
        ax.set_title(titulo, fontsize=11)
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
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
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
        ax.set_title(titulo, fontsize=11)
    fig.tight_layout()
    return fig
