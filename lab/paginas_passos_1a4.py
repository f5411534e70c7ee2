"""Ajudantes das páginas dos passos 1 a 4 (tokens, embeddings, Q K V, máscaras e cabeças).

Só apresentação: tabelas em Markdown e figuras do matplotlib com vírgula decimal.
Nenhuma conta do modelo mora aqui; todos os números vêm de `brinquedo` e são
formatados por `formato`.
"""

import math

from formato import num

MENOS_INF = "−∞"  # como a máscara aparece numa tabela ou figura


def celula(x, casas=3):
    """Um número de tabela: −∞ para a máscara, vírgula decimal para o resto."""
    if x == -math.inf:
        return MENOS_INF
    return num(x, casas)


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
    mapa_cor = __import__("matplotlib").colormaps[cmap].copy()
    mapa_cor.set_bad("#eeeeee")
    ax.imshow(dados, cmap=mapa_cor, vmin=lo, vmax=hi, aspect="auto")
    meio = (lo + hi) / 2
    for i in range(n):
        for j in range(m):
            x = M[i][j]
            if x == -math.inf:
                ax.text(j, i, rotulo_mascara, ha="center", va="center", color="#888888",
                        fontsize=tamanho)
                continue
            escuro = (x > meio) if cmap in ("Blues", "Greens", "Oranges", "Purples") else abs(x - meio) > 0.35 * (hi - lo)
            ax.text(j, i, num(x, casas), ha="center", va="center", fontsize=tamanho,
                    color="white" if escuro else "black")
    ax.set_xticks(range(m))
    ax.set_xticklabels(rotulos_colunas)
    ax.set_yticks(range(n))
    ax.set_yticklabels(rotulos_linhas)
    ax.tick_params(length=0)
    for j in (separar_colunas or []):
        ax.axvline(j - 0.5, color="black", linewidth=2)
    if titulo:
        ax.set_title(titulo, fontsize=11)


def curto(x):
    """Um número sem zeros inúteis: 0,5; -1; 2 (para pesos e somas exatas do brinquedo)."""
    from formato import casas_min
    return casas_min(x)


def vetor_curto(v):
    """[0; 0; -1; 0,5]: um vetor de números curtos."""
    return "[" + "; ".join(curto(x) for x in v) + "]"


def tex_vetor_curto(v):
    """O mesmo vetor para LaTeX (a vírgula vira {,})."""
    return vetor_curto(v).replace(",", "{,}")


def tex_curto(x, parenteses=False):
    """Um número curto para LaTeX; com parenteses=True, negativos vêm entre parênteses."""
    s = curto(x).replace(",", "{,}")
    return f"({s})" if parenteses and s.startswith("-") else s


def figura_mapa(M, rotulos_linhas, rotulos_colunas, tamanho_fig=(4.8, 3.6), xlabel=None,
                ylabel=None, girar_x=False, **opcoes):
    """Uma figura com um só mapa de calor (para pôr várias lado a lado numa grade da página,
    que no celular vira uma coluna)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=tamanho_fig)
    mapa(ax, M, rotulos_linhas, rotulos_colunas, **opcoes)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if girar_x:
        ax.tick_params(axis="x", labelrotation=45)
    fig.tight_layout()
    plt.close(fig)
    return fig
