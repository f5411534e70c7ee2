"""O corpo de cada página do site: linhas de código que quebram com recuo, vetores que se partem
só entre os números, e sem o <style> de reserva dos diagramas (no site vale o diagramas.css).

Cada linha de um bloco realçado vira um `<span class="lc-l">` com o recuo de continuação em `--r`
(livro.css): o resto de um comentário volta sob ele; o de um código, 4 colunas além do recuo; o de
uma saída, 2. O "\\n" fica fora do span (o botão de copiar lê o innerText).
"""
from __future__ import annotations

import html
import re

_PRE = re.compile(r'(<div class="highlight"><pre>)(.*?)(</pre></div>)', re.S)
_TAG = re.compile(r"<[^>]+>")
_COMENTARIO = re.compile(r'<span class="c1?">')
_CELULA = re.compile(r"(<td[^>]*>)(.*?)(</td>)", re.S)
_RESERVA = re.compile(r"<style>:where\(\.lv-.*?</style>\n?", re.S)
MAX_COMENTARIO = 16  # a continuação de um comentário nunca começa além desta coluna


def _texto(trecho_html: str) -> str:
    return html.unescape(_TAG.sub("", trecho_html))


def recuo(linha_html: str, codigo: bool) -> int:
    """A coluna onde recomeça o resto de uma linha que quebrou."""
    texto = _texto(linha_html)
    inicio = len(texto) - len(texto.lstrip(" "))
    if not codigo:
        return inicio + 2
    m = _COMENTARIO.search(linha_html)
    if m:
        col = len(_texto(linha_html[:m.start()]))
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


def vetores_partiveis(corpo: str) -> str:
    """Um <wbr> nas células depois de cada "; " sem quebra (livro.paginas.tabela), antes da parcela
    de uma soma e em <|endoftext|>."""
    def um(m):
        dentro = m.group(2).replace(";\xa0", ";\xa0<wbr>").replace("\xa0+\xa0", "\xa0+\xa0<wbr>")
        dentro = dentro.replace("&lt;|endoftext|&gt;", "&lt;|<wbr>endoftext|&gt;")
        return m.group(1) + dentro + m.group(3)
    return _CELULA.sub(um, corpo)


def sem_estilo_de_reserva(corpo: str) -> str:
    return _RESERVA.sub("", corpo)


def na_pagina(app, pagename, templatename, context, doctree):
    if "body" in context:
        context["body"] = vetores_partiveis(quebrar(sem_estilo_de_reserva(context["body"])))


def setup(app):
    app.connect("html-page-context", na_pagina)
