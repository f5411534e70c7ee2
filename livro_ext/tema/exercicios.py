"""Os exercícios conferidos (widgets `exercicio:<id>`, `livro.widgets.exercicio`) no site: o JS e o CSS
deles nas páginas que os têm, e a diretiva {exercicios-resumo}, o resumo do progresso na abertura.
"""
import json

from docutils import nodes
from docutils.parsers.rst import Directive

MARCA_RESUMO = "data-lx-resumo"


def por_pagina(app):
    app.add_css_file("exercicios.css")
    app.add_js_file("exercicios.js", defer="defer")


def resumo_html():
    from livro.exercicios import PAGINAS, da_pagina
    paginas = [{"pagina": p, "titulo": t, "ids": da_pagina(p)} for p, t in PAGINAS.items() if da_pagina(p)]
    dados = json.dumps(paginas, ensure_ascii=False).replace("&", "&amp;").replace("'", "&#x27;")
    total = sum(len(p["ids"]) for p in paginas)
    return (f'<div class="lx-resumo" {MARCA_RESUMO}=\'{dados}\'>'
            f'<p>O livro tem {total} exercícios conferidos: você digita a resposta, e o Python do navegador a '
            'confere. Com JavaScript, o seu progresso aparece aqui; ele fica só neste aparelho, nunca é enviado.</p>'
            '</div>')


class ResumoDirective(Directive):
    has_content = False

    def run(self):
        return [nodes.raw("", resumo_html(), format="html")]


def _pagina(app, pagename, templatename, context, doctree):
    if doctree is None:
        return
    if any(MARCA_RESUMO in n.astext() for n in doctree.findall(nodes.raw)):
        por_pagina(app)


def setup(app):
    app.add_directive("exercicios-resumo", ResumoDirective)
    app.connect("html-page-context", _pagina)
