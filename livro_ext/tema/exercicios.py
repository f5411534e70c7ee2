"""Os exercícios conferidos no site: o JS e o CSS deles, e o resumo do progresso na abertura.

Cada exercício é um widget (```{widget} exercicio:tokens-1```, `livro.widgets.exercicio`): a
diretiva {widget} já o monta, a trava já guarda o estado inicial (`widget:exercicio:<id>`), e o
navegador o confere com o mesmo runtime dos outros widgets. Aqui só:

- `por_pagina`: as páginas com exercício ganham `_static/exercicios.js` (o progresso no
  localStorage, o enunciado de outra versão no lugar, Enter confere) e `exercicios.css`;
- a diretiva ```{exercicios-resumo}```: na abertura, o resumo do progresso (as páginas e os ids
  de `livro.exercicios`; o JS conta o que este aparelho guardou).
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
