"""A diretiva {widget} (o HTML do estado inicial sai de `livro.widgets.api`, o mesmo código do navegador),
o JS e o CSS dos widgets só nas páginas que os têm, a partida (partida.js) e o registro do service worker
(registro.js) no <head>, e o runtime no fim do build (pos_build.py)."""
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
            return [self.state_machine.reporter.error(
                f"widget desconhecido: {nome!r} (conhecidos: {', '.join(widgets_api.WIDGETS)})", line=self.lineno)]
        doc = self.state.document
        doc.livro_widgets = getattr(doc, "livro_widgets", []) + [nome]     # os nomes já na página
        html = widgets_api.widget_html(nome, widgets_api.id_do_widget(nome, vezes(doc.livro_widgets)[-1]))
        return [nodes.raw("", html, format="html")]


def _sem_comentarios(nome):
    return "\n".join(linha for linha in (Path(__file__).parent / nome).read_text(encoding="utf-8").splitlines()
                     if not linha.lstrip().startswith("//"))


PARTIDA = _sem_comentarios("partida.js")  # no começo do <head> das páginas com widget e da abertura
REGISTRO = _sem_comentarios("registro.js")  # em toda página do site


def nomes_dos_widgets(doctree) -> list[str]:
    """Os widgets de uma página, na ordem, sem repetir (os data-widget do HTML da diretiva)."""
    textos = [n.astext() for n in doctree.findall(nodes.raw)]
    nomes = [nome for texto in textos if MARCA in texto for nome in re.findall(r'data-widget="([^"]+)"', texto)]
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
        # no começo do <head>: depois das folhas de estilo, o script esperaria chegarem (no celular, segundos)
        script = PARTIDA.replace("__WIDGETS__", json.dumps(nomes)).replace("__ANTECIPAR__", json.dumps(abertura))
        context["metatags"] = context.get("metatags", "") + f"\n<script>{script}</script>\n"
    if nomes:
        app.add_css_file("widgets/widgets.css")
        app.add_js_file("widgets/widgets.js", defer="defer")
        if "lista" in nomes or any(n.startswith(widgets_api.PREFIXO_EXERCICIO) for n in nomes):
            exercicios.por_pagina(app)  # o progresso e o enunciado de outra versão
        if "lista" in nomes:
            app.add_js_file("lista.js", defer="defer")  # a lista de um aluno (book/lista.md)


def setup(app):
    app.add_directive("widget", WidgetDirective)
    app.connect("html-page-context", _por_pagina)
    app.connect("build-finished", pos_build.ao_fim_do_build)
