"""Os exercícios conferidos (widgets `exercicio:<id>`, `livro.widgets.exercicio`) no site: o JS e o CSS
deles nas páginas que os têm, e a diretiva {exercicios-resumo}, o resumo do progresso na abertura.
"""
import json

from docutils import nodes
from docutils.parsers.rst import Directive

MARCA_RESUMO = "data-lx-resumo"


def por_pagina(app):
    app.add_css_file("exercicios.css")
    app.add_js_file("revisao.js", defer="defer")  # as contas da revisão e do código (antes de exercicios.js)
    app.add_js_file("exercicios.js", defer="defer")


def resumo_html():
    from livro.exercicios import EXERCICIOS, PAGINAS, da_pagina
    paginas = [{"pagina": p, "titulo": t, "ids": da_pagina(p), "nomes": [EXERCICIOS[i].titulo for i in da_pagina(p)]}
               for p, t in PAGINAS.items() if da_pagina(p)]
    dados = json.dumps(paginas, ensure_ascii=False).replace("&", "&amp;").replace("'", "&#x27;")
    total = sum(len(p["ids"]) for p in paginas)
    return (f'<div class="lx-resumo" {MARCA_RESUMO}=\'{dados}\'>'
            f'<p>O livro tem {total} exercícios conferidos: você digita a resposta, e o Python do navegador a '
            'confere. Com JavaScript, o seu progresso aparece aqui, com os exercícios para revisar hoje.</p>'
            '<p class="lx-aviso-aparelho">O progresso fica só neste aparelho, neste navegador: nunca é enviado, '
            'e nenhum outro aparelho o vê. O Safari (no iPhone, no iPad e no Mac) apaga o que um site guardou '
            'depois de 7 dias sem visita; para não perder o seu progresso, exporte-o (um código ou um arquivo) e, '
            'quando precisar, importe-o de volta, aqui ou em outro aparelho.</p>'
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
