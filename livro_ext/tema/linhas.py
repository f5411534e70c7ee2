"""Linhas de código e de saída que quebram com recuo (celular).

Num celular uma linha de código mais larga que a coluna quebra (livro.css: pre-wrap); sem
mais nada, o resto dela começaria na coluna 0 e se leria como código (o "# √(σ² + / ε)" de
um comentário). Aqui, no fim da escrita de cada página, cada linha de um bloco realçado
(`<div class="highlight"><pre>`: células, saídas, blocos de código) vira um
`<span class="lc-l">` com o seu recuo de continuação em `--r`: o resto de um comentário
volta sob o comentário; o de uma linha de código, quatro colunas além do recuo dela; o de
uma saída, duas. O Pygments fecha cada `<span>` antes do fim da linha, então cortar no
"\\n" não quebra nenhuma tag; o "\\n" fica fora do span (o botão de copiar lê o innerText).

O <style> de reserva dos diagramas (para notebooks) sai do corpo: no site vale o diagramas.css.

Nas tabelas, um vetor [a; b; c] vem com espaços que não quebram (livro.paginas.tabela): aqui
cada "; " ganha um <wbr>, e o vetor só se parte onde falta lugar (no celular), nunca no meio
de um número.
"""
from __future__ import annotations

import html
import re

_PRE = re.compile(r'(<div class="highlight"><pre>)(.*?)(</pre></div>)', re.S)
_TAG = re.compile(r"<[^>]+>")
_COMENTARIO = re.compile(r'<span class="c1?">')
MAX_COMENTARIO = 16  # a continuação de um comentário nunca começa além desta coluna


def _largura(trecho_html: str) -> int:
    return len(html.unescape(_TAG.sub("", trecho_html)))


def recuo(linha_html: str, codigo: bool) -> int:
    """A coluna onde recomeça o resto de uma linha que quebrou.

    >>> recuo('<span class="n">x</span> = 1  <span class="c1"># um comentário</span>', True)
    9
    >>> recuo('    <span class="k">return</span> <span class="n">y</span>', True)
    8
    >>> recuo('  T = 0,5: ␣telhado 0,761', False)
    4
    """
    texto = html.unescape(_TAG.sub("", linha_html))
    inicio = len(texto) - len(texto.lstrip(" "))
    if not codigo:
        return inicio + 2
    m = _COMENTARIO.search(linha_html)
    if m:
        col = _largura(linha_html[:m.start()])
        if col > inicio:  # comentário depois do código: o resto volta sob o comentário
            return min(col + 2, max(MAX_COMENTARIO, inicio + 4))
        return inicio + 2
    return inicio + 4


def quebrar(corpo: str) -> str:
    """Cada linha dos blocos realçados num span com o recuo de continuação."""
    def um(m):
        pre = m.group(2)
        codigo = 'class="' in pre.replace("<span></span>", "")
        linhas = pre.split("\n")
        fim = ""
        if linhas and linhas[-1] == "":
            linhas.pop()
            fim = "\n"
        saida = [f'<span class="lc-l" style="--r:{recuo(lin, codigo)}ch">{lin}</span>' for lin in linhas]
        return m.group(1) + "\n".join(saida) + fim + m.group(3)
    return _PRE.sub(um, corpo)


_CELULA = re.compile(r"(<td[^>]*>)(.*?)(</td>)", re.S)


def vetores_partiveis(corpo: str) -> str:
    """Um ponto de quebra depois de cada "; " (sem quebra) das células, antes da parcela de uma soma e em <|endoftext|>.

    >>> vetores_partiveis('<td><p>[0;\xa0-2;\xa0<b>1</b>]</p></td>')
    '<td><p>[0;\xa0<wbr>-2;\xa0<wbr><b>1</b>]</p></td>'
    """
    def um(m):
        dentro = m.group(2).replace(";\xa0", ";\xa0<wbr>").replace("\xa0+\xa0", "\xa0+\xa0<wbr>").replace("&lt;|endoftext|&gt;", "&lt;|<wbr>endoftext|&gt;")
        return m.group(1) + dentro + m.group(3)
    return _CELULA.sub(um, corpo)


_RESERVA = re.compile(r"<style>:where\(\.lv-.*?</style>\n?", re.S)


def sem_estilo_de_reserva(corpo: str) -> str:
    """Tira o <style> de reserva dos diagramas (livro.diagramas, para notebooks) do corpo.

    No site o diagramas.css, no <head>, já desenha os diagramas; um <style> no corpo não é
    HTML válido.

    >>> sem_estilo_de_reserva('<div><style>:where(.lv-svg){x:1}</style><svg></svg></div>')
    '<div><svg></svg></div>'
    """
    return _RESERVA.sub("", corpo)


def na_pagina(app, pagename, templatename, context, doctree):
    if "body" not in context:
        return
    if "<style>:where(.lv-" in context["body"]:
        context["body"] = sem_estilo_de_reserva(context["body"])
    if '<div class="highlight"><pre>' in context["body"]:
        context["body"] = quebrar(context["body"])
    if "<td" in context["body"]:
        context["body"] = vetores_partiveis(context["body"])


def setup(app):
    app.connect("html-page-context", na_pagina)
