"""Diretiva {widget}: um widget Pyodide numa página.

    ```{widget} tokens
    ```

No build, a diretiva chama `livro.widgets.api` (o mesmo arquivo que o
navegador roda no Pyodide) e põe na página os controles e os números do
estado inicial: quem lê sem JavaScript vê o widget parado, mas com os
números certos. As páginas com widget, e só elas, ganham
`_static/widgets/widgets.js` (o carregador) e `widgets.css`.

No fim do build (evento `build-finished`), `pos_build.py` põe no site o runtime
do navegador (Pyodide enxuto, os arquivos Python e o manifesto): um
`jupyter-book build .` simples já dá um site completo.
"""
import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

from livro.widgets import api as widgets_api
from ..tema import exercicios

from . import CLASSE_WIDGET, offline, pos_build, vezes

MARCA = f'class="{CLASSE_WIDGET}"'


class WidgetDirective(Directive):
    required_arguments = 1
    has_content = True

    def run(self):
        nome = self.arguments[0]
        if not widgets_api.conhecido(nome):
            erro = self.state_machine.reporter.error(
                f"widget desconhecido: {nome!r} (conhecidos: {', '.join(widgets_api.WIDGETS)})",
                line=self.lineno)
            return [erro]
        doc = self.state.document
        doc.livro_widgets = getattr(doc, "livro_widgets", []) + [nome]     # os nomes já na página
        html = widgets_api.widget_html(nome, widgets_api.id_do_widget(nome, vezes(doc.livro_widgets)[-1]))
        return [nodes.raw("", html, format="html")]


def _sem_comentarios(nome):
    return "\n".join(linha for linha in (Path(__file__).parent / nome).read_text(encoding="utf-8").splitlines()
                     if not linha.lstrip().startswith("//"))


# A partida antecipada (livro_ext/widgets/partida.js), embutida no começo do <head>, sem os comentários.
PARTIDA = _sem_comentarios("partida.js")
# O registro do service worker (offline.js, escrito por offline.py), em toda página.
REGISTRO = _sem_comentarios("registro.js")


def nomes_dos_widgets(doctree) -> list[str]:
    """Os widgets de uma página, na ordem, sem repetir (os data-widget do HTML da diretiva)."""
    nomes = []
    for n in doctree.findall(nodes.raw):
        texto = n.astext()
        if MARCA in texto:
            nomes += re.findall(r'data-widget="([^"]+)"', texto)
    return list(dict.fromkeys(nomes))


def _por_pagina(app, pagename, templatename, context, doctree):
    """Carrega o JS e o CSS dos widgets só nas páginas que têm widget, e a partida antecipada."""
    if doctree is None:
        return
    site = app.builder.name == "html"  # o site (não a página única do PDF)
    if site and offline.ligado():
        context["metatags"] = context.get("metatags", "") + f"\n<script>{REGISTRO}</script>\n"
    nomes = nomes_dos_widgets(doctree)
    abertura = site and pagename == app.config.root_doc  # baixa o runtime em tempo ocioso (partida.js)
    if nomes or abertura:
        # nos metatags, o começo do <head>: antes das folhas de estilo, que um <script> embutido
        # depois delas esperaria chegar (numa rede de celular, segundos)
        script = PARTIDA.replace("__WIDGETS__", json.dumps(nomes)).replace("__ANTECIPAR__", json.dumps(abertura))
        context["metatags"] = context.get("metatags", "") + f"\n<script>{script}</script>\n"
    if nomes:
        app.add_css_file("widgets/widgets.css")
        app.add_js_file("widgets/widgets.js", defer="defer")
        if any(n.startswith(widgets_api.PREFIXO_EXERCICIO) for n in nomes):
            exercicios.por_pagina(app)  # o progresso e o enunciado de outra versão


def setup(app):
    app.add_directive("widget", WidgetDirective)
    app.connect("html-page-context", _por_pagina)
    app.connect("build-finished", pos_build.ao_fim_do_build)
